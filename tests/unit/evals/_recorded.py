"""Traffic entries written by hand, in the recorder's version-1 format, and a model for them.

The entries are what the SDK's recorder writes (docs/traffic-evals.md): the tools as the
client declared them (pydantic's schema: an optional field is `anyOf [..., null]` with a
default), the validated calls dumped whole (optional fields included, as null).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolcall_sdk.testing import RecordedRequest, Reply, text, tool_call

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            },
            "required": ["city"],
        },
    },
}
ORDER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_order_status",
        "description": "Status of an order.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string", "pattern": r"^ORD-\d{5}$"}},
            "required": ["order_id"],
        },
    },
}
TOOLS = [WEATHER, ORDER]


def entry(
    number: int,
    user: str,
    status: str,
    *,
    calls: Sequence[dict[str, Any]] = (),
    problems: Sequence[dict[str, Any]] = (),
    content: str | None = None,
    failure_class: str | None = None,
    operation: str = "call",
    tools: Sequence[dict[str, Any]] = TOOLS,
    messages: Sequence[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One entry; `number` makes its id (`<number:02x>` then fixed hex) and its minute."""
    error = None
    if status == "failed":
        error = "ToolCallFailed: no valid call after 3 attempts"
    elif status == "error":
        error = "ServerTimeoutError: no answer within 120s"
    return {
        "version": 1,
        "id": f"{number:02x}5e1f0c9a2b7d4e8f6a3c1b0d9e",
        "time": f"2026-12-01T10:{number:02d}:00.000000+00:00",
        "source": "client",
        "operation": operation,
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "messages": list(messages or [{"role": "user", "content": user}]),
        "tools": list(tools),
        "settings": {"router": "llm", "max_retries": 2},
        "outcome": {
            "status": status,
            "calls": list(calls),
            "content": content,
            "error": error,
            "problems": list(problems),
            "attempts": 3 if status == "failed" else 1,
        },
        "failure_class": failure_class,
        "usage": {"prompt_tokens": 180, "completion_tokens": 20},
        "latency_s": 0.4,
    }


def weather_call(city: str, days: int | None = None) -> dict[str, Any]:
    return {"name": "get_weather", "arguments": {"city": city, "days": days}}


def order_call(order_id: str) -> dict[str, Any]:
    return {"name": "get_order_status", "arguments": {"order_id": order_id}}


def bad_order(order_id: str) -> dict[str, Any]:
    """The problem the recorder writes when the order id never validated."""
    return {
        "kind": "validation",
        "message": f"order_id: String should match pattern '^ORD-\\d{{5}}$' (got {order_id!r})",
        "tool_name": "get_order_status",
    }


def write_traffic(
    folder: Path, entries: Sequence[dict[str, Any]], name: str = "traffic.jsonl"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with path.open("a", encoding="utf-8") as handle:
        for item in entries:
            handle.write(json.dumps(item) + "\n")
    return path


def read_cases(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def user_text(request: RecordedRequest) -> str:
    """What the user asked (the first user message: feedback comes after it)."""
    return str(next(m["content"] for m in request.messages if m["role"] == "user"))


def answer(request: RecordedRequest) -> Reply:
    """A model that reads the request: the order id or the city it names, text otherwise.

    Forced to call (`required`) with nothing to call about, it asks about an order anyway.
    """
    words = user_text(request).replace("?", " ").split()
    orders = [w for w in words if w.startswith("ORD-")]
    if orders:
        return tool_call("get_order_status", {"order_id": orders[0]})
    if "in" in words and words.index("in") + 1 < len(words):
        return tool_call("get_weather", {"city": words[words.index("in") + 1]})
    if request.tool_choice == "required":
        return tool_call("get_order_status", {"order_id": "ORD-00000"})
    return text("You're welcome!")
