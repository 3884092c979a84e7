"""Hermes format (Hermes 2/3, Qwen2.5, Qwen3, QwQ): JSON calls between `<tool_call>` tags.

    I'll look that up.<tool_call>
    {"name": "get_weather", "arguments": {"city": "Hanoi"}}
    </tool_call>

Several calls may follow one another, with text around them. `"parameters"` is read like
`"arguments"`. A final `</tool_call>` may be missing at the end of the text (the model
stopped right after the JSON). A body that is not valid JSON still gives a call, with the
name read from the text and the arguments kept verbatim (see `ParsedCall`).
"""

from __future__ import annotations

from typing import Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import JsonWalker, call_from_json
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._types import ParsedCall, ParseResult

__all__ = ["END", "FORMAT", "START", "HermesStream", "parse"]

FORMAT: Final = "hermes"
START: Final = "<tool_call>"
END: Final = "</tool_call>"
_START_TAGS: Final = TagSet(START)
_END_TAGS: Final = TagSet(END)


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


class HermesStream(FormatStream):
    """Incremental Hermes parser (see `FormatStream`)."""

    format = FORMAT

    @classmethod
    def parse_text(cls, text: str) -> ParseResult:
        """`_process` over a whole text, as one loop without the engine's state.

        With the end of the text known, `_process` only ever looks for the next tag with
        `str.find`; this is that search alone, so both read a text identically (the
        property tests hold them to it) and `parse()` skips the per-text setup.
        """
        calls: list[ParsedCall] = []
        pieces: list[str] = []
        pos = 0
        while True:
            i = text.find(START, pos)
            if i < 0:
                pieces.append(text[pos:])
                break
            pieces.append(text[pos:i])
            body = i + len(START)
            j = text.find(END, body)
            if j < 0:
                calls.append(call_from_json(unterminated_body(text[body:]), text[i:]))
                break
            pos = j + len(END)
            calls.append(call_from_json(text[body:j], text[i:pos]))
        return ParseResult(calls, "".join(pieces), FORMAT if calls else None)

    def __init__(self, *, events: bool = True) -> None:
        super().__init__(events=events)
        self._mark = 0  # where unreleased text starts, outside calls
        self._body = -1  # where the current call's body starts, -1 outside calls
        self._scan = 0  # where the search for the end tag resumes
        self._walker: JsonWalker | None = None
        self._brace = 0  # where the search for the body's "{" resumes

    def _process(self, buf: str, final: bool) -> int:
        while True:
            if self._body < 0:
                pos = self._mark
                i = buf.find(START, pos)
                if i < 0:
                    hold = len(buf) if final else _START_TAGS.hold_from(buf, pos)
                    self._text(buf[pos:hold])
                    self._mark = hold
                    return hold
                self._text(buf[pos:i])
                self._open(i + len(START))
                continue
            j = buf.find(END, self._scan)
            if j < 0:
                if final:
                    body = buf[self._body :]
                    raw = buf[self._body - len(START) :]
                    self._finish(call_from_json(unterminated_body(body), raw))
                    self._body = -1
                    self._mark = len(buf)
                    return len(buf)
                self._scan = _END_TAGS.hold_from(buf, self._scan)
                if self._emit:
                    self._preview_body(buf, self._scan)
                return self._body - len(START)
            if self._emit:
                self._preview_body(buf, j)
            end = j + len(END)
            self._finish(call_from_json(buf[self._body : j], buf[self._body - len(START) : end]))
            self._mark = end
            self._body = -1

    def _open(self, at: int) -> None:
        self._body = self._scan = self._brace = self._sent = at
        self._walker = None

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._body -= offset
        self._scan -= offset
        self._brace -= offset
        self._sent -= offset
        if self._walker is not None:
            self._walker.shift(offset)

    def _preview_body(self, buf: str, limit: int) -> None:
        walker = self._walker
        if walker is None:
            brace = buf.find("{", self._brace, limit)
            if brace < 0:
                self._brace = max(self._brace, limit)
                return
            walker = self._walker = JsonWalker(brace, key_depth=1)
            self._sent = brace
        walker.advance(buf, limit)
        self._preview(walker, buf, limit)
