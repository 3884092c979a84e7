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

from toolcall_sdk.parsing._json import normalise_arguments
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import JsonSectionScanner, RegionStream, Scanner, json_span
from toolcall_sdk.parsing._types import ParsedCall, ParseResult

__all__ = ["FORMAT", "SECTION_BEGIN", "SECTION_END", "KimiK2Stream", "parse"]

FORMAT: Final = "kimi_k2"
SECTION_BEGIN: Final = "<|tool_calls_section_begin|>"
SECTION_END: Final = "<|tool_calls_section_end|>"
CALL_BEGIN: Final = "<|tool_call_begin|>"
ARGS_BEGIN: Final = "<|tool_call_argument_begin|>"
CALL_END: Final = "<|tool_call_end|>"
_STOPS: Final = (CALL_END, CALL_BEGIN, SECTION_END)
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


def calls_from_section(section: str, closed: bool = True) -> list[ParsedCall]:
    """The well-formed calls of a section, in order; in a section the text ended inside
    (`closed` false), only those whose end tag came."""
    calls: list[ParsedCall] = []
    pos = section.find(CALL_BEGIN)
    while pos >= 0:
        head = pos + len(CALL_BEGIN)
        args = section.find(ARGS_BEGIN, head)
        if args < 0:
            break
        span = json_span(section, args + len(ARGS_BEGIN), _STOPS)
        if span is None:
            break
        start, end = span
        close = section.find(CALL_END, end)
        if close < 0 and not closed:
            break
        stop = len(section) if close < 0 else close + len(CALL_END)
        name = name_from_id(section[head:args])
        if name:
            arguments = normalise_arguments(section[start:end])
            calls.append(ParsedCall(name, arguments, section[pos:stop]))
        if close < 0:
            break
        pos = section.find(CALL_BEGIN, stop)
    return calls


class KimiK2Stream(RegionStream):
    """Incremental Kimi K2 parser (see `RegionStream`)."""

    format = FORMAT
    parsers = ("kimi_k2",)
    markers = (SECTION_BEGIN,)
    _PROSE_TAGS = TagSet(SECTION_BEGIN)
    _REGIONS = frozenset({SECTION_BEGIN})

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return JsonSectionScanner(body, SECTION_END, ARGS_BEGIN, _STOPS)

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall]:
        return calls_from_section(region, closed)
