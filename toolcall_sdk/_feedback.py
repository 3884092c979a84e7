"""Feedback messages: what the model is told when its answer is rejected.

Each message is short enough for a 3B model to act on: the call id, the field, what was
wrong, the value it sent, and what to do next. Pydantic's URLs and error codes are left out.
Everything quoted from the model (names, field paths, values, messages embedding them) is
cut to the bounds of `_limits`, so feedback stays small whatever the model sent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolcall_sdk._limits import (
    MAX_FEEDBACK_FIELDS,
    MAX_QUOTED_MESSAGE_CHARS,
    MAX_QUOTED_NAME_CHARS,
    MAX_QUOTED_VALUE_CHARS,
    shorten,
)
from toolcall_sdk._results import FieldError, Problem

__all__ = [
    "CUT_OFF",
    "SDK_NOTE_PREFIXES",
    "denied_text",
    "feedback_text",
    "field_errors_from_pydantic",
    "fields_summary",
    "no_tool_call_text",
    "repeated_call_text",
]

# The loop guard repeats an earlier result; the full text is already in the conversation.
_MAX_RESULT_CHARS = 1000
# How `check_answer` starts the message of a problem in an answer that ran into the token limit
# (`finish_reason == "length"`): the feedback then says the call was cut off.
CUT_OFF = "cut off at the token limit"

# How every message this SDK writes into the conversation starts (feedback on a rejected
# call, a repeated or denied call, a tool's error): such text quotes the model's own values
# back, so the grounding check never counts it as something the user or a tool said.
SDK_NOTE_PREFIXES = (
    "ERROR",
    "VALIDATION_ERROR",
    "UNGROUNDED",
    "NOT_EXECUTED",
    "REPEATED_CALL:",
    "DENIED:",
)

# Pydantic prefixes the message of a custom validator's ValueError/AssertionError with this.
_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")


def feedback_text(problem: Problem, available: Sequence[str], *, may_answer: bool = False) -> str:
    """The content of the `tool` (or `user`) message answering a rejected call.

    Args:
        problem: What was wrong.
        available: The tools offered.
        may_answer: The retry may answer in text (sent under `auto`): feedback on values the
            user never gave then says so, since the tool may not fit the request at all.
    """
    # The name and id come from the server's answer: quoted within bounds like the rest.
    tool = shorten(problem.tool_name or "the tool", MAX_QUOTED_NAME_CHARS)
    call = f" (call {shorten(problem.call_id, MAX_QUOTED_NAME_CHARS)})" if problem.call_id else ""
    message = shorten(problem.message, MAX_QUOTED_MESSAGE_CHARS)
    if problem.kind == "invalid_arguments":
        lines = [f"VALIDATION_ERROR in {tool}{call}:"]
        lines += [f"- {_describe(error)}" for error in problem.fields[:MAX_FEEDBACK_FIELDS]]
        hidden = len(problem.fields) - MAX_FEEDBACK_FIELDS
        if hidden > 0:
            lines.append(f"(and {hidden} more problems)")
        lines.append(f"Call {tool} again with corrected arguments.")
        return "\n".join(lines)
    if problem.kind == "ungrounded":
        lines = [f"UNGROUNDED in {tool}{call}:", *_field_lines(problem)]
        advice = f"Call {tool} again with the values exactly as the user gave them."
        if may_answer:
            advice += " If the user did not give them, or no tool fits the request, answer in "
            advice += "plain text."
        lines.append(advice)
        return "\n".join(lines)
    if problem.kind == "missing_calls":
        lines = [
            f"INCOMPLETE in {tool}{call}: the request lists more values than your calls use:",
            *_field_lines(problem),
        ]
        lines.append(
            f"Nothing ran. Answer again with every call the request asks for: one {tool} "
            "call per listed value, this one included, all in one answer."
        )
        return "\n".join(lines)
    if problem.kind == "unknown_tool":
        name = problem.tool_name
        quoted = json.dumps(shorten(name, MAX_QUOTED_NAME_CHARS) if name is not None else None)
        return (
            f"ERROR{call}: there is no tool named {quoted}. "
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
            f"({message}). Call {tool} again with the arguments as one JSON object."
        )
    if problem.kind == "tool_retry":
        return f"ERROR from {tool}{call}: {message}\nCall {tool} again with corrected arguments."
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


def _field_lines(problem: Problem) -> list[str]:
    """`- field: message` per field error, within bounds (the messages name values)."""
    return [
        f"- {shorten(error.field, MAX_QUOTED_NAME_CHARS)}: "
        f"{shorten(error.message, MAX_QUOTED_MESSAGE_CHARS)}"
        for error in problem.fields[:MAX_FEEDBACK_FIELDS]
    ]


def no_tool_call_text(available: Sequence[str]) -> str:
    """The `user` message sent when a forced call came back as plain text."""
    return (
        "ERROR: you answered with text, but a tool call is required. "
        f"Available tools: {', '.join(available)}. Call one of them now."
    )


def repeated_call_text(name: str, arguments: str, count: int, result: str) -> str:
    """The `tool` message answering a call the loop guard did not run again."""
    if len(result) > _MAX_RESULT_CHARS:
        result = result[: _MAX_RESULT_CHARS - 3] + "..."
    return (
        f"REPEATED_CALL: you already called {name} with these arguments {arguments} "
        f"{count} time(s); it was not run again. The result was: {result}\n"
        f"Do not call {name} with the same arguments again: answer with what you have, "
        "or call a different tool."
    )


def denied_text(name: str) -> str:
    """The `tool` message answering a call the user refused at an approval."""
    return (
        f"DENIED: the user did not approve this call to {name}, so it was not run. "
        "Do not call it again unless the user asks; tell the user it was not done."
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


def fields_summary(fields: Sequence[FieldError]) -> str:
    """A one-line summary of field errors (a problem's `message`), bounded like feedback."""
    shown = "; ".join(
        f"{shorten(f.field, MAX_QUOTED_NAME_CHARS)}: {shorten(f.message, MAX_QUOTED_MESSAGE_CHARS)}"
        for f in fields[:MAX_FEEDBACK_FIELDS]
    )
    hidden = len(fields) - MAX_FEEDBACK_FIELDS
    return f"{shown}; and {hidden} more" if hidden > 0 else shown


def _describe(error: FieldError) -> str:
    field = shorten(error.field, MAX_QUOTED_NAME_CHARS)
    message = shorten(error.message, MAX_QUOTED_MESSAGE_CHARS)
    if error.value is None:
        return f"{field}: {message}"
    return f"{field}: {message} (got {_short(error.value)})"


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) > MAX_QUOTED_VALUE_CHARS:
        value = value[:MAX_QUOTED_VALUE_CHARS]  # never serialise megabytes to keep sixty
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > MAX_QUOTED_VALUE_CHARS:
        text = text[: MAX_QUOTED_VALUE_CHARS - 3] + "..."
    return text
