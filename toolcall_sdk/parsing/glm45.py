"""GLM format (GLM-4.5, 4.6, 4.7, 5.x): a name, then key/value pairs in tags.

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

GLM-4.5 puts each piece on its own line; GLM-4.7 and later write them with nothing in
between (`<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>
</tool_call>`); both read the same. Values are bare text, kept exactly (blank space inside
`<arg_value>` is data); the parameter's schema types them (see
`toolcall_sdk.parsing._values`: pass `schemas`, and `3` stays a string where the schema
says string).

`</tool_call>` inside a value is part of it (a value ends at its `</arg_value>`); a value
whose `</arg_value>` never comes ends at the first `</tool_call>` after it. A call the text
ends inside is no call. A `<tool_call>` whose name is not a plain name (Hermes JSON, prose)
is no call either and stays text.
"""

from __future__ import annotations

import re
from typing import Any, Final

from toolcall_sdk.parsing._json import dumps
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import RegionStream, Scanner, ValueScanner
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas, parameter_types, text_value

__all__ = ["FORMAT", "START", "Glm45Stream", "parse"]

FORMAT: Final = "glm45"
START: Final = "<tool_call>"
END: Final = "</tool_call>"
KEY_START: Final = "<arg_key>"
KEY_END: Final = "</arg_key>"
VALUE_START: Final = "<arg_value>"
VALUE_END: Final = "</arg_value>"
_NAME: Final = re.compile(r"[A-Za-z0-9_.:/\-]+")
_BLANK: Final = " \t\r\n"


def parse(text: str, *, schemas: Schemas | None = None) -> ParseResult:
    """Read every GLM call in `text`.

    Args:
        text: Model output.
        schemas: Parameter schemas by tool name (types the bare-text values).

    Returns:
        The calls, and the text without them.
    """
    return Glm45Stream.parse_text(text, schemas)


def call_from_body(body: str, raw: str, schemas: Schemas | None) -> ParsedCall | None:
    """Read the text between `<tool_call>` and `</tool_call>`; None when it is not a call."""
    first = body.find(KEY_START)
    name = (body if first < 0 else body[:first]).strip(_BLANK)
    if not _NAME.fullmatch(name):
        return None
    kinds = parameter_types(schemas, name)
    arguments: dict[str, Any] = {}
    pos = first
    while pos >= 0:
        key_end = body.find(KEY_END, pos)
        if key_end < 0:
            return None
        key = body[pos + len(KEY_START) : key_end].strip(_BLANK)
        value_at = body.find(VALUE_START, key_end)
        if value_at < 0 or body[key_end + len(KEY_END) : value_at].strip(_BLANK):
            return None
        value_at += len(VALUE_START)
        value_end = body.find(VALUE_END, value_at)
        stop = len(body) if value_end < 0 else value_end
        arguments[key] = text_value(body[value_at:stop], kinds.get(key))
        if value_end < 0:
            break
        pos = body.find(KEY_START, value_end)
        if pos < 0 and body[value_end + len(VALUE_END) :].strip(_BLANK):
            return None
    return ParsedCall(name, dumps(arguments), raw)


class Glm45Stream(RegionStream):
    """Incremental GLM parser (see `RegionStream`)."""

    format = FORMAT
    # No marker of its own: after `<tool_call>` a name (not `{` or `<`) says GLM.
    parsers = ("glm45", "glm47")
    markers = ()
    _PROSE_TAGS = TagSet(START)
    _REGIONS = frozenset({START})

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return ValueScanner(body, END, {VALUE_START: VALUE_END}, fallback=True)

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        if not closed:
            return []
        body = region[len(START) : -len(END)]
        call = call_from_body(body, region, self._schemas)
        return None if call is None else [call]
