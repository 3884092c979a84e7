"""`StreamParser`: tool calls and text from a stream of content deltas, as they complete."""

from __future__ import annotations

from toolcall_sdk.parsing._auto import AutoStream
from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._dispatch import AUTO, require_format
from toolcall_sdk.parsing._registry import STREAMS
from toolcall_sdk.parsing._types import ParseResult, StreamEvent
from toolcall_sdk.parsing._values import Schemas

__all__ = ["StreamParser"]


class StreamParser:
    """Reads a model's text delta by delta and reports text and calls as they complete.

    Whatever the split of the text into deltas (one character each, or a tag cut as `<`,
    `tool`, `_call`, `>`), the calls and the joined `TextDelta`s equal what `parse` returns
    for the whole text. Text that may still turn into markup (`<tool`, `[TOOL_`, a `{` that
    may open a Llama 3 call) is held back until it does or cannot; markup is never released
    as text. Each `feed` reads only the new text.

        parser = StreamParser("hermes")
        for delta in deltas:
            for event in parser.feed(delta):
                ...  # TextDelta, ParsedCallStarted, ArgumentsDelta, ParsedCallFinished
        parser.close()
        parser.result()  # ParseResult, as parse() of the whole text

    Args:
        format: A format (`FORMATS`), vLLM parser name, family or model id; `"auto"` or
            None to detect it from the first sign of a format (see `detect_format`).
        schemas: Parameter schemas by tool name, for formats whose values are bare text
            (Qwen3 XML, GLM, DeepSeek DSML, Kimi K3).

    Raises:
        ValueError: `format` names no known format.
    """

    __slots__ = ("_engine",)

    def __init__(self, format: str | None = AUTO, *, schemas: Schemas | None = None) -> None:
        engine: FormatStream
        if format is None or format == AUTO:
            engine = AutoStream(schemas=schemas)
        else:
            engine = STREAMS[require_format(format)](schemas=schemas)
        self._engine = engine

    @property
    def format(self) -> str | None:
        """The format being read; for `"auto"`, None until one is detected."""
        engine = self._engine
        return engine.detected if isinstance(engine, AutoStream) else engine.format

    def feed(self, delta: str) -> list[StreamEvent]:
        """Read the next delta.

        Returns:
            The events it completes, in order (often none, or one `TextDelta`).

        Raises:
            RuntimeError: The parser was closed.
        """
        return self._engine.feed(delta)

    def close(self) -> list[StreamEvent]:
        """Say the text has ended: held-back text is released, an open call is finished."""
        return self._engine.close()

    def result(self) -> ParseResult:
        """The calls and text so far; after `close`, equal to `parse` of the whole text."""
        return self._engine.result()
