"""Escalation to a human queue: when the model never gets the arguments right, a person takes over.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
        python examples/escalation.py

`on_escalate=` receives the `ToolCallFailed` (every attempt, and the guarantee that no
business function ran), puts a ticket on the queue people work from, and returns the answer
the caller gets instead of an exception. Here the queue is a `queue.Queue` that a desk thread
works through; in production it is a table, a ticket system or a message broker: the ticket
is plain JSON.

Without TOOLCALL_BASE_URL it runs offline against the scripted model, which always sends an
amount of 0. Against a server, the request asks for a charge of 0 VND, which the tool's
`amount_vnd > 0` never accepts.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from pydantic import Field

from toolcall_sdk import Attempt, ToolCallClient, ToolCallFailed, ToolCallResult, tool

charged: list[int] = []
# The request being handled, for the ticket: on_escalate sees the failure, not the request.
current_request: ContextVar[str] = ContextVar("current_request")


@tool
def charge(amount_vnd: Annotated[int, Field(gt=0)]) -> str:
    """Charge the customer's card.

    Args:
        amount_vnd: Amount in Vietnamese dong, above 0.
    """
    charged.append(amount_vnd)
    return "charged"


@dataclass
class Ticket:
    """What a person needs to take over: the request and what the model tried."""

    number: int
    request: str
    attempts: list[dict[str, Any]]


class HumanQueue:
    """Tickets for people, filled by `escalate` (the client's `on_escalate`)."""

    def __init__(self) -> None:
        self.tickets: queue.Queue[Ticket | None] = queue.Queue()
        self._count = 0

    def escalate(self, failed: ToolCallFailed) -> ToolCallResult:
        self._count += 1
        attempts = [summary(attempt) for attempt in failed.attempts]
        self.tickets.put(Ticket(self._count, current_request.get(""), attempts))
        return ToolCallResult(
            called=False,
            content=f"A person will take over this request (ticket #{self._count}).",
            attempts=failed.attempts,
        )


def summary(attempt: Attempt) -> dict[str, Any]:
    """One attempt as a person reads it: the arguments the model sent and why they failed."""
    calls = attempt.raw_message.get("tool_calls") or []
    return {
        "number": attempt.number,
        "arguments": [call.get("function", {}).get("arguments") for call in calls],
        "problems": [problem.message for problem in attempt.problems],
    }


def desk(tickets: queue.Queue[Ticket | None]) -> None:
    """A person's desk: takes tickets in order until told to stop."""
    while (ticket := tickets.get()) is not None:
        print(f"desk: ticket #{ticket.number}: {json.dumps(asdict(ticket))}")
        tickets.task_done()
    tickets.task_done()


def make_client(humans: HumanQueue) -> ToolCallClient:
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    options: dict[str, Any] = {
        "tools": [charge],
        "router": "always",
        "max_retries": 2,
        "on_escalate": humans.escalate,
    }
    if base_url:
        return ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            **options,
        )
    from toolcall_sdk.testing import ScriptedModel, tool_call

    model = ScriptedModel(lambda request: tool_call("charge", {"amount_vnd": 0}))
    return ToolCallClient(
        base_url=model.base_url, model="scripted", http_client=model.http_client(), **options
    )


def main() -> None:
    humans = HumanQueue()
    worker = threading.Thread(target=desk, args=(humans.tickets,))
    worker.start()
    request = "Charge the customer's card 0 VND."
    token = current_request.set(request)
    try:
        with make_client(humans) as client:
            result = client.run(request)
    finally:
        current_request.reset(token)
        humans.tickets.put(None)
        worker.join()
    print(result.content)
    print(f"stage-2 requests: {len(result.attempts)}, business executions: {len(charged)}")


if __name__ == "__main__":
    main()
