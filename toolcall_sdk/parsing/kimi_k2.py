"""Kimi K2 format (K2, K2.5, K2.6, K2-Thinking): a section of calls, each with an id.

    <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
    <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>

(on one line).
The call id is `functions.{name}:{index}` (some outputs drop the `functions.` prefix): the
name is read from it. The arguments are followed as JSON, so Kimi's tokens inside a JSON
string are part of it. Text before and after the section is kept; text inside it but outside
a call is markup, and an empty section is markup only.

A call whose JSON never closes is no call: a section the output ends inside keeps the calls
it completed.
"""

from __future__ import annotations

from typing import Final

from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import JsonSectionStream
from toolcall_sdk.parsing._types import ParseResult

__all__ = ["FORMAT", "SECTION_BEGIN", "SECTION_END", "KimiK2Stream", "parse"]

FORMAT: Final = "kimi_k2"
SECTION_BEGIN: Final = "<|tool_calls_section_begin|>"
SECTION_END: Final = "<|tool_calls_section_end|>"
CALL_BEGIN: Final = "<|tool_call_begin|>"
ARGS_BEGIN: Final = "<|tool_call_argument_begin|>"
CALL_END: Final = "<|tool_call_end|>"
_BLANK: Final = " \t\r\n"


def parse(text: str) -> ParseResult:
    """Read every Kimi K2 call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without the section.
    """
    return KimiK2Stream.parse_text(text)


def name_from_id(call_id: str) -> str:
    """`functions.get_weather:0` → `get_weather`."""
    name = call_id.strip(_BLANK)
    head, colon, index = name.rpartition(":")
    if colon and index.strip(_BLANK).isdigit():
        name = head.strip(_BLANK)
    return name.removeprefix("functions.")


class KimiK2Stream(JsonSectionStream):
    """Incremental Kimi K2 parser (see `JsonSectionStream`)."""

    format = FORMAT
    parsers = ("kimi_k2",)
    markers = (SECTION_BEGIN,)
    _PROSE_TAGS = TagSet(SECTION_BEGIN)
    _REGIONS = frozenset({SECTION_BEGIN})
    SECTION_BEGIN, SECTION_END = SECTION_BEGIN, SECTION_END
    CALL_BEGIN, ARGS, CALL_END = CALL_BEGIN, ARGS_BEGIN, CALL_END

    @classmethod
    def _name(cls, section: str, head: int, args: int, start: int) -> str:
        return name_from_id(section[head:args])
