"""Reading a text in a named format, or in whatever format it turns out to be in."""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from toolcall_sdk.parsing import llama3_json, qwen25_coder, xlam
from toolcall_sdk.parsing._auto import AutoStream
from toolcall_sdk.parsing._offered import fences, read_lines, read_tagged_literals
from toolcall_sdk.parsing._registry import FORMATS, STREAMS, format_for
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas
from toolcall_sdk.parsing.repair import FENCED_CODE

__all__ = ["AUTO", "detect_format", "parse", "parse_any", "require_format"]

AUTO: Final = "auto"
# The order `parse_any` tries the formats in after detection. xLAM first: Llama 3 JSON
# would read an xLAM array's objects as calls standing in prose, and leave the array's
# brackets behind as text. Qwen2.5-Coder's format is tried for its models only: its values
# are the offered-name forms `parse_any(tools=...)` reads, marked as repairs, for any model.
_FALLBACKS: Final = (
    xlam.FORMAT,
    *(fmt for fmt in FORMATS if fmt not in (xlam.FORMAT, qwen25_coder.FORMAT)),
)


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

    The first sign of a format decides (see `StreamParser("auto")`); with no sign, an xLAM
    value at the start, then a Llama 3 JSON call standing in prose, still count.

    Args:
        text: Model output.

    Returns:
        A name from `FORMATS`, or None when the text shows no call markup.
    """
    engine = AutoStream(events=False)
    engine._process(text, True)
    if engine.detected is not None:
        return engine.detected
    if '"name"' in text:
        for fmt in (xlam.FORMAT, llama3_json.FORMAT):
            if parse(text, fmt).calls:
                return fmt
    return None


def parse_any(
    text: str,
    family_or_format: str | None = None,
    *,
    schemas: Schemas | None = None,
    tools: Collection[str] | None = None,
) -> ParseResult:
    """Find tool calls in `text` whatever format they are in.

    The known format, when given, is tried first; then the format the text's first sign
    points to (what `StreamParser("auto")` reads); then every other format. The first that
    finds calls wins.

    With `tools`, the forms small models write outside any format are read too, each call
    marked with how it was written (`ParsedCall.repairs`): calls inside Markdown code
    fences (after the first two steps), then, when no format found any, Python dicts inside
    `<tool_call>` tags, and calls standing on lines of their own whose every name is an
    offered tool (bare Python calls, GLM-4's name line, call values after text). See
    docs/parsing.md, "What small models write".

    Args:
        text: Model output (content or reasoning).
        family_or_format: A format name, vLLM parser name, family or model id; unknown
            names are ignored.
        schemas: Parameter schemas by tool name (see `parse`).
        tools: The names of the offered tools; None reads the formats only.

    Returns:
        The calls found, or no calls and `text` unchanged.
    """
    return _parse_any(text, family_or_format, schemas, tools, in_fence=False)


def _parse_any(
    text: str,
    family_or_format: str | None,
    schemas: Schemas | None,
    tools: Collection[str] | None,
    *,
    in_fence: bool,
) -> ParseResult:
    tried: set[str] = set()
    result = _known_then_detected(text, family_or_format, schemas, tried)
    if result.calls:
        return result
    if tools is not None and not in_fence:
        # Before the other formats: Llama 3 JSON would read a fenced call object as one
        # standing in prose, and leave the fence behind as text.
        result = _fenced(text, family_or_format, schemas, tools)
        if result.calls:
            return result
    for fmt in _FALLBACKS:
        if fmt not in tried:
            result = parse(text, fmt, schemas=schemas)
            if result.calls:
                return result
    if tools is not None:
        for found in (read_tagged_literals(text), read_lines(text, tools)):
            if found is not None:
                return found
    return ParseResult([], text, None)


def _known_then_detected(
    text: str, family_or_format: str | None, schemas: Schemas | None, tried: set[str]
) -> ParseResult:
    """The known format's reading, else the `"auto"` reading; `tried` gets their formats."""
    known = format_for(family_or_format) if family_or_format else None
    if known is not None:
        result = parse(text, known, schemas=schemas)
        if result.calls:
            return result
        tried.add(known)
    auto = AutoStream(events=False, schemas=schemas)
    auto.run_whole(text)
    if auto.detected is not None:
        tried.add(auto.detected)
    return auto.result()


def _fenced(
    text: str, family_or_format: str | None, schemas: Schemas | None, tools: Collection[str]
) -> ParseResult:
    """The calls inside the text's Markdown code fences, each marked `fenced_code`; a fence
    that holds calls is replaced by the text left around them."""
    calls: list[ParsedCall] = []
    pieces: list[str] = []
    kept = 0
    fmt = None
    for start, end, body_start, body_end in fences(text):
        inner = _parse_any(
            text[body_start:body_end], family_or_format, schemas, tools, in_fence=True
        )
        if not inner.calls:
            continue
        fmt = fmt or inner.format
        calls += [
            ParsedCall(c.name, c.arguments, c.raw, (FENCED_CODE, *c.repairs)) for c in inner.calls
        ]
        pieces += [text[kept:start], inner.text.strip()]
        kept = end
    if not calls:
        return ParseResult([], text, None)
    pieces.append(text[kept:])
    return ParseResult(calls, "".join(pieces), fmt)
