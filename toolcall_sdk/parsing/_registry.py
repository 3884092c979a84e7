"""Format names: ours, vLLM's `--tool-call-parser` names, and model families."""

from __future__ import annotations

from typing import Final

from toolcall_sdk._families import FAMILIES
from toolcall_sdk.parsing import hermes, llama3_json, mistral, pythonic, qwen3_xml
from toolcall_sdk.parsing._base import FormatStream

__all__ = ["FORMATS", "STREAMS", "format_for"]

STREAMS: Final[dict[str, type[FormatStream]]] = {
    hermes.FORMAT: hermes.HermesStream,
    llama3_json.FORMAT: llama3_json.Llama3JsonStream,
    mistral.FORMAT: mistral.MistralStream,
    pythonic.FORMAT: pythonic.PythonicStream,
    qwen3_xml.FORMAT: qwen3_xml.Qwen3XmlStream,
}
FORMATS: Final = tuple(STREAMS)

# vLLM parser names whose output one of our formats reads.
_PARSER_FORMATS: Final = {
    "hermes": hermes.FORMAT,
    "llama3_json": llama3_json.FORMAT,
    "llama4_json": llama3_json.FORMAT,
    "mistral": mistral.FORMAT,
    "pythonic": pythonic.FORMAT,
    "llama4_pythonic": pythonic.FORMAT,
    "qwen3_coder": qwen3_xml.FORMAT,
    "qwen3_xml": qwen3_xml.FORMAT,
}


def format_for(name: str) -> str | None:
    """The format to read a model's output in.

    Args:
        name: One of `FORMATS`, a vLLM `--tool-call-parser` name (`qwen3_coder`,
            `llama4_pythonic`, ...), a launcher family name (`qwen2.5`, `llama-3.2-json`),
            or a model id (`Qwen/Qwen2.5-7B-Instruct`), matched by the family registry.

    Returns:
        The format, or None when the name says nothing we can read (then detect it).
    """
    key = name.strip().lower()
    found = _PARSER_FORMATS.get(key)
    if found is not None:
        return found
    parser = _family_parser(name.strip())
    return _PARSER_FORMATS.get(parser) if parser else None


def _family_parser(name: str) -> str | None:
    key = name.lower()
    for family in FAMILIES:
        if family.name == key:
            return family.tool_call_parser
    repository = name.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    for family in FAMILIES:
        if repository and family.matches(repository):
            return family.tool_call_parser
    return None
