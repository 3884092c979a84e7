"""A paused run's state resumes once: again, from two threads or two processes, it raises."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import (
    AlreadyResumed,
    ApprovalRequired,
    AsyncToolCallClient,
    InMemoryResumeLedger,
    ResumeError,
    ResumeLedger,
    SQLiteResumeLedger,
    ToolCallClient,
    ToolCallError,
)
from toolcall_sdk.errors import InvalidArgumentError
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory
from ._resume_worker import payment_tool

PAY = {"account": "A-1", "amount_vnd": 500}


@pytest.fixture
def executions(tmp_path: Path) -> Path:
    """One line per execution of the payment, whichever process ran it."""
    return tmp_path / "executions.txt"


@pytest.fixture
def send_payment(executions: Path) -> Any:
    return payment_tool(executions)


def ran(executions: Path) -> list[str]:
    return executions.read_text().splitlines() if executions.exists() else []


def pause(make: Callable[..., Any], send_payment: Any, **options: Any) -> ApprovalRequired:
    """A run paused before its payment; resuming it answers "Paid." (one scripted reply)."""
    model = ScriptedModel([tool_call("send_payment", PAY)])
    with pytest.raises(ApprovalRequired) as paused:
        make(model, [send_payment], **options).run("Pay 500 VND from A-1", max_steps=2)
    return paused.value


def resumer(make: Callable[..., Any], send_payment: Any, **options: Any) -> Any:
    return make(ScriptedModel([text("Paid.")]), [send_payment], **options)


def test_a_second_resume_raises_and_runs_nothing(
    make_client: ClientFactory, send_payment: Any, executions: Path
) -> None:
    paused = pause(make_client, send_payment)
    model = ScriptedModel([text("Paid."), text("Paid again.")])
    client = make_client(model, [send_payment])

    assert client.resume(paused.state, approvals={"call_1": True}).content == "Paid."
    with pytest.raises(AlreadyResumed) as again:
        client.resume(paused.state, approvals={"call_1": True})

    assert len(ran(executions)) == 1
    assert len(model.chat_requests) == 1  # the second resume sent nothing
    error = again.value
    assert isinstance(error, ResumeError)
    assert isinstance(error, ToolCallError)
    assert error.state_id == paused.state_id == json.loads(paused.state)["id"]
    assert paused.state_id in str(error)
    assert "already resumed" in str(error)


def test_a_denial_consumes_the_state_too(
    make_client: ClientFactory, send_payment: Any, executions: Path
) -> None:
    paused = pause(make_client, send_payment)
    client = resumer(make_client, send_payment)

    client.resume(paused.state, approvals={"call_1": False})
    with pytest.raises(AlreadyResumed):  # no approving what a person already refused
        client.resume(paused.state, approvals={"call_1": True})

    assert ran(executions) == []


def test_approvals_that_do_not_fit_leave_the_state_unused(
    make_client: ClientFactory, send_payment: Any, executions: Path
) -> None:
    paused = pause(make_client, send_payment)
    client = resumer(make_client, send_payment)

    with pytest.raises(ResumeError, match="no decision"):
        client.resume(paused.state, approvals={})
    result = client.resume(paused.state, approvals={"call_1": True})

    assert result.content == "Paid."
    assert len(ran(executions)) == 1


def test_two_pauses_of_the_same_conversation_are_two_states(
    make_client: ClientFactory, send_payment: Any, executions: Path
) -> None:
    first = pause(make_client, send_payment)
    second = pause(make_client, send_payment)
    client = make_client(ScriptedModel([text("Paid.")] * 2), [send_payment])

    client.resume(first.state, approvals={"call_1": True})
    client.resume(second.state, approvals={"call_1": True})

    assert first.state_id != second.state_id
    assert len(ran(executions)) == 2


def test_a_ledger_that_fails_leaves_the_state_unused(
    make_client: ClientFactory, send_payment: Any, executions: Path
) -> None:
    class Flaky:
        def __init__(self) -> None:
            self.inner = InMemoryResumeLedger()
            self.down = True

        def claim(self, state_id: str) -> bool:
            if self.down:
                raise OSError("disk full")
            return self.inner.claim(state_id)

    ledger = Flaky()
    paused = pause(make_client, send_payment)
    client = resumer(make_client, send_payment, resume_ledger=ledger)

    with pytest.raises(ResumeError, match=r"could not record.*OSError: disk full") as failed:
        client.resume(paused.state, approvals={"call_1": True})
    assert not isinstance(failed.value, AlreadyResumed)
    assert ran(executions) == []
    ledger.down = False
    assert client.resume(paused.state, approvals={"call_1": True}).content == "Paid."
    assert isinstance(ledger, ResumeLedger)


def test_the_default_ledger_is_per_client_and_a_shared_one_spans_clients(
    make_client: ClientFactory, send_payment: Any, executions: Path, tmp_path: Path
) -> None:
    paused = pause(make_client, send_payment)
    resumer(make_client, send_payment).resume(paused.state, approvals={"call_1": True})
    # Another client with its own in-memory ledger does not know the state was used.
    resumer(make_client, send_payment).resume(paused.state, approvals={"call_1": True})
    assert len(ran(executions)) == 2

    shared = SQLiteResumeLedger(tmp_path / "resumed.db")
    again = pause(make_client, send_payment)
    resumer(make_client, send_payment, resume_ledger=shared).resume(
        again.state, approvals={"call_1": True}
    )
    reopened = SQLiteResumeLedger(tmp_path / "resumed.db")  # a restarted process
    with pytest.raises(AlreadyResumed):
        resumer(make_client, send_payment, resume_ledger=reopened).resume(
            again.state, approvals={"call_1": True}
        )
    assert len(ran(executions)) == 3
    assert again.state_id in reopened
    assert paused.state_id not in reopened


def test_a_ledger_must_have_claim(make_client: ClientFactory, send_payment: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="resume_ledger must have a claim"):
        make_client(ScriptedModel([]), [send_payment], resume_ledger=set())


@pytest.mark.parametrize("ledger", ["memory", "sqlite"])
def test_two_threads_resuming_one_state_run_it_once(
    make_sync_client: ClientFactory,
    send_payment: Any,
    executions: Path,
    tmp_path: Path,
    ledger: str,
) -> None:
    paused = pause(make_sync_client, send_payment)
    if ledger == "memory":  # one client, its default ledger
        client = resumer(make_sync_client, send_payment)
        clients = [client, client]
    else:  # two clients on one file
        shared = SQLiteResumeLedger(tmp_path / "resumed.db")
        clients = [resumer(make_sync_client, send_payment, resume_ledger=shared) for _ in "ab"]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def resume(client: ToolCallClient) -> None:
        start.wait()
        try:
            client.resume(paused.state, approvals={"call_1": True})
        except AlreadyResumed:
            outcomes.append("already-resumed")
        else:
            outcomes.append("ran")

    threads = [threading.Thread(target=resume, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(outcomes) == ["already-resumed", "ran"]
    assert len(ran(executions)) == 1


def test_two_tasks_of_the_async_client_resuming_one_state_run_it_once(
    make_sync_client: ClientFactory,
    make_async_client: Callable[..., AsyncToolCallClient],
    send_payment: Any,
    executions: Path,
) -> None:
    paused = pause(make_sync_client, send_payment)

    async def both() -> list[Any]:
        client = make_async_client(ScriptedModel([text("Paid.")]), [send_payment])
        try:
            return await asyncio.gather(
                *(client.resume(paused.state, approvals={"call_1": True}) for _ in "ab"),
                return_exceptions=True,
            )
        finally:
            await client.close()

    outcomes = asyncio.run(both())

    assert sorted(type(o).__name__ for o in outcomes) == ["AlreadyResumed", "ToolCallResult"]
    assert len(ran(executions)) == 1


def test_two_processes_sharing_a_ledger_file_resume_each_state_once(
    make_sync_client: ClientFactory, send_payment: Any, executions: Path, tmp_path: Path
) -> None:
    rounds = 3
    states = [pause(make_sync_client, send_payment).state for _ in range(rounds)]
    states_file = tmp_path / "states.json"
    states_file.write_text(json.dumps(states))
    worker = Path(__file__).with_name("_resume_worker.py")
    root = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    args = [sys.executable, str(worker), str(tmp_path / "resumed.db"), str(states_file)]
    processes = [
        subprocess.Popen(
            [*args, str(executions)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outcomes: list[list[str]] = []
    try:
        for _ in range(rounds):
            # Both are ready to resume the same state before either is let go.
            for process in processes:
                assert process.stdout is not None
                assert process.stdout.readline().strip() == "ready"
            for process in processes:
                assert process.stdin is not None
                process.stdin.write("go\n")
                process.stdin.flush()
            outcomes.append(sorted(p.stdout.readline().strip() for p in processes if p.stdout))
        for process in processes:
            process.communicate(timeout=60)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()

    assert outcomes == [["already-resumed", "ran"]] * rounds
    lines = ran(executions)
    assert len(lines) == rounds  # each state's payment once, whichever process won
    assert [p.returncode for p in processes] == [0, 0]


@pytest.mark.parametrize("method", ["resume", "stream_resume"])
def test_a_locked_ledger_file_gives_up_at_the_deadline_and_leaves_the_state_unused(
    make_client: ClientFactory,
    send_payment: Any,
    executions: Path,
    tmp_path: Path,
    method: str,
) -> None:
    path = tmp_path / "resumed.db"
    ledger = SQLiteResumeLedger(path)  # waits up to 30 s for a writer by itself
    paused = pause(make_client, send_payment)
    client = resumer(make_client, send_payment, resume_ledger=ledger, deadline=0.5)
    # Another process's write transaction on the file, not finished.
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(ResumeError) as failed:
            list(getattr(client, method)(paused.state, approvals={"call_1": True}))
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    assert waited < 15  # bounded by the deadline (0.5 s), not by the ledger's 30 s
    error = failed.value
    assert not isinstance(error, AlreadyResumed)
    assert "within the call's deadline (0.5 s)" in str(error)
    assert "database is locked" in str(error)
    assert isinstance(error.__cause__, sqlite3.OperationalError)
    assert ran(executions) == []
    assert paused.state_id not in ledger
    # The lock is gone: the same state resumes, once.
    again = resumer(make_client, send_payment, resume_ledger=ledger)
    assert again.resume(paused.state, approvals={"call_1": True}).content == "Paid."
    assert len(ran(executions)) == 1


def test_a_claim_of_a_built_in_ledger_waits_at_most_its_timeout(tmp_path: Path) -> None:
    path = tmp_path / "resumed.db"
    ledger = SQLiteResumeLedger(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            ledger.claim("state-1", timeout=0.0)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert ledger.claim("state-1", timeout=0.0)
    assert "state-1" in ledger

    memory = InMemoryResumeLedger()
    assert memory.claim("state-1", timeout=0.0)
    assert not memory.claim("state-1", timeout=0.0)
