"""Qwen3-Coder / Qwen3.5+ XML format: one XML-like element per call, one per parameter.

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

Parameter values are bare text (see `toolcall_sdk.parsing._values`): one leading and one
trailing newline are dropped, then the parameter's schema types the value (pass `schemas`:
`"007"` stays a string where the schema says string, `True` is true where it says boolean,
`null` is null where null is allowed); without a schema a value that is valid JSON is read as
JSON and any other text stays a string.

The structure decides where things end, not the first closing tag: a value that starts on its
own line ends at a `</parameter>` that starts a line, so `</parameter>`, `</function>` or
`</tool_call>` written inside a value are part of it. A value whose `</parameter>` is missing
ends at the next `<parameter=` or `</function>` (at a line start, for a value on its own
line). The `<tool_call>` wrapper may be missing (a bare `<function=...>`; a stray
`</tool_call>` right after it belongs to it), and so may `</function>` inside a closed wrapper, or
`</tool_call>` after a closed function. A function the text ends inside (the output ran into
`max_tokens`) is no call. A `<tool_call>` that holds Hermes JSON instead is read as such.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk.parsing._json import DONE, JsonWalker, call_from_json, dumps
from toolcall_sdk.parsing._markup import TagSet, skip
from toolcall_sdk.parsing._regions import RegionStream, Scanner
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas, parameter_types, text_value

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
    "parse",
]

FORMAT: Final = "qwen3_xml"
WRAPPER_START: Final = "<tool_call>"
WRAPPER_END: Final = "</tool_call>"
FUNCTION_START: Final = "<function="
FUNCTION_END: Final = "</function>"
PARAMETER_START: Final = "<parameter="
PARAMETER_END: Final = "</parameter>"

_BLANK_RUN: Final = re.compile(r"[ \t\r\n]*")
_WRAPPER_END_TAG: Final = TagSet(WRAPPER_END)
# Where the scanner stands.
_WRAPPER, _JSON, _HEAD, _BODY, _PARAM, _VALUE_START, _VALUE, _DONE = range(8)
_IN_WRAPPER: Final = TagSet(FUNCTION_START, WRAPPER_END)
_IN_FUNCTION: Final = TagSet(PARAMETER_START, FUNCTION_END, WRAPPER_END)
_GT: Final = TagSet(">")
# A value's end: its closing tag, or the next parameter or the function's end where the
# closing tag was left out. For a value on its own line, only at a line start.
_INLINE_ENDS: Final = TagSet(PARAMETER_END, PARAMETER_START, FUNCTION_END, WRAPPER_END)
_LINE_ENDS: Final = TagSet(*("\n" + tag for tag in _INLINE_ENDS.tags))


def parse(text: str, *, schemas: Schemas | None = None) -> ParseResult:
    """Read every Qwen3 XML call in `text`.

    Args:
        text: Model output.
        schemas: Parameter schemas by tool name (see the module docstring).

    Returns:
        The calls, and the text without the call elements.
    """
    return Qwen3XmlStream.parse_text(text, schemas)


class _Function:
    __slots__ = ("done", "name", "named", "params", "raw", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.name = ""
        self.named = False  # the name's `>` came
        self.params: list[tuple[str, str]] = []
        self.raw = ""
        self.done = False


class _XmlScanner(Scanner):
    """Follows one `<tool_call>` (or bare `<function=`) element, recording its functions."""

    __slots__ = (
        "_at",
        "_bare",
        "_opened",
        "_param",
        "_state",
        "_tags",
        "_walker",
        "functions",
        "json",
        "pos",
    )

    def __init__(self, start: int, body: int, bare: bool) -> None:
        self._bare = bare
        self.functions: list[_Function] = []
        self.json = ""  # a Hermes JSON body, when the wrapper holds one
        self._walker: JsonWalker | None = None
        self._param = ""
        self._tags = _INLINE_ENDS
        self._opened = bare  # the first character of the body was read
        if bare:
            self.functions.append(_Function(start))
            self._state, self.pos, self._at = _HEAD, body, body
        else:
            self._state, self.pos, self._at = _WRAPPER, body, body

    def shift(self, offset: int) -> None:
        self.pos -= offset
        self._at -= offset
        for function in self.functions:
            function.start -= offset
        if self._walker is not None:
            self._walker.shift(offset)

    def _close_function(self, buf: str, end: int) -> None:
        function = self.functions[-1]
        function.raw = buf[function.start : end]
        function.done = True

    def advance(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            pos = self.pos
            if state == _WRAPPER:
                if not self._opened:  # the body's first character tells Hermes JSON
                    first = skip(_BLANK_RUN, buf, pos)
                    if first == n and not final:
                        return -1
                    self._opened = True
                    if first < n and buf[first] == "{":
                        self._walker = JsonWalker(first)
                        self._state, self._at = _JSON, first
                        continue
                i, tag = _IN_WRAPPER.find(buf, pos)
                if i < 0:
                    self.pos = n if final else _IN_WRAPPER.hold_from(buf, pos)
                    return -1
                self.pos = i + len(tag)
                if tag == WRAPPER_END:
                    return self.pos
                self.functions.append(_Function(i))
                self._state = _HEAD
                self._at = self.pos
            elif state == _JSON:
                walker = self._walker
                assert walker is not None
                if walker.advance(buf, n) != DONE:
                    return -1
                i = buf.find(WRAPPER_END, max(pos, walker.end))
                if i < 0:
                    # The JSON closed: at the end of the text it needs no end tag.
                    self.pos = _WRAPPER_END_TAG.hold_from(buf, max(pos, walker.end))
                    if final:
                        self.json = buf[self._at : self.pos]
                    return -1
                self.json = buf[self._at : i]
                self.pos = i + len(WRAPPER_END)
                return self.pos
            elif state in (_HEAD, _PARAM):
                i = buf.find(">", pos)
                if i < 0:
                    self.pos = n
                    return -1
                name = buf[self._at : i].strip()
                self.pos = i + 1
                if state == _HEAD:
                    self.functions[-1].name = name
                    self.functions[-1].named = True
                    self._state = _BODY
                else:
                    self._param = name
                    self._state, self._at = _VALUE_START, self.pos
            elif state == _BODY:
                i, tag = _IN_FUNCTION.find(buf, pos)
                if i < 0:
                    self.pos = n if final else _IN_FUNCTION.hold_from(buf, pos)
                    return -1
                if not self._end_tag(buf, i, tag):
                    return self.pos
            elif state == _VALUE_START:
                if pos == n:
                    return -1
                self._tags = _LINE_ENDS if buf[pos] == "\n" else _INLINE_ENDS
                self._state = _VALUE
            elif state == _VALUE:
                tags = self._tags
                i, tag = tags.find(buf, pos)
                if i < 0:
                    self.pos = n if final else tags.hold_from(buf, pos)
                    return -1
                if tag[0] == "\n":
                    i, tag = i + 1, tag[1:]
                self.functions[-1].params.append((self._param, buf[self._at : i]))
                if tag == PARAMETER_END:
                    self.pos = i + len(tag)
                    self._state = _BODY
                elif not self._end_tag(buf, i, tag):
                    return self.pos
            else:  # _DONE: a bare function closed; its stray `</tool_call>` may follow
                first = skip(_BLANK_RUN, buf, pos)
                have = buf[first : first + len(WRAPPER_END)]
                if have == WRAPPER_END:
                    return first + len(WRAPPER_END)
                if not final and WRAPPER_END.startswith(have):
                    return -1
                return pos

    def _end_tag(self, buf: str, i: int, tag: str) -> bool:
        """Read a tag met in a function's body; False once the region has ended."""
        self.pos = i + len(tag)
        if tag == PARAMETER_START:
            self._state, self._at = _PARAM, self.pos
            return True
        if tag == FUNCTION_END:
            self._close_function(buf, self.pos)
            self._state = _DONE if self._bare else _WRAPPER
            return True
        # `</tool_call>`: the wrapper (or, after a bare function, the stray closer) ends.
        self._close_function(buf, i)
        return False


class Qwen3XmlStream(RegionStream):
    """Incremental Qwen3 XML parser (see `RegionStream`).

    Argument previews are JSON built one parameter at a time (`{"city":"Hanoi"`, then
    `,"days":3`, then `}`), sent as each value ends.
    """

    format = FORMAT
    parsers = ("qwen3_coder", "qwen3_xml")
    markers = (FUNCTION_START,)
    _PROSE_TAGS = TagSet(WRAPPER_START, FUNCTION_START)
    _REGIONS = frozenset({WRAPPER_START, FUNCTION_START})

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._pv_next = 0  # the next function of the region to preview
        self._pv_open: _Function | None = None  # the function being previewed
        self._pv_sent = 0  # its parameters sent so far
        self._pv_kinds: Mapping[str, frozenset[str]] = {}

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        self._pv_next, self._pv_open = 0, None
        return _XmlScanner(start, body, bare=tag == FUNCTION_START)

    def _preview_region(self, buf: str) -> None:
        scanner = self._scanner
        assert isinstance(scanner, _XmlScanner)
        while True:
            function = self._pv_open
            if function is not None:
                params = function.params
                while self._pv_sent < len(params):
                    name, raw = params[self._pv_sent]
                    value = text_value(_unwrap(raw), self._pv_kinds.get(name))
                    lead = "," if self._pv_sent else "{"
                    self._args(lead + dumps(name) + ":" + dumps(value))
                    self._pv_sent += 1
                if not function.done:
                    return
                self._args("}" if params else "{}")
                self._pv_open = None
            if self._pv_next == len(scanner.functions):
                return
            function = scanner.functions[self._pv_next]
            if not function.named:
                return
            self._pv_next += 1
            if function.name:
                self._start(function.name)
                self._previewed += 1
                self._pv_open, self._pv_sent = function, 0
                self._pv_kinds = parameter_types(self._schemas, function.name)

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        scanner = self._scanner
        assert isinstance(scanner, _XmlScanner)
        if scanner.json:
            call = call_from_json(scanner.json, region)
            return [call] if call.name else None
        functions = [f for f in scanner.functions if f.done or (closed and f.name)]
        if closed and not functions:
            return None
        calls = []
        for function in functions:
            if not function.name:
                continue
            kinds = parameter_types(self._schemas, function.name)
            arguments: dict[str, Any] = {}
            for name, raw in function.params:
                arguments[name] = text_value(_unwrap(raw), kinds.get(name))
            source = region if len(scanner.functions) == 1 and closed else function.raw
            calls.append(ParsedCall(function.name, dumps(arguments), source or region))
        return calls


def _unwrap(raw: str) -> str:
    """A value less the one newline on each side that frames it."""
    if raw.startswith("\n"):
        raw = raw[1:]
    if raw.endswith("\n"):
        raw = raw[:-1]
    return raw
