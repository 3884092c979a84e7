"""The values every parser returns: calls, parse results and streaming events."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ArgumentsDelta",
    "ParseResult",
    "ParsedCall",
    "ParsedCallFinished",
    "ParsedCallStarted",
    "ReasoningDelta",
    "StreamEvent",
    "TextDelta",
]


@dataclass(frozen=True, slots=True)
class ParsedCall:
    """One tool call read from model text.

    Attributes:
        name: The function name; `""` when the markup held no readable name.
        arguments: Compact JSON text of the arguments (`json.dumps` of the decoded value) when
            the source was valid JSON, otherwise the source argument text exactly as written
            (`""` when there was none), so that validation can report the model's own text.
        raw: The exact source text of this call, including the markup that belongs to this
            call alone (`<tool_call>...</tool_call>`, `[TOOL_CALLS]name{...}`); markup shared by
            several calls (the `[...]` of a list, `<|python_tag|>`) belongs to none of them.
        repairs: How the call was read when no format reads it as written (only with the
            offered tool names: `parse_any(..., tools=...)`): `"fenced_code"`,
            `"python_literal"`, `"name_line"`, `"bare_call"`, `"call_in_text"`; empty for a
            call read in its format.
    """

    name: str
    arguments: str
    raw: str
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Everything a parser found in one text.

    Attributes:
        calls: The calls, in source order.
        text: The input with the call markup removed; the text around the calls is kept
            exactly, character for character.
        format: The format the calls were read in, or `None` when there are none.
        reasoning: Reasoning the format's own markup carries (a Harmony `analysis`
            message); `""` for formats without a reasoning channel (`<think>` blocks are
            split off before a format reads the text: see `split_reasoning`).
    """

    calls: list[ParsedCall]
    text: str
    format: str | None
    reasoning: str = ""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Plain text, released once it can no longer turn into call markup."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text, from formats whose markup carries a reasoning channel (Harmony)."""

    text: str


@dataclass(frozen=True, slots=True)
class ParsedCallStarted:
    """A call was opened; `name` is known. Indexes count calls from 0 in stream order."""

    index: int
    name: str


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    """A preview of argument text for call `index`, as the model wrote it.

    For the JSON formats the pieces join to the source argument text; for Qwen3 XML, to
    JSON built one parameter at a time; pythonic calls send theirs in one piece. The
    authoritative, normalised arguments are in `ParsedCallFinished.call.arguments`.
    """

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ParsedCallFinished:
    """Call `index` is complete; `call` is what `parse()` returns for it."""

    index: int
    call: ParsedCall


StreamEvent = TextDelta | ReasoningDelta | ParsedCallStarted | ArgumentsDelta | ParsedCallFinished
