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

from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import JsonSectionStream
from toolcall_sdk.parsing._types import ParseResult

__all__ = ["CALLS_BEGIN", "CALLS_END", "FORMAT", "DeepSeekV3Stream", "parse"]

FORMAT: Final = "deepseek_v3"
CALLS_BEGIN: Final = "<｜tool▁calls▁begin｜>"
CALLS_END: Final = "<｜tool▁calls▁end｜>"
CALL_BEGIN: Final = "<｜tool▁call▁begin｜>"
CALL_END: Final = "<｜tool▁call▁end｜>"
SEP: Final = "<｜tool▁sep｜>"
_BLANK: Final = " \t\r\n"


def parse(text: str) -> ParseResult:
    """Read every DeepSeek V3 / V3.1 call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without the section.
    """
    return DeepSeekV3Stream.parse_text(text)


class DeepSeekV3Stream(JsonSectionStream):
    """Incremental DeepSeek V3 / V3.1 parser (see `JsonSectionStream`)."""

    format = FORMAT
    parsers = ("deepseek_v3", "deepseek_v31")
    markers = (CALLS_BEGIN,)
    _PROSE_TAGS = TagSet(CALLS_BEGIN)
    _REGIONS = frozenset({CALLS_BEGIN})
    SECTION_BEGIN, SECTION_END = CALLS_BEGIN, CALLS_END
    CALL_BEGIN, ARGS, CALL_END = CALL_BEGIN, SEP, CALL_END
    EMPTY_IS_TEXT = True

    @classmethod
    def _name(cls, section: str, head: int, args: int, start: int) -> str:
        label = section[head:args].strip(_BLANK)
        if label == "function":  # V3: the name is on the line after the separator
            label = section[args + len(SEP) : start].split("```", 1)[0].strip(_BLANK)
        return label if "\n" not in label else ""
