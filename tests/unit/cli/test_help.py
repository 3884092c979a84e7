"""Every command's `--help` reads whole in an 80-column terminal."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from rich.text import Text
from typer.testing import CliRunner

from toolcall_sdk.cli import app

COMMANDS = [
    [],
    ["launch"],
    ["doctor"],
    ["eval"],
    ["eval", "compare"],
    ["proxy"],
    ["cases"],
    ["cases", "review"],
]
GROUP: Any = typer.main.get_command(app)


def _help(argv: list[str]) -> str:
    result = CliRunner().invoke(app, [*argv, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(argv) or "toolcall-sdk")
def test_help_fits_80_columns_whole(argv: list[str]) -> None:
    out = _help(argv)

    assert "…" not in out  # nothing cut to fit
    assert max(len(line) for line in out.splitlines()) <= 80
    # Values are named by what they are (URL, N, SECONDS), not by a Python type.
    assert "<bool>" not in out
    assert "<list[" not in out
    assert "<str>" not in out
    assert "<int>" not in out
    assert "<float>" not in out


@pytest.mark.parametrize("name", sorted(GROUP.commands))
def test_every_value_has_a_name(name: str) -> None:
    command = GROUP.commands[name]
    unnamed = [
        param.name
        for param in command.params
        if param.param_type_name == "option" and not param.is_flag and not param.metavar
    ]
    assert unnamed == []
    assert all(param.metavar for param in command.params if param.param_type_name == "argument")


def _help_strings() -> list[str]:
    strings = [GROUP.help or ""]
    for command in GROUP.commands.values():
        strings += [command.help or "", command.short_help or ""]
        strings += [param.help or "" for param in command.params if hasattr(param, "help")]
    return [s for s in strings if s]


def test_help_strings_hold_no_rich_markup() -> None:
    # typer renders help as Rich markup: `[embeds]` there would vanish from the screen.
    changed = [s for s in _help_strings() if Text.from_markup(s).plain != s]
    assert changed == []


def test_the_command_list_gives_one_line_per_command() -> None:
    lines = _help([]).splitlines()
    for name in ("launch", "doctor", "eval", "proxy"):
        short = GROUP.commands[name].short_help
        assert [line for line in lines if f" {name} " in line and short in line], name


def test_doctor_help_shows_the_url_argument() -> None:
    out = _help(["doctor"])
    assert "Usage: toolcall-sdk doctor [OPTIONS] [URL]" in out
    assert "--base-url" in out
