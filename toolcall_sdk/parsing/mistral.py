"""Mistral format: calls after a `[TOOL_CALLS]` marker.

    [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Hanoi"}}, {...}]
    [TOOL_CALLS]get_weather{"city": "Hanoi"}[TOOL_CALLS]get_time{}
    [TOOL_CALLS]get_weather[ARGS]{"city": "Hanoi"}
    [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Hanoi"}

The older tokenizers write a JSON array of call objects; the newer ones write the name and
then the arguments object, one `[TOOL_CALLS]` per call (some with `[ARGS]` in between, and
a `[CALL_ID]` before it). Text before, between and after is kept. A call whose JSON is
broken keeps its argument text verbatim (validation reports it). A name with no arguments
object after it is no call, and stays text; an object without a name in the array is no
call. A call the text ends inside (the output ran into `max_tokens`) is no call, and its
markup is dropped; an array cut in its second call keeps its first.
"""

from __future__ import annotations

import re
from typing import Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import (
    DONE,
    OBJECT,
    JsonWalker,
    call_from_json,
    call_from_value,
    decode_at,
    normalise_arguments,
)
from toolcall_sdk.parsing._markup import TagSet, skip
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["ARGS_TAG", "FORMAT", "TOOL_CALLS", "MistralStream", "parse"]

FORMAT: Final = "mistral"
TOOL_CALLS: Final = "[TOOL_CALLS]"
ARGS_TAG: Final = "[ARGS]"
CALL_ID_TAG: Final = "[CALL_ID]"
_MARKER: Final = TagSet(TOOL_CALLS)
_BLANK: Final = re.compile(r"[ \t\r\n]*")
_NAME: Final = re.compile(r"[A-Za-z0-9_.\-]*")
_ID: Final = re.compile(r"[A-Za-z0-9_\-]*")
(
    _PROSE,
    _AFTER,
    _NAMING,
    _AFTER_NAME,
    _ARGS_TAG,
    _AFTER_ARGS_TAG,
    _OBJECT,
    _ARRAY,
    _CALL_ID,
) = range(9)


def parse(text: str) -> ParseResult:
    """Read every Mistral call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without the `[TOOL_CALLS]` markup and the calls.
    """
    return MistralStream.parse_text(text)


class MistralStream(FormatStream):
    """Incremental Mistral parser (see `FormatStream`)."""

    format = FORMAT
    parsers = ("mistral",)
    markers = (TOOL_CALLS,)

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._state = _PROSE
        self._mark = 0  # start of the current marker, or of unreleased prose
        self._scan = 0  # where reading resumes
        self._name = ""
        self._name_at = 0  # where the name starts
        self._args_at = 0  # where the arguments object or the array starts
        self._walker: JsonWalker | None = None

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        self._name_at -= offset
        self._args_at -= offset
        self._sent -= offset
        if self._walker is not None:
            self._walker.shift(offset)

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            scan = self._scan
            if state == _PROSE:
                i = buf.find(TOOL_CALLS, scan)
                if i < 0:
                    hold = n if final else _MARKER.hold_from(buf, scan)
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : i])
                self._mark = i
                self._scan = i + len(TOOL_CALLS)
                self._state = _AFTER
            elif state in (_NAMING, _CALL_ID):
                i = skip(_NAME if state == _NAMING else _ID, buf, scan)
                self._scan = i
                if i == n and not final:
                    return self._mark
                if state == _NAMING:
                    self._name = buf[self._name_at : i]
                self._state = _AFTER_NAME
            elif state == _ARGS_TAG:  # `[ARGS]`, or `[CALL_ID]` and an id
                have = buf[scan : scan + len(CALL_ID_TAG)]
                if have.startswith(ARGS_TAG):
                    self._scan = scan + len(ARGS_TAG)
                    self._state = _AFTER_ARGS_TAG
                elif have == CALL_ID_TAG:
                    self._scan = scan + len(CALL_ID_TAG)
                    self._state = _CALL_ID
                elif not final and (ARGS_TAG.startswith(have) or CALL_ID_TAG.startswith(have)):
                    return self._mark
                else:
                    self._broken(buf, scan)
            elif state == _OBJECT:
                if not self._object(buf, final):
                    return self._mark
            elif state == _ARRAY:
                if not self._array(buf, final):
                    return self._mark
            else:  # _AFTER, _AFTER_NAME, _AFTER_ARGS_TAG: blank space, then what?
                i = skip(_BLANK, buf, scan)
                self._scan = i
                if i == n:
                    if not final:
                        return self._mark
                    if state == _AFTER:  # a marker and blank space: markup, no call
                        self._to_prose(n)
                    else:
                        self._broken(buf, n)
                    continue
                c = buf[i]
                if state == _AFTER:
                    if c == "[":
                        self._open(_ARRAY, i, key_depth=2)
                    elif skip(_NAME, buf, i) > i:
                        self._state = _NAMING
                        self._name_at = i
                    else:  # not a call after all: the marker goes, the rest is prose
                        self._to_prose(i)
                elif c == "{":
                    self._open(_OBJECT, i, key_depth=0)
                    self._start(self._name)
                elif c == "[" and state == _AFTER_NAME:
                    self._state = _ARGS_TAG
                else:
                    self._broken(buf, i)

    def _to_prose(self, at: int) -> None:
        self._state = _PROSE
        self._mark = self._scan = at
        self._walker = None

    def _open(self, state: int, at: int, key_depth: int) -> None:
        self._state = state
        self._walker = JsonWalker(at, key_depth=key_depth)
        self._args_at = self._sent = at
        self._args_begun = False

    def _broken(self, buf: str, at: int) -> None:
        """A name with no arguments object: no call. Its markup stays text, with the prose
        from `at`, unless the text ended right there (cut off after the name)."""
        if at < len(buf):
            self._text(buf[self._mark : at])
        self._to_prose(at)

    def _object(self, buf: str, final: bool) -> bool:
        """Read the arguments object of `name{...}`; False while it is still open."""
        walker = self._walker
        assert walker is not None
        done = walker.advance(buf, len(buf)) == DONE
        end = walker.end if done else len(buf)
        if self._emit and end > self._sent:
            self._args(buf[self._sent : end])
            self._sent = end
        if not done:
            if final:  # the text ended inside the arguments: no call
                self._to_prose(len(buf))
                return True
            return False
        arguments = normalise_arguments(buf[self._args_at : end])
        self._finish(ParsedCall(self._name, arguments, buf[self._mark : end]))
        self._to_prose(end)
        return True

    def _array(self, buf: str, final: bool) -> bool:
        """Read a JSON array of call objects; False while it is still open."""
        walker = self._walker
        assert walker is not None
        n = len(buf)
        if final and not self._emit and walker.pos == self._args_at and self._decode_array(buf):
            return True
        while True:
            result = walker.advance(buf, n)
            if result == OBJECT:
                start = walker.object_start
                if self._emit:
                    self._preview(walker, buf, walker.pos)
                text = buf[start : walker.pos]
                call = call_from_json(text, text)
                if call.name or self._pending:  # an object without a name is no call
                    self._finish(call)
                continue
            if self._emit and walker.depth >= 2 and walker.keyed:
                self._preview(walker, buf, n)
            if result == DONE:
                self._to_prose(walker.end)
                return True
            if not final:
                return False
            # The text ended inside the array: its complete calls stand, a cut one is none.
            self._to_prose(n)
            return True

    def _decode_array(self, buf: str) -> bool:
        """Whole-text fast path for a valid array; False (nothing done) to walk it instead."""
        calls: list[ParsedCall] = []
        pos = skip(_BLANK, buf, self._args_at + 1)
        if buf.startswith("]", pos):
            end = pos + 1
        else:
            while True:
                item = decode_at(buf, pos)
                if item is None:
                    return False
                value, stop = item
                if isinstance(value, dict):
                    text = buf[pos:stop]
                    call = call_from_value(value, text, text)
                    if call.name:
                        calls.append(call)
                pos = skip(_BLANK, buf, stop)
                if buf.startswith("]", pos):
                    end = pos + 1
                    break
                if not buf.startswith(",", pos):
                    return False
                pos = skip(_BLANK, buf, pos + 1)
        for call in calls:
            self._finish(call)
        self._to_prose(end)
        return True
