"""The incremental engine every format builds on.

Each format is one `FormatStream` subclass that reads text as it arrives and never re-reads
what it has decided: text it has released, markup it has consumed. A format's `parse()` is
the same engine run once over the whole text, with the end of text known, so a streamed
text and the whole text are read by one set of rules. (Hermes, the hottest path, runs that
engine's tag search alone over a whole text: `HermesStream.parse_text`.)

A subclass implements `_process(buf, final)`: read `buf` from where it stopped, report text
and calls through `_text`, `_start`, `_args` and `_finish`, and return the index of the
first character it still needs. Reading resumes from indexes the subclass stores; from
time to time the text before that index is dropped and `_shift` is told by how much its
stored indexes move. With `final` true the text has ended: nothing may stay
undecided.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Final

from toolcall_sdk.parsing._json import JsonWalker
from toolcall_sdk.parsing._markup import Step
from toolcall_sdk.parsing._types import (
    ArgumentsDelta,
    ParsedCall,
    ParsedCallFinished,
    ParsedCallStarted,
    ParseResult,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
)
from toolcall_sdk.parsing._values import Schemas

__all__ = ["FormatStream"]

# Consumed text is dropped from the buffer once this much has piled up.
_COMPACT_AT: Final = 4096


class FormatStream(ABC):
    """Incremental parser for one format; see `toolcall_sdk.parsing.StreamParser`.

    Args:
        events: Produce streaming events. `parse()` turns them off: it only needs the calls
            and the text.
        schemas: Parameter schemas by tool name, for the formats whose values are bare text
            (the others ignore them).
    """

    # A format is its class: what it is called and how it is found live here, and
    # `_registry.FORMAT_STREAMS` lists the classes (the only other place a format is named).
    format: ClassVar[str]
    # vLLM `--tool-call-parser` names whose models write this format. They link the model
    # families (`toolcall_sdk._families`, which name a parser) to it; the format's own name
    # and the SDK plugin's `toolcall_<format>` are added for every format.
    parsers: ClassVar[tuple[str, ...]] = ()
    # Tags that, anywhere in a text of unknown format, say it is written in this one.
    markers: ClassVar[tuple[str, ...]] = ()
    # Calls that may open a text without a tag: each lead's first character, and the steps
    # of the prefix that must follow for the text to be this format's call.
    leads: ClassVar[tuple[tuple[str, tuple[Step, ...]], ...]] = ()

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        self._schemas = schemas
        self._buf = ""
        self._closed = False
        self._emit = events
        self._events: list[StreamEvent] = []
        self._pieces: list[str] = []
        self._thoughts: list[str] = []
        self._calls: list[ParsedCall] = []
        self._next_index = 0
        self._pending: list[int] = []  # started, not yet finished, in order
        self._sent = 0  # argument preview sent up to this buffer index
        self._args_begun = False

    @classmethod
    def parse_text(cls, text: str, schemas: Schemas | None = None) -> ParseResult:
        """Run the engine once over a whole text."""
        engine = cls(events=False, schemas=schemas)
        engine.run_whole(text)
        return engine.result()

    def run_whole(self, text: str) -> None:
        """Read a whole text in one pass, its end known (what `parse()` does)."""
        self._process(text, True)
        self._closed = True

    def feed(self, delta: str) -> list[StreamEvent]:
        """Read the next piece of text; return the events it completes."""
        if self._closed:
            raise RuntimeError("feed() after close(): start a new StreamParser for a new text")
        if delta:
            buf = self._buf
            self._buf = ""
            buf += delta  # CPython appends in place when `buf` holds the only reference
            keep = self._process(buf, False)
            # Dropping the consumed head costs a copy and an index shift: do it only once it
            # is large, so a delta costs the same however long the text has run.
            if keep >= _COMPACT_AT and keep * 2 >= len(buf):
                self._shift(keep)
                buf = buf[keep:]
            self._buf = buf
        return self._drain()

    def close(self) -> list[StreamEvent]:
        """Say the text has ended; release or finish whatever was held back."""
        if not self._closed:
            self._closed = True
            buf = self._buf
            self._buf = ""
            self._process(buf, True)
        return self._drain()

    def result(self) -> ParseResult:
        """Everything read so far, as `parse()` returns it (complete once closed)."""
        calls = list(self._calls)
        return ParseResult(
            calls, "".join(self._pieces), self.format if calls else None, "".join(self._thoughts)
        )

    @abstractmethod
    def _process(self, buf: str, final: bool) -> int:
        """Read `buf`; return the index of the first character still needed."""

    def _shift(self, offset: int) -> None:  # noqa: B027 - formats without indexes keep nothing
        """Move stored indexes left by `offset` (the buffer lost that many characters)."""

    def _drain(self) -> list[StreamEvent]:
        events = self._events
        self._events = []
        return events

    def _text(self, text: str) -> None:
        if text:
            self._pieces.append(text)
            if self._emit:
                self._events.append(TextDelta(text))

    def _reason(self, text: str) -> None:
        if text:
            self._thoughts.append(text)
            if self._emit:
                self._events.append(ReasoningDelta(text))

    def _start(self, name: str) -> int:
        index = self._next_index
        self._next_index = index + 1
        self._pending.append(index)
        if self._emit:
            self._events.append(ParsedCallStarted(index, name))
        return index

    def _args(self, text: str) -> None:
        if text and self._pending and self._emit:
            self._events.append(ArgumentsDelta(self._pending[-1], text))

    def _preview(self, walker: JsonWalker, buf: str, limit: int) -> None:
        """Start the walker's call once its name is known, then send new argument text."""
        if not self._pending:
            if walker.name is None:
                return
            self._start(walker.name)
            self._args_begun = False
        span = walker.args_span(limit)
        if span is None:
            return
        start, end = span
        start = max(start, self._sent)
        if end > start:
            piece = buf[start:end]
            if not self._args_begun:
                piece = piece.lstrip()
            if piece:
                self._args_begun = True
                self._args(piece)
            self._sent = end

    def _finish(self, call: ParsedCall) -> None:
        self._calls.append(call)
        if self._pending:
            index = self._pending.pop(0)
        elif self._emit:
            index = self._start(call.name)
            self._pending.pop(0)
        else:  # parse(): nobody sees indexes
            return
        if self._emit:
            self._events.append(ParsedCallFinished(index, call))
