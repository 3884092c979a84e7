"""Tool calls recovered from model text, whole or streamed, and repaired before a re-ask.

When vLLM runs with the wrong `--tool-call-parser`, or a fine-tune writes its tags as
ordinary tokens, or a reasoning model calls inside `<think>`, the call arrives as text. These
pure functions (no I/O, nothing evaluated) read it back:

    from toolcall_sdk.parsing import StreamParser, parse_any, parse_with_reasoning

    parse_any(content, "Qwen/Qwen2.5-7B-Instruct").calls   # [ParsedCall(name, arguments, raw)]
    parse_with_reasoning(content, reasoning_content)        # also looks inside <think>

    parser = StreamParser("hermes")
    for delta in deltas:
        events = parser.feed(delta)   # TextDelta, ParsedCallStarted, ArgumentsDelta,
                                      # ParsedCallFinished
    parser.close()

Formats (one module each, each with `parse(text) -> ParseResult`): `hermes`,
`llama3_json`, `mistral`, `pythonic`, `qwen3_xml`, `deepseek_v3`, `deepseek_v32`, `gemma4`,
`glm45`, `harmony`, `kimi_k2`, `kimi_k3`, `xlam`, and `qwen25_coder` (Qwen2.5-Coder's call
objects without tags, for the tools named in `schemas`). With the offered tool names
(`parse_any(..., tools=...)`), what small models write outside any format is read too (calls in
Markdown fences, bare Python calls, GLM-4's name line, Python dicts), each call marked with how
(`ParsedCall.repairs`). Reasoning blocks are split off with `split_reasoning` /
`ReasoningSplitter`; repairs live in `repair`. See docs/parsing.md.
"""

import warnings

from toolcall_sdk.parsing._dispatch import detect_format, parse, parse_any
from toolcall_sdk.parsing._registry import FORMATS, format_for
from toolcall_sdk.parsing._thinking import ReasoningSplitter, split_reasoning
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
from toolcall_sdk.parsing.reasoning import parse_with_reasoning
from toolcall_sdk.parsing.repair import (
    close_truncated_json,
    coerce_scalars,
    repair_arguments,
    unwrap_json_string,
)
from toolcall_sdk.parsing.stream import StreamParser

__all__ = [
    "FORMATS",
    "ArgumentsDelta",
    "ParseResult",
    "ParsedCall",
    "ParsedCallFinished",
    "ParsedCallStarted",
    "ReasoningDelta",
    "ReasoningSplitter",
    "StreamEvent",
    "StreamParser",
    "TextDelta",
    "close_truncated_json",
    "coerce_scalars",
    "detect_format",
    "format_for",
    "parse",
    "parse_any",
    "parse_with_reasoning",
    "repair_arguments",
    "split_reasoning",
    "unwrap_json_string",
]

# The names of 0.x, before `toolcall_sdk.events.CallStarted`/`CallFinished` (the hook events)
# and these meant different things: kept, with a warning, so code written for them still runs.
_RENAMED = {"CallStarted": "ParsedCallStarted", "CallFinished": "ParsedCallFinished"}


def __getattr__(name: str) -> object:
    new = _RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module 'toolcall_sdk.parsing' has no attribute {name!r}")
    warnings.warn(
        f"toolcall_sdk.parsing.{name} is now {new} ({name} is the hook event of "
        f"toolcall_sdk.events); the old name will be removed in 1.0",
        DeprecationWarning,
        stacklevel=2,
    )
    return globals()[new]
