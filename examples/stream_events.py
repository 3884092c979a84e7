"""Streaming a tool call to a UI with `client.stream()`.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
        python examples/stream_events.py

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model on a local port (a real
SSE stream, two characters per chunk). The scripted server behaves like one started with the
wrong `--tool-call-parser`: its first answer leaves the call in the text as `<tool_call>`
markup, cut across chunks, with a due date in the past; the SDK shows it as call events
(never as text), rejects it, and the second answer is accepted.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from datetime import date
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from toolcall_sdk import (
    AttemptFailed,
    ContentDelta,
    StreamCompleted,
    ToolArgumentsDelta,
    ToolCallClient,
    ToolCallEvent,
    ToolCallStarted,
    ToolCallValidated,
    tool,
)


def not_in_past(value: date) -> date:
    if value < date.today():
        raise ValueError("must not be in the past")
    return value


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: Annotated[date, AfterValidator(not_in_past)],
) -> dict[str, Any]:
    """Create an invoice for a customer.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
        amount_vnd: Amount in Vietnamese dong.
        due_date: Payment due date (YYYY-MM-DD).
    """
    return {"invoice_id": "INV-0001", "customer_id": customer_id}


def leaked(arguments: dict[str, Any]) -> str:
    call = json.dumps({"name": "create_invoice", "arguments": arguments})
    return f"Creating the invoice.\n<tool_call>\n{call}\n</tool_call>"


@contextlib.contextmanager
def server() -> Iterator[tuple[str, str]]:
    """The server's base URL and model name: yours, or the scripted one."""
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        yield base_url, os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct")
        return
    from toolcall_sdk.testing import ScriptedModel, text

    invoice = {"customer_id": "CUS-000042", "amount_vnd": 1500000}
    scripted = ScriptedModel(
        [
            text(leaked({**invoice, "due_date": "2020-01-31"})),
            text(leaked({**invoice, "due_date": "2030-12-31"})),
        ],
        chunk_size=2,
    )
    with scripted.serve() as url:
        yield url, "scripted"


def main() -> None:
    request = "Invoice customer CUS-000042 for 1500000 VND, due 2030-12-31."
    with server() as (base_url, model):
        client = ToolCallClient(
            base_url=base_url,
            model=model,
            tools=[create_invoice],
            # The tiny CPU demo model was not trained on the router's question.
            router="always",
            # "auto" lets a server's parser miss show; the SDK recovers the call either way.
            tool_choice="auto",
        )
        with client:
            for event in client.stream(request):
                show(event)


def show(event: ToolCallEvent) -> None:
    """What a chat UI would draw: text and argument pieces inline, decisions on their own."""
    if isinstance(event, ContentDelta):
        print(event.text, end="", flush=True)
    elif isinstance(event, ToolCallStarted):
        print(f"[attempt {event.attempt}: {event.name}, id {event.id}] ", end="", flush=True)
    elif isinstance(event, ToolArgumentsDelta):
        print(event.text, end="", flush=True)
    elif isinstance(event, AttemptFailed):
        problems = [p.message for p in event.attempt.problems]
        print(f"\n[attempt {event.attempt.number} rejected: {problems}]")
    elif isinstance(event, ToolCallValidated):
        print(f"\n[validated: {event.call.name}({event.call.arguments!r})]")
    elif isinstance(event, StreamCompleted):
        result = event.result
        misses = [a.number for a in result.attempts if a.parser_miss]
        print(f"[done after {len(result.attempts)} attempt(s); parser_miss in {misses}]")


if __name__ == "__main__":
    main()
