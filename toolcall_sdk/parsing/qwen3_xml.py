"""Qwen3-Coder XML format: one XML-like element per call, one per parameter.

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Hanoi
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

The `<tool_call>` wrapper may be missing. Parameter values are text: one leading and one
trailing newline are dropped, then the value is JSON-decoded when it can be (`3`, `true`,
`{"a": 1}`) and kept as a string otherwise. Where the tool's parameter schema says a
parameter is a string, pass `schemas` and the value stays a string (`"007"`, `"true"`).
A `<tool_call>` that holds JSON instead (`{"name": ..., "arguments": ...}`, as the Hermes
format writes it) is read as such. Missing closing tags at the end of the text are tolerated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import call_from_json, dumps, loads
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._types import ParsedCall, ParseResult

__all__ = [
    "FORMAT",
    "FUNCTION_END",
    "FUNCTION_START",
    "PARAMETER_END",
    "PARAMETER_START",
    "WRAPPER_END",
    "WRAPPER_START",
    "Qwen3XmlStream",
    "Schemas",
    "calls_from_wrapper",
    "parse",
]

FORMAT: Final = "qwen3_xml"
WRAPPER_START: Final = "<tool_call>"
WRAPPER_END: Final = "</tool_call>"
FUNCTION_START: Final = "<function="
FUNCTION_END: Final = "</function>"
PARAMETER_START: Final = "<parameter="
PARAMETER_END: Final = "</parameter>"

Schemas = Mapping[str, Mapping[str, Any]]
"""Tool name → the JSON schema of its parameters (`{"type": "object", "properties": ...}`)."""

_PROSE_TAGS: Final = TagSet(WRAPPER_START, FUNCTION_START)
_WRAPPER_END_TAG: Final = TagSet(WRAPPER_END)
_FUNCTION_END_TAG: Final = TagSet(FUNCTION_END)
_CLOSERS: Final = TagSet(PARAMETER_END, FUNCTION_END, WRAPPER_END)
_FLOAT_DIGITS: Final = 308  # a decimal number with more digits may exceed the largest float
_BODY_TAGS: Final = TagSet(PARAMETER_START, FUNCTION_END)
_VALUE_ENDS: Final = TagSet(PARAMETER_END, PARAMETER_START, FUNCTION_END)
# The characters a JSON value can start with: any other value is text, known without the
# cost of a failed decode.
_JSON_STARTS: Final = frozenset('{["-0123456789tfn')
_PROSE, _WRAPPER, _FUNCTION = range(3)
# Preview states.
_SEEK, _NAME, _BODY, _PARAM_NAME, _VALUE, _IDLE = range(6)


def parse(text: str, *, schemas: Schemas | None = None) -> ParseResult:
    """Read every Qwen3-Coder call in `text`.

    Args:
        text: Model output.
        schemas: Parameter schemas by tool name; parameters typed `string` there are not
            JSON-decoded.

    Returns:
        The calls, and the text without the call elements.
    """
    engine = Qwen3XmlStream(events=False, schemas=schemas)
    engine.run_whole(text)
    return engine.result()


def string_parameters(schemas: Schemas | None, name: str) -> frozenset[str]:
    """The parameters of tool `name` that its schema types as strings (maybe nullable)."""
    schema = (schemas or {}).get(name)
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return frozenset()
    return frozenset(key for key, value in properties.items() if _wants_string(value))


def _wants_string(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "string":
        return True
    if isinstance(kind, list):
        return "string" in kind and all(k in ("string", "null") for k in kind)
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        kinds = [b.get("type") for b in branches if isinstance(b, Mapping)]
        return "string" in kinds and all(k in ("string", "null") for k in kinds)
    return False


def _value(raw: str, keep_string: bool) -> Any:
    if raw.startswith("\n"):
        raw = raw[1:]
    if raw.endswith("\n"):
        raw = raw[:-1]
    if keep_string or raw.lstrip(" \t\n\r")[:1] not in _JSON_STARTS:
        return raw
    try:
        value = loads(raw)
    except (ValueError, RecursionError):
        return raw
    # A number too large for a float decodes to infinity, which has no JSON text: such a
    # value stays the model's text. Only an exponent or 309 digits can get that large
    # (`true` and `false` hold an `e` too, and are always fine).
    if (
        ("e" in raw or "E" in raw or len(raw) > _FLOAT_DIGITS)
        and type(value) is not bool
        and not _has_json_text(value)
    ):
        return raw
    return value


def _has_json_text(value: Any) -> bool:
    try:
        dumps(value)
    except ValueError:
        return False
    return True


def _parameters(text: str, pos: int, end: int, strings: frozenset[str]) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    start = text.find(PARAMETER_START, pos, end)
    while start >= 0:
        gt = text.find(">", start + len(PARAMETER_START), end)
        if gt < 0:
            break
        name = text[start + len(PARAMETER_START) : gt].strip()
        value_at = gt + 1
        close = text.find(PARAMETER_END, value_at, end)
        following = text.find(PARAMETER_START, value_at, close if close >= 0 else end)
        if following >= 0:  # no closing tag before the next parameter
            value_end = after = following
        elif close >= 0:
            value_end, after = close, close + len(PARAMETER_END)
        else:  # the text ended inside the value
            value_end = after = end
            if end == len(text):
                value_end = _CLOSERS.hold_from(text, value_at)
        arguments[name] = _value(text[value_at:value_end], name in strings)
        start = text.find(PARAMETER_START, after, end)
    return arguments


def call_from_function(text: str, raw: str, schemas: Schemas | None = None) -> ParsedCall:
    """Read one `<function=name>...</function>` element (the end tag may be missing)."""
    gt = text.find(">", len(FUNCTION_START))
    if gt < 0:
        return ParsedCall(text[len(FUNCTION_START) :].strip(), "", raw)
    name = text[len(FUNCTION_START) : gt].strip()
    end = text.find(FUNCTION_END, gt)
    strings = string_parameters(schemas, name)
    arguments = _parameters(text, gt + 1, len(text) if end < 0 else end, strings)
    return ParsedCall(name, dumps(arguments), raw)


def calls_from_wrapper(body: str, raw: str, schemas: Schemas | None = None) -> list[ParsedCall]:
    """Read the body of one `<tool_call>`: its functions, or a Hermes JSON call.

    Args:
        body: The text between `<tool_call>` and `</tool_call>`.
        raw: The whole element, recorded on the call when it holds one function.
        schemas: See `parse`.
    """
    start = body.find(FUNCTION_START)
    if start < 0:
        return [call_from_json(body, raw)]
    functions = []
    while start >= 0:
        close = body.find(FUNCTION_END, start)
        end = len(body) if close < 0 else close + len(FUNCTION_END)
        functions.append(body[start:end])
        start = body.find(FUNCTION_START, end)
    if len(functions) == 1:
        return [call_from_function(functions[0], raw, schemas)]
    return [call_from_function(f, f, schemas) for f in functions]


class Qwen3XmlStream(FormatStream):
    """Incremental Qwen3-Coder parser (see `FormatStream`).

    Argument previews are JSON built one parameter at a time (`{"city":"Hanoi"`, then
    `,"days":3`, then `}`), sent as each `</parameter>` arrives.
    """

    format = FORMAT

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events)
        self._schemas = schemas
        self._state = _PROSE
        self._mark = 0  # start of unreleased prose, or of the current element
        self._scan = 0  # where the search for the end tag resumes
        self._body = 0  # where the wrapper's body starts
        self._pv = _IDLE  # preview state
        self._pv_pos = 0  # where the preview resumes
        self._pv_at = 0  # start of the name or value being read
        self._pv_param = ""
        self._pv_count = 0  # parameters sent for the current function
        self._pv_strings: frozenset[str] = frozenset()

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        self._body -= offset
        self._pv_pos -= offset
        self._pv_at -= offset

    def _process(self, buf: str, final: bool) -> int:
        n = len(buf)
        while True:
            state = self._state
            if state == _PROSE:
                i, tag = _PROSE_TAGS.find(buf, self._scan)
                if i < 0:
                    hold = n if final else _PROSE_TAGS.hold_from(buf, self._scan)
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : i])
                self._mark = i
                self._scan = self._pv_pos = i + len(tag)
                if tag == WRAPPER_START:
                    self._state, self._body, self._pv = _WRAPPER, self._scan, _SEEK
                else:
                    self._state, self._pv, self._pv_at = _FUNCTION, _NAME, self._scan
                continue
            end_tag, end_tags = (
                (WRAPPER_END, _WRAPPER_END_TAG)
                if state == _WRAPPER
                else (FUNCTION_END, _FUNCTION_END_TAG)
            )
            j = buf.find(end_tag, self._scan)
            if j < 0 and not final:
                self._scan = end_tags.hold_from(buf, self._scan)
                if self._emit:
                    self._preview_xml(buf, self._scan)
                return self._mark
            if j < 0:
                end = n
                inner_end = end_tags.hold_from(buf, self._scan)
            else:
                end = j + len(end_tag)
                inner_end = j
                if self._emit:
                    self._preview_xml(buf, j)
            raw = buf[self._mark : end]
            if state == _WRAPPER:
                calls = calls_from_wrapper(buf[self._body : inner_end], raw, self._schemas)
            else:
                function = buf[self._mark : inner_end] + (end_tag if j >= 0 else "")
                calls = [call_from_function(function, raw, self._schemas)]
            if self._emit and self._pv in (_BODY, _PARAM_NAME, _VALUE):
                self._args("}" if self._pv_count else "{}")
            for call in calls:
                self._finish(call)
            self._state = _PROSE
            self._pv = _IDLE
            self._mark = self._scan = end

    def _preview_xml(self, buf: str, limit: int) -> None:
        """Follow the element up to `limit`: start calls, send parameters as they complete."""
        pos = self._pv_pos
        while True:
            pv = self._pv
            if pv == _SEEK:
                i = buf.find(FUNCTION_START, pos, limit)
                if i < 0:
                    pos = max(pos, limit - len(FUNCTION_START) + 1)
                    break
                pos = self._pv_at = i + len(FUNCTION_START)
                self._pv = _NAME
            elif pv in (_NAME, _PARAM_NAME):
                i = buf.find(">", pos, limit)
                if i < 0:
                    pos = limit
                    break
                name = buf[self._pv_at : i].strip()
                pos = i + 1
                if pv == _NAME:
                    self._start(name)
                    self._pv_count = 0
                    self._pv_strings = string_parameters(self._schemas, name)
                    self._pv = _BODY
                else:
                    self._pv_param = name
                    self._pv_at = pos
                    self._pv = _VALUE
            elif pv == _BODY:
                i, tag = _BODY_TAGS.find(buf, pos, limit)
                if i < 0:
                    pos = max(pos, limit - len(PARAMETER_START) + 1)
                    break
                pos = i + len(tag)
                if tag == PARAMETER_START:
                    self._pv_at = pos
                    self._pv = _PARAM_NAME
                else:
                    self._args("}" if self._pv_count else "{}")
                    self._pv = _SEEK if self._state == _WRAPPER else _IDLE
            elif pv == _VALUE:
                # A value ends at its closing tag, or where the next parameter or the
                # function's end shows the closing tag was left out (as `parse` reads it).
                i, tag = _VALUE_ENDS.find(buf, pos, limit)
                if i < 0:
                    pos = max(pos, limit - len(PARAMETER_END) + 1)
                    break
                name = self._pv_param
                value = _value(buf[self._pv_at : i], name in self._pv_strings)
                self._args(("," if self._pv_count else "{") + dumps(name) + ":" + dumps(value))
                self._pv_count += 1
                pos = i + len(tag)
                if tag == PARAMETER_START:
                    self._pv_at = pos
                    self._pv = _PARAM_NAME
                elif tag == FUNCTION_END:
                    self._args("}")
                    self._pv = _SEEK if self._state == _WRAPPER else _IDLE
                else:
                    self._pv = _BODY
            else:  # _IDLE
                break
        self._pv_pos = pos
