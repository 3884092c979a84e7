"""Feedback messages: what the model is told when its answer is rejected.

Each message is short enough for a 3B model to act on: the call id, the field, what was
wrong, the value it sent, and what to do next. Pydantic's URLs and error codes are left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolcall_sdk._results import FieldError, Problem

__all__ = [
    "CUT_OFF",
    "feedback_text",
    "field_errors_from_pydantic",
    "no_tool_call_text",
]

# A long echoed value costs tokens and rarely helps the model more than its start does.
_MAX_VALUE_CHARS = 60
# How `check_answer` starts the message of a problem in an answer that ran into the token limit
# (`finish_reason == "length"`): the feedback then says the call was cut off.
CUT_OFF = "cut off at the token limit"
# Pydantic prefixes the message of a custom validator's ValueError/AssertionError with this.
_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")


def feedback_text(problem: Problem, available: Sequence[str]) -> str:
    """The content of the `tool` (or `user`) message answering a rejected call."""
    tool = problem.tool_name or "the tool"
    call = f" (call {problem.call_id})" if problem.call_id else ""
    if problem.kind == "invalid_arguments":
        lines = [f"VALIDATION_ERROR in {tool}{call}:"]
        lines += [f"- {_describe(error)}" for error in problem.fields]
        lines.append(f"Call {tool} again with corrected arguments.")
        return "\n".join(lines)
    if problem.kind == "unknown_tool":
        return (
            f"ERROR{call}: there is no tool named {json.dumps(problem.tool_name)}. "
            f"Available tools: {', '.join(available)}. Call one of them."
        )
    cut_off = problem.message.startswith(CUT_OFF)
    if problem.kind == "invalid_json" and cut_off:
        return (
            f"ERROR in {tool}{call}: your call was cut off: the answer reached the token limit "
            f"(max_tokens) before its arguments were complete. Call {tool} again, with the "
            "whole arguments object and nothing else."
        )
    if problem.kind == "invalid_json":
        return (
            f"ERROR in {tool}{call}: the arguments are not a valid JSON object "
            f"({problem.message}). Call {tool} again with the arguments as one JSON object."
        )
    if problem.kind == "tool_retry":
        return (
            f"ERROR from {tool}{call}: {problem.message}\n"
            f"Call {tool} again with corrected arguments."
        )
    if problem.kind == "not_executed":
        return (
            f"NOT_EXECUTED{call}: these arguments were valid, but another call in the same "
            "reply was not, so nothing ran. Repeat this call together with the corrected one."
        )
    if cut_off:  # no call at all: the answer ended inside the call, or before it
        return (
            "ERROR: your call was cut off: the answer reached the token limit (max_tokens) "
            f"before the tool call was complete. Available tools: {', '.join(available)}. "
            "Call one of them now, with no text before the call."
        )
    return no_tool_call_text(available)


def no_tool_call_text(available: Sequence[str]) -> str:
    """The `user` message sent when a forced call came back as plain text."""
    return (
        "ERROR: you answered with text, but a tool call is required. "
        f"Available tools: {', '.join(available)}. Call one of them now."
    )


def field_errors_from_pydantic(errors: Sequence[Any]) -> tuple[FieldError, ...]:
    """Turn `pydantic.ValidationError.errors()` into `FieldError`s."""
    out: list[FieldError] = []
    for error in errors:
        location = ".".join(str(part) for part in error.get("loc", ())) or "(arguments)"
        message = str(error.get("msg", "invalid value"))
        for prefix in _PYDANTIC_PREFIXES:
            if message.startswith(prefix):
                message = message[len(prefix) :]
        kind = error.get("type")
        if kind == "extra_forbidden":
            message = "unknown field, remove it"
        value = None if kind == "missing" else error.get("input")
        out.append(FieldError(field=location, message=message, value=value))
    return tuple(out)


def _describe(error: FieldError) -> str:
    if error.value is None:
        return f"{error.field}: {error.message}"
    return f"{error.field}: {error.message} (got {_short(error.value)})"


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > _MAX_VALUE_CHARS:
        text = text[: _MAX_VALUE_CHARS - 3] + "..."
    return text
