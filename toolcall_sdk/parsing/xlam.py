"""xLAM format: the answer is a JSON value holding the calls.

    [{"name": "get_weather", "arguments": {"city": "Hanoi"}}, {"name": "get_time", ...}]
    {"thought": "", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Hanoi"}}]}

xLAM-2 writes a JSON array of call objects; xLAM-1 (and models prompted with its template)
an envelope object whose `"tool_calls"` array holds them, with an optional `"thought"`
string. A call object is `{"name": ..., "arguments": ...}` (or `"parameters"`) and nothing
else, or OpenAI's `{"id": ..., "type": "function", "function": {"name": ..., "arguments":
...}}`; a single call object counts too. The value must stand at the start of the text
(after blank space); more values may follow, separated by `;` or blank space (some
checkpoints write one object per call that way); text after them is kept. A value of any
other shape (ordinary JSON, an empty array, an envelope with other keys) is text. A value
the text ends inside whose opening reads like calls (`[{"name":`, `{"tool_calls":`,
`{"thought":`) is a call cut off (the output ran into `max_tokens`): no call, and dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import (
    DONE,
    JsonWalker,
    call_from_value,
    decode_at,
    loads,
    value_end,
)
from toolcall_sdk.parsing._markup import WS, PrefixMatcher, lit, skip
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["FORMAT", "XlamStream", "call_objects", "calls_in_value", "parse"]

FORMAT: Final = "xlam"

_BLANK: Final = re.compile(r"[ \t\r\n]*")
_SEPARATORS: Final = re.compile(r"[ \t\r\n;]*")
# The openings held back while they may still turn into calls.
_STEPS: Final = {
    "[": (lit("["), WS, lit("{"), WS, lit('"name"', '"id"', '"type"', '"function"'), WS, lit(":")),
    "{": (lit("{"), WS, lit('"tool_calls"', '"thought"', '"name"'), WS, lit(":")),
}
# The same openings as expressions, for whole texts (no partial matches to resume).
_PREFIX_RES: Final = {
    "[": re.compile(r'\[[ \t\r\n]*\{[ \t\r\n]*"(?:name|id|type|function)"[ \t\r\n]*:'),
    "{": re.compile(r'\{[ \t\r\n]*"(?:tool_calls|thought|name)"[ \t\r\n]*:'),
}
_CALL_KEYS: Final = (frozenset({"name", "arguments"}), frozenset({"name", "parameters"}))
_OPENAI_KEYS: Final = frozenset({"id", "type", "function"})
_ENVELOPE_KEYS: Final = frozenset({"tool_calls", "thought"})
_START, _SEP, _CAND, _REGION, _PROSE = range(5)
_UNREAD: Final[Any] = object()


def parse(text: str) -> ParseResult:
    """Read the xLAM calls at the start of `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without the JSON value that held them.
    """
    return XlamStream.parse_text(text)


def _call_object(value: Any) -> Mapping[str, Any] | None:
    """The `{"name", "arguments"}` object a call element stands for, or None."""
    if type(value) is not dict:
        return None
    if value.keys() in _CALL_KEYS:
        return value if type(value["name"]) is str and value["name"] else None
    if "function" in value and value.keys() <= _OPENAI_KEYS:
        if value.get("type", "function") != "function":
            return None
        inner = value["function"]
        if type(inner) is dict and inner.keys() in _CALL_KEYS:
            return inner if type(inner["name"]) is str and inner["name"] else None
    return None


def call_objects(value: Any) -> list[Mapping[str, Any]] | None:
    """The call objects a decoded value holds, or None when it is not made of calls.

    Args:
        value: A decoded JSON (or Python literal) value.

    Returns:
        One `{"name": ..., "arguments"|"parameters": ...}` mapping per call, for a call
        object, a non-empty list of call objects, or an envelope `{"tool_calls": [...]}`
        (with an optional `"thought"`); None for any other value.
    """
    if type(value) is dict and "tool_calls" in value:
        if not value.keys() <= _ENVELOPE_KEYS or not isinstance(value.get("thought", ""), str):
            return None
        value = value["tool_calls"]
    elif type(value) is dict:
        single = _call_object(value)
        return [single] if single is not None else None
    if type(value) is not list or not value:
        return None
    found = [_call_object(item) for item in value]
    if any(item is None for item in found):
        return None
    return [item for item in found if item is not None]


def _element_spans(text: str, start: int) -> list[tuple[int, int]]:
    """The spans of the elements of the valid JSON array at `text[start]`."""
    spans = []
    pos = skip(_BLANK, text, start + 1)
    while pos < len(text) and text[pos] != "]":
        found = decode_at(text, pos)  # in C: the elements of a value that decoded decode
        end = found[1] if found is not None else value_end(text, pos)
        spans.append((pos, end))
        pos = skip(_BLANK, text, end)
        if pos < len(text) and text[pos] == ",":
            pos = skip(_BLANK, text, pos + 1)
    return spans


def _calls_array(text: str, start: int) -> int:
    """Where the array of calls starts in the valid JSON value at `text[start]`: the value
    itself, or an envelope's `"tool_calls"` value."""
    if text[start] == "[":
        return start
    pos = skip(_BLANK, text, start + 1)
    while pos < len(text) and text[pos] == '"':
        key_end = value_end(text, pos)
        value_at = skip(_BLANK, text, skip(_BLANK, text, key_end) + 1)  # past the colon
        if loads(text[pos:key_end]) == "tool_calls":
            return value_at
        pos = skip(_BLANK, text, value_end(text, value_at))
        if pos < len(text) and text[pos] == ",":
            pos = skip(_BLANK, text, pos + 1)
    return -1


def calls_in_value(region: str, value: Any = _UNREAD) -> list[ParsedCall] | None:
    """The calls in a JSON value's text, or None when it is not valid JSON made of calls
    (see `call_objects`). Each call's `raw` is its element's source.

    Args:
        region: The value's text.
        value: The value, when already decoded from `region`.
    """
    if value is _UNREAD:
        try:
            value = loads(region)
        except (ValueError, RecursionError):
            return None
    objects = call_objects(value)
    if objects is None:
        return None
    if type(value) is dict and "tool_calls" not in value:  # a single call object
        return [call_from_value(objects[0], region, region)]
    array = _calls_array(region, 0)
    spans = _element_spans(region, array) if array >= 0 else []
    if len(spans) != len(objects):  # cannot happen for valid JSON; never guess a span
        spans = [(0, len(region))] * len(objects)
    return [
        call_from_value(obj, region[a:b], region[a:b])
        for obj, (a, b) in zip(objects, spans, strict=True)
    ]


class XlamStream(FormatStream):
    """Incremental xLAM parser (see `FormatStream`). Calls are known only when their JSON
    value closes, so each arrives as `ParsedCallStarted`, one `ArgumentsDelta`,
    `ParsedCallFinished`."""

    format = FORMAT
    # No marker: a bare JSON array; `parse_any` tries it first among the fallbacks.
    parsers = ("xlam",)
    markers = ()

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._state = _START
        self._mark = 0  # start of the text not yet released or dropped
        self._scan = 0  # where reading resumes
        self._cand = 0  # where the current value starts
        self._matcher: PrefixMatcher | None = None
        self._walker: JsonWalker | None = None

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        self._cand -= offset
        if self._matcher is not None:
            self._matcher.pos -= offset
        if self._walker is not None:
            self._walker.shift(offset)

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            if state in (_START, _SEP):
                i = skip(_BLANK if state == _START else _SEPARATORS, buf, self._scan)
                self._scan = i
                if state == _START:  # blank space before the first value is text
                    self._text(buf[self._mark : i])
                    self._mark = i
                if i == n and not final:
                    return self._mark
                steps = _STEPS.get(buf[i]) if i < n else None
                if steps is None:
                    self._state = _PROSE
                    continue
                self._cand = i
                # Made on first use: a whole text decides with one expression.
                self._matcher = None if final else PrefixMatcher(steps, i)
                self._state = _CAND
            elif state == _CAND:
                if self._matcher is None:
                    decided: bool | None = (
                        _PREFIX_RES[buf[self._cand]].match(buf, self._cand) is not None
                    )
                else:
                    decided = self._matcher.advance(buf, n)
                if decided is None and not final:
                    return self._mark
                self._matcher = None
                if decided:
                    self._walker = JsonWalker(self._cand)
                    self._state = _REGION
                else:
                    self._state = _PROSE
            elif state == _REGION:
                assert self._walker is not None
                value: Any = _UNREAD
                if final and self._walker.pos == self._cand:  # a whole text: decode in C
                    decoded = decode_at(buf, self._cand)
                    if decoded is not None:
                        value, self._walker.end = decoded
                if value is _UNREAD and self._walker.advance(buf, n) != DONE:
                    if not final:
                        return self._mark
                    self._walker = None
                    self._mark = n  # the text ended inside the calls: dropped
                    self._state = _PROSE
                    continue
                end = self._walker.end
                self._walker = None
                calls = calls_in_value(buf[self._cand : end], value)
                if calls is None:
                    self._state = _PROSE  # not calls after all: the value is text
                    continue
                for call in calls:  # separators before calls are markup
                    if self._emit:
                        self._start(call.name)
                        self._args(call.arguments)
                    self._finish(call)
                self._mark = self._scan = end
                self._state = _SEP
            else:  # _PROSE: everything after the values of calls is text
                self._text(buf[self._mark :])
                self._mark = n
                return n
