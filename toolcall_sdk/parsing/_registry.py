"""Format names: ours, vLLM's `--tool-call-parser` names, model ids and model families."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeVar

from toolcall_sdk._families import FAMILIES
from toolcall_sdk.parsing import (
    deepseek_v3,
    deepseek_v32,
    gemma4,
    glm45,
    harmony,
    hermes,
    kimi_k2,
    kimi_k3,
    llama3_json,
    mistral,
    pythonic,
    qwen3_xml,
    qwen25_coder,
    xlam,
)
from toolcall_sdk.parsing._base import FormatStream

_V = TypeVar("_V")

__all__ = ["FORMATS", "FORMAT_STREAMS", "LEADS", "MARKERS", "STREAMS", "format_for"]

# Every format, one class each: the one list a new format is added to (its class says its
# name, parsers, markers and leads). The order is `FORMATS`' and the fallback order of
# `parse_any` (xLAM first there, see `_dispatch`).
FORMAT_STREAMS: Final[tuple[type[FormatStream], ...]] = (
    hermes.HermesStream,
    llama3_json.Llama3JsonStream,
    mistral.MistralStream,
    pythonic.PythonicStream,
    qwen3_xml.Qwen3XmlStream,
    deepseek_v3.DeepSeekV3Stream,
    deepseek_v32.DeepSeekV32Stream,
    gemma4.Gemma4Stream,
    glm45.Glm45Stream,
    harmony.HarmonyStream,
    kimi_k2.KimiK2Stream,
    kimi_k3.KimiK3Stream,
    xlam.XlamStream,
    qwen25_coder.Qwen25CoderStream,
)
# The SDK's vLLM plugin registers one parser per format under this prefix (`toolcall_hermes`).
_PLUGIN_PREFIX: Final = "toolcall_"


def _unique(pairs: Iterable[tuple[str, _V]], what: str) -> dict[str, _V]:
    """`dict(pairs)`, refusing a key claimed twice (two formats with one name or tag)."""
    table: dict[str, _V] = {}
    for key, value in pairs:
        if key in table and table[key] != value:
            raise RuntimeError(f"the {what} {key!r} is claimed by two formats")
        table[key] = value
    return table


STREAMS: Final[dict[str, type[FormatStream]]] = _unique(
    ((cls.format, cls) for cls in FORMAT_STREAMS), "format name"
)
FORMATS: Final = tuple(STREAMS)
# vLLM parser names whose output one of our formats reads, and the names of the SDK plugin's.
_PARSER_FORMATS: Final = _unique(
    (
        (name, cls.format)
        for cls in FORMAT_STREAMS
        for name in (cls.format, *cls.parsers, _PLUGIN_PREFIX + cls.format)
    ),
    "parser name",
)
# What `StreamParser("auto")` looks for: each format's tags anywhere in the text, and the
# calls that may open a text untagged (by their first character).
MARKERS: Final = _unique(
    ((tag, cls.format) for cls in FORMAT_STREAMS for tag in cls.markers), "marker"
)
LEADS: Final = _unique(
    ((char, (cls.format, steps)) for cls in FORMAT_STREAMS for char, steps in cls.leads),
    "leading character",
)


def format_for(name: str) -> str | None:
    """The format to read a model's output in.

    Args:
        name: One of `FORMATS`, a vLLM `--tool-call-parser` name (`qwen3_coder`,
            `llama4_pythonic`, ...) or the SDK plugin's (`toolcall_qwen25_coder`), a launcher
            family name (`qwen2.5`, `llama-3.2-json`), or a model id
            (`Qwen/Qwen2.5-7B-Instruct`).

    Returns:
        The format, or None when the name says nothing we can read (then detect it).
    """
    key = name.strip().lower()
    found = _PARSER_FORMATS.get(key)
    if found is not None:
        return found
    # Model ids and family names: the family registry is the one source (the launcher and
    # the vLLM plugin read it too), through the parser it names for the family.
    parser = _family_parser(name.strip())
    return _PARSER_FORMATS.get(parser) if parser else None


def _repository(name: str) -> str:
    return name.strip().rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]


def _family_parser(name: str) -> str | None:
    """The parser of the family named `name`, else of the first whose pattern matches the
    repository name (`_families.FAMILIES`' order), else None."""
    key = name.lower()
    for family in FAMILIES:
        if family.name == key:
            return family.tool_call_parser
    repository = _repository(name)
    for family in FAMILIES:
        if repository and family.matches(repository):
            return family.tool_call_parser
    return None
