"""A process that resumes paused runs from a shared SQLite ledger (for test_resume_once.py).

    python _resume_worker.py LEDGER STATES EXECUTIONS

For each state in the JSON list in STATES it prints `ready`, waits for a line on stdin,
resumes the state (approving every pending call) and prints `ran` or `already-resumed`.
The business function appends one line per execution to EXECUTIONS, so the parent counts
what ran across processes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from toolcall_sdk import AlreadyResumed, SQLiteResumeLedger, Tool, ToolCallClient, tool
from toolcall_sdk.testing import ScriptedModel, text


def payment_tool(executions: Path) -> Tool[..., str]:
    """The tool the paused runs wait on: each execution leaves a line in `executions`."""

    @tool(requires_approval=True)
    def send_payment(account: str, amount_vnd: int) -> str:
        """Send a payment from an account."""
        with executions.open("a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {account} {amount_vnd}\n")
        return "PAY-1"

    return send_payment


def main(ledger_path: str, states_path: str, executions_path: str) -> None:
    states = json.loads(Path(states_path).read_text(encoding="utf-8"))
    ledger = SQLiteResumeLedger(ledger_path)
    send_payment = payment_tool(Path(executions_path))
    for state in states:
        model = ScriptedModel([text("Paid.")])
        client = ToolCallClient(
            base_url=model.base_url,
            model="test-model",
            tools=[send_payment],
            http_client=model.http_client(),
            router="always",
            resume_ledger=ledger,
        )
        pending = [call["id"] for call in json.loads(state)["message"]["tool_calls"]]
        print("ready", flush=True)
        sys.stdin.readline()
        try:
            result = client.resume(state, approvals=dict.fromkeys(pending, True))
        except AlreadyResumed:
            print("already-resumed", flush=True)
        else:
            print("ran" if result.content == "Paid." else f"odd {result.content!r}", flush=True)
        client.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
