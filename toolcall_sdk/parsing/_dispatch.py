"""Reading a text in a named format, or in whatever format it turns out to be in."""

from __future__ import annotations

from typing import Final

from toolcall_sdk.parsing import llama3_json
from toolcall_sdk.parsing._auto import AutoStream
from toolcall_sdk.parsing._registry import FORMATS, STREAMS, format_for
from toolcall_sdk.parsing._types import ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["AUTO", "detect_format", "parse", "parse_any", "require_format"]

AUTO: Final = "auto"


def require_format(name: str) -> str:
    """`format_for(name)`, or ValueError naming the formats when it is unknown."""
    fmt = format_for(name)
    if fmt is None:
        raise ValueError(
            f"No tool-call format is known for {name!r}. Use one of {', '.join(FORMATS)}, "
            "a vLLM --tool-call-parser name, a model family or a model id, or None to detect it."
        )
    return fmt


def parse(text: str, format: str, *, schemas: Schemas | None = None) -> ParseResult:
    """Read the calls in `text` written in one format.

    Args:
        text: Model output.
        format: A format name, vLLM parser name, family or model id (see `format_for`), or
            `"auto"` to read it as `StreamParser("auto")` does (the first sign of a format
            decides; see `detect_format`).
        schemas: Parameter schemas by tool name, for formats whose values are bare text
            (Qwen3 XML, GLM, DeepSeek DSML, Kimi K3).

    Returns:
        What that format's `parse` returns.

    Raises:
        ValueError: `format` names no known format.
    """
    stream = STREAMS.get(format)
    if stream is not None:  # the common case, named exactly
        return stream.parse_text(text, schemas)
    if format == AUTO:
        engine = AutoStream(events=False, schemas=schemas)
        engine.run_whole(text)
        return engine.result()
    return STREAMS[require_format(format)].parse_text(text, schemas)


def detect_format(text: str) -> str | None:
    """Say which format a text's calls are written in.

    The first sign of a format decides (see `StreamParser("auto")`); with no sign, a Llama 3
    JSON call standing in prose still counts.

    Args:
        text: Model output.

    Returns:
        A name from `FORMATS`, or None when the text shows no call markup.
    """
    engine = AutoStream(events=False)
    engine._process(text, True)
    if engine.detected is not None:
        return engine.detected
    if '"name"' in text and llama3_json.parse(text).calls:
        return llama3_json.FORMAT
    return None


def parse_any(
    text: str,
    family_or_format: str | None = None,
    *,
    schemas: Schemas | None = None,
) -> ParseResult:
    """Find tool calls in `text` whatever format they are in.

    The known format, when given, is tried first; then the format the text's first sign
    points to (what `StreamParser("auto")` reads); then every other format. The first that
    finds calls wins.

    Args:
        text: Model output (content or reasoning).
        family_or_format: A format name, vLLM parser name, family or model id; unknown
            names are ignored.
        schemas: Parameter schemas by tool name (see `parse`).

    Returns:
        The calls found, or no calls and `text` unchanged.
    """
    tried: set[str] = set()
    known = format_for(family_or_format) if family_or_format else None
    if known is not None:
        result = parse(text, known, schemas=schemas)
        if result.calls:
            return result
        tried.add(known)
    auto = AutoStream(events=False, schemas=schemas)
    auto.run_whole(text)
    result = auto.result()
    if result.calls:
        return result
    if auto.detected is not None:
        tried.add(auto.detected)
    for fmt in FORMATS:
        if fmt not in tried:
            result = parse(text, fmt, schemas=schemas)
            if result.calls:
                return result
    return ParseResult([], text, None)
