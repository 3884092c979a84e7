"""Hermes format (Hermes 2/3, Qwen2.5, Qwen3, QwQ): JSON calls between `<tool_call>` tags.

    I'll look that up.<tool_call>
    {"name": "get_weather", "arguments": {"city": "Hanoi"}}
    </tool_call>

Several calls may follow one another, with text around them. `"parameters"` is read like
`"arguments"`.

Where a call ends: a body that opens with `{` is followed as JSON, and the call ends at the
first `</tool_call>` after the JSON value closes, so a `</tool_call>` inside a string
argument is part of the argument. A body whose JSON never closes ends at its first
`</tool_call>`; any other body at its first `</tool_call>` too.

At the end of the text, a call whose JSON value closed needs no `</tool_call>` (the model
stopped right after it). A call cut before that (the output ran into `max_tokens`) is no
call: it is dropped, text and all, since the model never finished it.

A call whose JSON is broken still gives a call when its name can be read: the name from the
text, the arguments verbatim (see `ParsedCall`), so validation reports them. A body with no
readable name (`<tool_call>not json</tool_call>`) is no call: its source stays in the text.
"""

from __future__ import annotations

import re
from typing import Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import JsonWalker, call_from_json, call_from_value, loads
from toolcall_sdk.parsing._markup import TagSet, skip
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["END", "FORMAT", "START", "HermesStream", "parse"]

FORMAT: Final = "hermes"
START: Final = "<tool_call>"
END: Final = "</tool_call>"
_START_TAGS: Final = TagSet(START)
_END_TAGS: Final = TagSet(END)
_BLANK: Final = re.compile(r"[ \t\r\n]*")


def parse(text: str) -> ParseResult:
    """Read every Hermes call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text with each `<tool_call>...</tool_call>` span removed.
    """
    return HermesStream.parse_text(text)


def unterminated_body(text: str) -> str:
    """The body of a call whose end tag never came, less any partial end tag at its end."""
    return text[: _END_TAGS.hold_from(text)]


# What a call's body holds, once its first non-blank character is known.
_UNSEEN, _JSON, _OTHER = range(3)


class HermesStream(FormatStream):
    """Incremental Hermes parser (see `FormatStream`)."""

    format = FORMAT
    # `<tool_call>` is Qwen3 XML's and GLM's wrapper too: what follows it decides (_auto).
    parsers = ("hermes",)
    markers = (START,)

    @classmethod
    def parse_text(cls, text: str, schemas: Schemas | None = None) -> ParseResult:
        """`_process` over a whole text, fast when every body is valid JSON.

        A body that is valid JSON up to the first `</tool_call>` ends there under the
        engine's rules too (the JSON value closed before it, and it is the first end tag
        after that), so such calls need only `str.find` and one decode; any other body
        sends the whole text through the engine. The property tests hold both to the
        same results.
        """
        calls: list[ParsedCall] = []
        pieces: list[str] = []
        pos = 0
        while True:
            i = text.find(START, pos)
            if i < 0:
                pieces.append(text[pos:])
                break
            body = i + len(START)
            j = text.find(END, body)
            if j < 0:
                return cls._parse_slowly(text)
            source = text[body:j]
            try:
                value = loads(source)
            except (ValueError, RecursionError):
                return cls._parse_slowly(text)
            end = j + len(END)
            call = call_from_value(value, source, text[i:end])
            if not call.name:  # no readable name: no call (see `_deliver`)
                return cls._parse_slowly(text)
            pieces.append(text[pos:i])
            calls.append(call)
            pos = end
        return ParseResult(calls, "".join(pieces), FORMAT if calls else None)

    @classmethod
    def _parse_slowly(cls, text: str) -> ParseResult:
        engine = cls(events=False)
        engine.run_whole(text)
        return engine.result()

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._mark = 0  # where unreleased text starts, or the current call's `<tool_call>`
        self._body = -1  # where the current call's body starts, -1 outside calls
        self._scan = 0  # where the search for the end tag resumes
        self._shape = _UNSEEN
        self._walker: JsonWalker | None = None

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            if self._body < 0:
                pos = self._mark
                i = buf.find(START, pos)
                if i < 0:
                    hold = n if final else _START_TAGS.hold_from(buf, pos)
                    self._text(buf[pos:hold])
                    self._mark = hold
                    return hold
                self._text(buf[pos:i])
                self._mark = i
                self._body = self._scan = i + len(START)
                self._shape = _UNSEEN
                self._walker = None
                continue
            if self._shape == _UNSEEN:
                first = skip(_BLANK, buf, self._body)
                if first == n:
                    if final:
                        return self._drop(n)
                    return self._mark
                if buf[first] == "{":
                    self._shape = _JSON
                    self._walker = JsonWalker(first, key_depth=1)
                    self._sent = first
                    self._args_begun = False
                else:
                    self._shape = _OTHER
            walker = self._walker
            if walker is not None and walker.end < 0:
                walker.advance(buf, n)
                if self._emit:
                    self._preview(walker, buf, n)
                if walker.end < 0:
                    if not final:
                        return self._mark
                    # The JSON never closed: its first end tag, if any, ends the call.
                    j = buf.find(END, self._body)
                    if j < 0:
                        return self._drop(n)
                    self._close(buf, j)
                    continue
                self._scan = max(self._scan, walker.end)
            j = buf.find(END, self._scan)
            if j >= 0:
                self._close(buf, j)
                continue
            if not final:
                self._scan = _END_TAGS.hold_from(buf, self._scan)
                return self._mark
            if walker is None:  # not JSON, and no end tag: cut off
                return self._drop(n)
            raw = buf[self._mark :]
            self._deliver(call_from_json(unterminated_body(buf[self._body :]), raw), raw)
            self._body = -1
            self._mark = n
            return n

    def _close(self, buf: str, j: int) -> None:
        end = j + len(END)
        raw = buf[self._mark : end]
        self._deliver(call_from_json(buf[self._body : j], raw), raw)
        self._mark = end
        self._body = -1

    def _deliver(self, call: ParsedCall, raw: str) -> None:
        """A finished call; with no readable name (and none announced) its source is text."""
        if call.name or self._pending:
            self._finish(call)
        else:
            self._text(raw)

    def _drop(self, n: int) -> int:
        """The text ended inside a call the model never finished: no call, no text."""
        self._body = -1
        self._mark = n
        self._walker = None
        return n

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._body -= offset
        self._scan -= offset
        self._sent -= offset
        if self._walker is not None:
            self._walker.shift(offset)
