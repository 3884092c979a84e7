"""Calls made inside a reasoning block.

Reasoning models sometimes emit their call inside `<think>...</think>` (or `[THINK]`, or a
thought channel), or vLLM's reasoning
parser moves everything into `reasoning_content`, and the server's tool parser never sees
the call. `parse_with_reasoning` finds it there, but only as a fallback: a model that drafts
a call while thinking and then makes it for real must not have it run twice.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from toolcall_sdk.parsing._dispatch import parse_any
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._thinking import BLOCKS
from toolcall_sdk.parsing._types import ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["THINK_END", "THINK_START", "outside_reasoning", "parse_with_reasoning"]

THINK_START: Final = "<think>"
THINK_END: Final = "</think>"
_CLOSER_OF: Final = {block.opener: block.closers[0] for block in BLOCKS}
_OPENERS: Final = TagSet(*_CLOSER_OF)
_CLOSERS: Final = TagSet(*_CLOSER_OF.values())


def outside_reasoning(content: str) -> str:
    """The content without its reasoning blocks (as `parse_with_reasoning` reads them: a
    closing marker with no opening one before it closes a block the template opened)."""
    return "".join(
        body for opening, body, closing in _segments(content) if not (opening or closing)
    )


def _segments(content: str) -> list[tuple[str, str, str]]:
    """Split content into `(open_tag, body, close_tag)`; an open tag or a close tag marks a
    reasoning block (`<think>`, `[THINK]`, Gemma 4's and Kimi K3's thought channels). A
    closing tag before any opening one closes a block the chat template opened."""
    segments: list[tuple[str, str, str]] = []
    pos = 0
    first_end, end_tag = _CLOSERS.find(content)
    first_start = _OPENERS.find(content)[0]
    if first_end >= 0 and (first_start < 0 or first_end < first_start):
        segments.append(("", content[:first_end], end_tag))
        pos = first_end + len(end_tag)
    while True:
        start, tag = _OPENERS.find(content, pos)
        if start < 0:
            segments.append(("", content[pos:], ""))
            return segments
        segments.append(("", content[pos:start], ""))
        body = start + len(tag)
        closer = _CLOSER_OF[tag]
        end = content.find(closer, body)
        if end < 0:
            segments.append((tag, content[body:], ""))
            return segments
        segments.append((tag, content[body:end], closer))
        pos = end + len(closer)


def parse_with_reasoning(
    content: str | None,
    reasoning: str | None = None,
    family_or_format: str | None = None,
    *,
    schemas: Schemas | None = None,
    tools: Collection[str] | None = None,
    answer_only: bool = False,
) -> ParseResult:
    """Find calls in an answer's content, else in its think blocks, else in its reasoning.

    Args:
        content: The message content; may hold `<think>...</think>` blocks (or start inside
            one whose `<think>` the chat template wrote).
        reasoning: The separate reasoning text (`reasoning_content`), if the server sent one.
        family_or_format: See `parse_any`.
        schemas: See `parse_any`.
        tools: See `parse_any`: the offered tool names, to read what small models write
            outside any format. Used for the content outside reasoning blocks only.
        answer_only: Look in the content outside reasoning blocks only: a call drafted
            while thinking is not looked for (the client's recovery, which runs what it
            reads, passes True).

    Returns:
        The calls of the first place that has any: the content outside think blocks, then
        the think blocks, then `reasoning`. `text` is the content with the markup of the
        returned calls removed, think blocks kept; `reasoning` never adds to it.
    """
    content = content or ""
    segments = _segments(content)
    results = [
        # What only the tool names make a call is read in the answer alone: in reasoning a
        # model drafts, and a drafted call must not run.
        parse_any(
            body, family_or_format, schemas=schemas, tools=None if opening or closing else tools
        )
        if body.strip()
        else ParseResult([], body, None)
        for opening, body, closing in segments
    ]
    for in_think in (False,) if answer_only else (False, True):
        chosen = {
            i
            for i, (opening, _, closing) in enumerate(segments)
            if results[i].calls and bool(opening or closing) == in_think
        }
        if chosen:
            pieces = [
                opening + (results[i].text if i in chosen else body) + closing
                for i, (opening, body, closing) in enumerate(segments)
            ]
            calls = [call for i in sorted(chosen) for call in results[i].calls]
            return ParseResult(calls, "".join(pieces), results[min(chosen)].format)
    if reasoning and reasoning.strip() and not answer_only:
        result = parse_any(reasoning, family_or_format, schemas=schemas)
        if result.calls:
            return ParseResult(result.calls, content, result.format)
    return ParseResult([], content, None)
