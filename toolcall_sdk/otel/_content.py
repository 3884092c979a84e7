"""Messages in the GenAI semantic conventions' shape, for `capture_content=True` only.

`gen_ai.input.messages` and `gen_ai.output.messages` hold JSON: a list of messages, each a
`role` and a list of `parts` (`text`, `tool_call`, `tool_call_response`). Chat messages are
converted from the OpenAI format; content parts other than text (images, prompt embeddings)
are named by their type, never copied: an embeddings tensor is megabytes of base64.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["input_messages", "output_messages"]


def input_messages(messages: Sequence[Mapping[str, Any]]) -> str:
    """The request's messages as `gen_ai.input.messages` JSON."""
    return _dumps([_message(message) for message in messages])


def output_messages(message: Mapping[str, Any], finish_reason: str | None) -> str:
    """The answer as `gen_ai.output.messages` JSON."""
    converted = _message(message)
    converted["finish_reason"] = finish_reason or ""
    return _dumps([converted])


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    role = str(message.get("role", ""))
    parts: list[dict[str, Any]] = []
    if role == "tool":
        parts.append(
            {
                "type": "tool_call_response",
                "id": message.get("tool_call_id"),
                "response": message.get("content"),
            }
        )
    else:
        parts.extend(_content_parts(message.get("content")))
    for call in message.get("tool_calls") or ():
        if not isinstance(call, Mapping):
            continue
        function = call.get("function") or {}
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": function.get("arguments"),
            }
        )
    return {"role": role, "parts": parts}


def _content_parts(content: Any) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else ():
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text":
            parts.append({"type": "text", "content": part.get("text")})
        else:
            parts.append({"type": str(kind)})
    return parts


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
