"""DeepSeek V3 / R1 and V3.1 format: a section of calls between DeepSeek's own tokens.

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}
    <｜tool▁call▁end｜><｜tool▁calls▁end｜>

(the second on one line).
V3 and R1 write `function`, the separator, the name and the arguments in a fenced JSON
block; V3.1 writes the name, the separator and the JSON. Both read the same. The arguments
are followed as JSON, so DeepSeek's tokens or a fence inside a JSON string are part of it.
Text before and after the section is kept; text inside it but outside a call is markup.

A call whose JSON never closes is no call: a section the output ends inside keeps the calls
it completed. A section with no well-formed call stays text.
"""

from __future__ import annotations

from typing import Final

from toolcall_sdk.parsing._json import normalise_arguments
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import JsonSectionScanner, RegionStream, Scanner, json_span
from toolcall_sdk.parsing._types import ParsedCall, ParseResult

__all__ = ["CALLS_BEGIN", "CALLS_END", "FORMAT", "DeepSeekV3Stream", "parse"]

FORMAT: Final = "deepseek_v3"
CALLS_BEGIN: Final = "<｜tool▁calls▁begin｜>"
CALLS_END: Final = "<｜tool▁calls▁end｜>"
CALL_BEGIN: Final = "<｜tool▁call▁begin｜>"
CALL_END: Final = "<｜tool▁call▁end｜>"
SEP: Final = "<｜tool▁sep｜>"
_STOPS: Final = (CALL_END, CALL_BEGIN, CALLS_END)
_BLANK: Final = " \t\r\n"


def parse(text: str) -> ParseResult:
    """Read every DeepSeek V3 / V3.1 call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without the section.
    """
    return DeepSeekV3Stream.parse_text(text)


def calls_from_section(section: str, closed: bool = True) -> list[ParsedCall]:
    """The well-formed calls of a section, in order; in a section the text ended inside
    (`closed` false), only those whose end tag came."""
    calls: list[ParsedCall] = []
    pos = section.find(CALL_BEGIN)
    while pos >= 0:
        head = pos + len(CALL_BEGIN)
        sep = section.find(SEP, head)
        if sep < 0:
            break
        span = json_span(section, sep + len(SEP), _STOPS)
        if span is None:
            break
        start, end = span
        label = section[head:sep].strip(_BLANK)
        if label == "function":  # V3: the name is on the line after the separator
            name = section[sep + len(SEP) : start].split("```", 1)[0].strip(_BLANK)
        else:
            name = label
        close = section.find(CALL_END, end)
        if close < 0 and not closed:
            break
        stop = len(section) if close < 0 else close + len(CALL_END)
        if name and "\n" not in name:
            arguments = normalise_arguments(section[start:end])
            calls.append(ParsedCall(name, arguments, section[pos:stop]))
        if close < 0:
            break
        pos = section.find(CALL_BEGIN, stop)
    return calls


class DeepSeekV3Stream(RegionStream):
    """Incremental DeepSeek V3 / V3.1 parser (see `RegionStream`)."""

    format = FORMAT
    parsers = ("deepseek_v3", "deepseek_v31")
    markers = (CALLS_BEGIN,)
    _PROSE_TAGS = TagSet(CALLS_BEGIN)
    _REGIONS = frozenset({CALLS_BEGIN})

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return JsonSectionScanner(body, CALLS_END, SEP, _STOPS)

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        calls = calls_from_section(region, closed)
        return None if closed and not calls else calls
