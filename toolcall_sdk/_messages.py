"""Chat messages in and out: what the user passes, what goes back into the history."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from toolcall_sdk._errors import InvalidArgumentError
from toolcall_sdk._limits import MAX_ARGUMENTS_CHARS, MAX_QUOTED_NAME_CHARS, shorten

__all__ = [
    "MessagesInput",
    "assistant_history_entry",
    "content_text",
    "distinct_call_ids",
    "to_messages",
    "tool_output_content",
]

MessagesInput = str | Sequence[Mapping[str, Any] | BaseModel]


def content_text(content: Any) -> str:
    """A message's content as text: a string as is, the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return " ".join(p for p in parts if isinstance(p, str))
    return ""


def to_messages(messages: MessagesInput) -> list[dict[str, Any]]:
    """Copy the user's input into a list of plain message dicts.

    A string becomes one user message. OpenAI message objects (Pydantic models) are dumped.

    Raises:
        InvalidArgumentError: Something that is not a conversation (also a `TypeError` and a
            `ValueError`), or an empty one.
    """
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, (Mapping, BaseModel)):
        raise InvalidArgumentError(
            "messages is one message, not a list: pass [message] (or a string for a single "
            "user message)"
        )
    if isinstance(messages, bytes) or not isinstance(messages, Iterable):
        raise InvalidArgumentError(
            f"messages must be a string or a list of chat messages (got {type(messages).__name__})"
        )
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if isinstance(message, BaseModel):
            item = message.model_dump(exclude_none=True)
        elif isinstance(message, Mapping):
            item = dict(message)
        else:
            raise InvalidArgumentError(
                f"messages[{index}] is a {type(message).__name__}; expected a dict like "
                '{"role": "user", "content": "..."}'
            )
        if "role" not in item:
            raise InvalidArgumentError(f"messages[{index}] has no 'role'")
        out.append(item)
    if not out:
        raise InvalidArgumentError("messages is empty: pass a string or at least one message")
    return out


def assistant_history_entry(message: Mapping[str, Any]) -> dict[str, Any]:
    """The assistant message as it goes back into the conversation.

    Only the fields chat templates understand are kept; arguments stay JSON strings and an
    empty `tool_calls` list is dropped (several vLLM templates choke on either). A name or
    arguments over the `_limits` bounds (always a rejected call) go back shortened, so a
    retry does not re-send megabytes; the feedback says what was wrong with them.
    """
    entry: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    tool_calls = message.get("tool_calls") or []
    if tool_calls:
        entry["tool_calls"] = [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {
                    "name": _name_text((call.get("function") or {}).get("name")),
                    "arguments": _arguments_text((call.get("function") or {}).get("arguments")),
                },
            }
            for call in tool_calls
        ]
    return entry


def distinct_call_ids(message: dict[str, Any], taken: Collection[str] = ()) -> dict[str, Any]:
    """The message with an id of its own for each call: a missing id, or one an earlier call
    of the message (or of the step: `taken`) already has, is replaced.

    Everything that follows a call is keyed by its id: its tool message, a person's
    decision on it, the step's record of what ran. Two calls under one id (a server that
    numbers the calls of each answer from 1, or a proxy that copies one id) would share a
    decision: approving one would run both. A missing id becomes `call_<index>`, a repeated
    one `<id>_<n>`, each the first such name not in use.

    Returns:
        The message (the same object when nothing changed).
    """
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return message
    used = set(taken)
    out: list[Any] = []
    changed = False
    for index, raw in enumerate(calls):
        if not isinstance(raw, Mapping):
            out.append(raw)
            continue
        given = raw.get("id")
        call_id = given if isinstance(given, str) and given else None
        if call_id is None or call_id in used:
            base = call_id or f"call_{index}"
            fresh, n = base, 1
            while fresh in used:
                n += 1
                fresh = f"{base}_{n}"
            changed = True
            raw = {**raw, "id": fresh}
            call_id = fresh
        used.add(call_id)
        out.append(raw)
    return {**message, "tool_calls": out} if changed else message


def tool_output_content(output: Any) -> str:
    """The text of a `tool` message carrying a business function's result."""
    if isinstance(output, str):
        return output
    try:
        if isinstance(output, BaseModel):
            return output.model_dump_json()
        return json.dumps(output, ensure_ascii=False, default=str)
    except Exception:
        # The function ran: whatever its value (a model with a field pydantic cannot
        # serialise, a circular structure), the model is answered and the call recorded.
        return _as_text(output)


def _as_text(output: Any) -> str:
    try:
        return str(output)
    except Exception:  # a __str__ that raises too: the type is all that can be said
        return f"<{type(output).__name__} object>"


def _name_text(name: Any) -> Any:
    return shorten(name, MAX_QUOTED_NAME_CHARS) if isinstance(name, str) else name


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        # Valid JSON in place of what validation refused unread, for templates that decode it.
        return "{}" if len(arguments) > MAX_ARGUMENTS_CHARS else arguments
    if arguments is None:
        return "{}"
    return json.dumps(arguments, ensure_ascii=False)
