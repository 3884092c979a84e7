"""Recovering tool calls that a server left in the answer's text.

When the server's `--tool-call-parser` does not match the model's format (or the model
wrapped its call in a reasoning block), a forced call comes back with no `tool_calls` and
the call markup in `content`. The calls are read back with `toolcall_sdk.parsing` (pure
parsers, never `eval`) and validated like any other; the attempt is flagged `parser_miss`.
Answers the user asked to be text (`tool_choice="none"`) are never searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcall_sdk.parsing import parse_with_reasoning

__all__ = ["recover_calls", "recovered_call_id"]


def recover_calls(
    message: Mapping[str, Any], *, hint: str | None, attempt: int
) -> dict[str, Any] | None:
    """The message with `tool_calls` rebuilt from its text, or None when it holds no call.

    Args:
        message: An assistant message without `tool_calls`.
        hint: The model name or family, so its own format is tried first.
        attempt: The attempt number, used in the recovered call ids.
    """
    content = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not isinstance(content, str):
        content = None
    if not isinstance(reasoning, str):
        reasoning = None
    if not content and not reasoning:
        return None
    found = parse_with_reasoning(content, reasoning, hint)
    if not found.calls:
        return None
    recovered = dict(message)
    recovered["content"] = found.text.strip() or None if content else content
    recovered["tool_calls"] = [
        {
            "id": recovered_call_id(attempt, index),
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }
        for index, call in enumerate(found.calls)
    ]
    return recovered


def recovered_call_id(attempt: int, index: int) -> str:
    """The id given to call `index` recovered from attempt `attempt`'s text.

    Streamed events announce a recovered call before the answer is complete, so the id is a
    function of its position alone.
    """
    # Nine alphanumerics: the one id form every family's template accepts (Mistral's rule).
    return f"r{attempt:03d}{index:05d}"
