"""DeepSeek V3.2 / V4 / V4.1 format ("DSML"): calls as XML-like elements.

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

V3.2 names the section `function_calls`, V4 `tool_calls`, V4.1 `calls` with a space after the
`｜DSML｜` token; all read the same. A parameter with `string="true"` is the string written,
unescaped; with `string="false"` it is JSON (`3`, `null`, `{"a": 1}`); without the attribute
the parameter's schema types it. A value ends at its closing tag, so DSML tags written inside
a value are text. `<｜DSML｜invoke name="f"/>` is a call without arguments.

Text before and after the section is kept. A call the output ends inside is no call (a
section cut in its second call keeps its first); a section without a well-formed call stays
text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import ElementSectionStream, Scanner, ValueScanner
from toolcall_sdk.parsing._types import ParseResult
from toolcall_sdk.parsing._values import Schemas, text_value

__all__ = ["FORMAT", "SECTIONS", "DeepSeekV32Stream", "parse"]

FORMAT: Final = "deepseek_v32"
_DSML: Final = "｜DSML｜"
SECTIONS: Final = tuple(
    f"<{_DSML}{space}{name}>"
    for name in ("function_calls", "tool_calls", "calls")
    for space in ("", " ")
)
_SECTION_ENDS: Final = {opener: "</" + opener[1:] for opener in SECTIONS}
_VALUES: Final = {f"<{_DSML}{space}parameter": f"</{_DSML}{space}parameter>" for space in ("", " ")}
_INVOKE: Final = re.compile(rf'<{_DSML} ?invoke\s+name="([^"]*)"\s*(/?)>')
_INVOKE_END: Final = re.compile(rf"</{_DSML} ?invoke>")
_PARAMETER: Final = re.compile(rf'<{_DSML} ?parameter\s+name="([^"]*)"((?:\s+[\w-]+="[^"]*")*)\s*>')
_PARAMETER_END: Final = re.compile(rf"</{_DSML} ?parameter>")
_STRING: Final = re.compile(r'\bstring="(true|false)"')
_BLANK: Final = " \t\r\n"


def parse(text: str, *, schemas: Schemas | None = None) -> ParseResult:
    """Read every DSML call in `text`.

    Args:
        text: Model output.
        schemas: Parameter schemas by tool name (types values without a `string` attribute).

    Returns:
        The calls, and the text without the section.
    """
    return DeepSeekV32Stream.parse_text(text, schemas)


class DeepSeekV32Stream(ElementSectionStream):
    """Incremental DSML parser (see `ElementSectionStream`)."""

    format = FORMAT
    parsers = ("deepseek_v32", "deepseek_v4", "deepseek_v41")
    markers = SECTIONS
    _PROSE_TAGS = TagSet(*SECTIONS)
    _REGIONS = frozenset(SECTIONS)

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return ValueScanner(body, _SECTION_ENDS[tag], _VALUES)

    _CALL = _INVOKE
    _CALL_END = _INVOKE_END
    _ARGUMENT = _PARAMETER
    _ARGUMENT_END = _PARAMETER_END
    _STRAY_TEXT_STOPS = True

    @classmethod
    def _call_name(cls, call: re.Match[str]) -> str:
        return call.group(1)

    @classmethod
    def _empty(cls, call: re.Match[str]) -> bool:
        return bool(call.group(2))  # <｜DSML｜invoke name="f"/>

    @classmethod
    def _argument(
        cls, argument: re.Match[str], raw: str, kinds: Mapping[str, frozenset[str]]
    ) -> tuple[str, Any]:
        string = _STRING.search(argument.group(2))
        key = argument.group(1)
        if string is not None and string.group(1) == "true":
            return key, raw
        return key, text_value(raw, None if string else kinds.get(key))
