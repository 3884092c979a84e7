"""Each client option is declared once and documented: docstring, defaults table, Config."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from toolcall_sdk import AsyncToolCallClient, ToolCallClient
from toolcall_sdk._options import DEFAULTS, ClientOptions, resolve_options
from toolcall_sdk._pipeline import TOOL_CHOICES, Config, ToolChoice
from toolcall_sdk.routing import resolve_router

PIPELINE_MD = Path(__file__).parents[3] / "docs" / "pipeline.md"
OPTIONS = list(ClientOptions.__annotations__)


def _table() -> dict[str, str]:
    """The rows of docs/pipeline.md's "Every client option": option -> its default cell."""
    section = PIPELINE_MD.read_text().split("## Every client option", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)=` \| `([^`]*)` \|", section, flags=re.MULTILINE))


def test_every_option_has_a_default() -> None:
    assert list(DEFAULTS) == OPTIONS


def test_every_option_is_in_the_client_docstring() -> None:
    doc = ToolCallClient.__doc__ or ""
    args = doc.split("Args:", 1)[1]
    for name in OPTIONS:
        assert re.search(rf"^ {{8}}{name}: \S", args, flags=re.MULTILINE), name
    assert "same arguments" in (AsyncToolCallClient.__doc__ or "")


def test_the_defaults_table_lists_every_option_with_its_default() -> None:
    table = _table()
    assert list(table) == OPTIONS
    for name, cell in table.items():
        default = DEFAULTS[name]  # type: ignore[literal-required]
        assert cell == repr(default).replace("'", '"'), name


def test_config_takes_each_option_it_shares_a_name_with() -> None:
    resolved = resolve_options("T", {"max_retries": 5, "tool_choice": "auto", "recover": False})
    config = Config.from_options(resolved, model="m", tools={}, schemas={})
    shared = [f.name for f in dataclasses.fields(Config) if f.name in OPTIONS]
    assert {"max_retries", "tool_choice", "recover", "router", "grounding"} <= set(shared)
    assert (config.max_retries, config.tool_choice, config.recover) == (5, "auto", False)
    assert type(config.router) is type(resolve_router("llm"))
    assert config.grounding is None  # grounding=False: no check
    assert config.model == "m"


def test_tool_choices_are_read_from_the_type() -> None:
    assert TOOL_CHOICES == ("required", "auto")
    assert "ToolChoice" in str(ClientOptions.__annotations__["tool_choice"])
    assert ToolChoice.__args__ == TOOL_CHOICES  # type: ignore[attr-defined]
