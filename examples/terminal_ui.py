"""Streaming into a terminal UI: a live table of attempts, calls and their arguments as they arrive.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
        python examples/terminal_ui.py

Draws `client.stream()`'s events with rich's `Live` (rich comes with the `cli` extra, or
`pip install rich`): each attempt's call appears when the model starts it, its arguments
grow as they stream, and the row turns red with the feedback sent or green once validated.
Without a terminal (in CI, or piped) the final table is printed once.

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model on a local port, whose
streams arrive a few bytes at a time: the first answer's due date is in the past and is
rejected, the second is accepted.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
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
    install_command,
    tool,
)

try:
    from rich.console import Group
    from rich.live import Live
    from rich.table import Table
    from rich.text import Text
except ImportError:  # one line naming the install for this copy, not a traceback
    print(
        "examples/terminal_ui.py needs 'rich', which is not installed: run "
        f"`{install_command('cli')}` (or `pip install rich`)",
        file=sys.stderr,
    )
    raise SystemExit(2) from None


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


@dataclass
class Row:
    """One call of one attempt, as drawn."""

    attempt: int
    name: str
    arguments: str = ""
    status: Text = field(default_factory=lambda: Text("streaming...", style="yellow"))


@dataclass
class Screen:
    """What the UI shows, updated event by event; `render()` draws it."""

    request: str
    rows: dict[tuple[int, int], Row] = field(default_factory=dict)
    text: str = ""
    footer: str = ""

    def update(self, event: ToolCallEvent) -> None:
        match event:
            case ContentDelta(text=piece):
                self.text += piece
            case ToolCallStarted(index=index, name=name, attempt=attempt):
                self.rows[attempt, index] = Row(attempt, name)
            case ToolArgumentsDelta(index=index, text=piece, attempt=attempt):
                self.rows[attempt, index].arguments += piece
            case AttemptFailed(attempt=failed):
                reasons = "; ".join(p.message for p in failed.problems)
                for (number, _), row in self.rows.items():
                    if number == failed.number:
                        row.status = Text(f"rejected: {reasons}", style="red")
            case ToolCallValidated(call=call, attempt=attempt):
                for (number, _), row in self.rows.items():
                    if number == attempt and row.name == call.name:
                        row.status = Text("validated", style="green")
            case StreamCompleted(result=result):
                self.footer = (
                    f"done: {len(result.attempts)} attempt(s), {len(result.calls)} call(s)"
                )

    def render(self) -> Group:
        table = Table(title=self.request, expand=True)
        table.add_column("attempt", justify="right")
        table.add_column("call")
        table.add_column("arguments", overflow="fold")
        table.add_column("status", overflow="fold")
        for row in self.rows.values():
            table.add_row(str(row.attempt), row.name, row.arguments, row.status)
        parts: list[Any] = [table]
        if self.text.strip():
            parts.append(Text(f"text: {self.text.strip()}", style="dim"))
        if self.footer:
            parts.append(Text(self.footer, style="bold"))
        return Group(*parts)


@contextlib.contextmanager
def server() -> Iterator[tuple[str, str]]:
    """The server's base URL and model name: yours, or the scripted one."""
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        yield base_url, os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct")
        return
    from toolcall_sdk.testing import ScriptedModel, tool_call, trickle

    invoice = {"customer_id": "CUS-000042", "amount_vnd": 1500000}
    scripted = ScriptedModel(
        [
            trickle(tool_call("create_invoice", {**invoice, "due_date": "2020-01-31"}), piece=128),
            trickle(tool_call("create_invoice", {**invoice, "due_date": "2030-12-31"}), piece=128),
        ],
        chunk_size=4,
    )
    with scripted.serve() as url:
        yield url, "scripted"


def main() -> None:
    request = "Invoice customer CUS-000042 for 1500000 VND, due 2030-12-31."
    screen = Screen(request)
    with server() as (base_url, model):
        # The tiny CPU demo model was not trained on the router's question.
        client = ToolCallClient(
            base_url=base_url, model=model, tools=[create_invoice], router="always"
        )
        with client, Live(screen.render(), refresh_per_second=12) as live:
            for event in client.stream(request):
                screen.update(event)
                live.update(screen.render())


if __name__ == "__main__":
    main()
