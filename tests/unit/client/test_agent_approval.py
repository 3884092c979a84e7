"""Approvals: a run pauses before a `requires_approval` call and resumes from JSON state."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from toolcall_sdk import ApprovalRequired, ResumeError, RunStopped, tool
from toolcall_sdk.testing import RecordedRequest, ScriptedModel, parallel, text, tool_call

from ..conftest import ClientFactory, Ledger


def verdicts(*answers: bool) -> Callable[[RecordedRequest], bool]:
    queue = list(answers)
    return lambda request: queue.pop(0)


@pytest.fixture
def get_balance(ledger: Ledger) -> Any:
    @tool
    def get_balance(account: str) -> int:
        """An account's balance in VND."""
        ledger.calls.append(("get_balance", {"account": account}))
        return 900

    return get_balance


@pytest.fixture
def send_payment(ledger: Ledger) -> Any:
    @tool(requires_approval=True)
    def send_payment(account: str, amount_vnd: int) -> str:
        """Send a payment from an account."""
        ledger.calls.append(("send_payment", {"account": account, "amount_vnd": amount_vnd}))
        return "PAY-1"

    return send_payment


def pay_script() -> ScriptedModel:
    return ScriptedModel(
        [
            parallel(
                tool_call("get_balance", {"account": "A-1"}),
                tool_call("send_payment", {"account": "A-1", "amount_vnd": 500}),
            ),
            text("Paid 500 VND from A-1."),
        ],
        route_answer=verdicts(True, False),
    )


def pause(client: Any) -> ApprovalRequired:
    with pytest.raises(ApprovalRequired) as paused:
        client.run("Pay 500 VND from A-1", max_steps=4)
    return paused.value


def test_nothing_runs_before_approval_and_the_state_is_plain_json(
    make_client: ClientFactory, get_balance: Any, send_payment: Any, ledger: Ledger
) -> None:
    model = pay_script()
    client = make_client(model, [get_balance, send_payment], router="probe")

    paused = pause(client)

    assert ledger.calls == []  # not even the call that needs no approval
    assert [(p.id, p.name, p.arguments, p.raw_arguments) for p in paused.pending] == [
        (
            "call_2",
            "send_payment",
            {"account": "A-1", "amount_vnd": 500},
            '{"account": "A-1", "amount_vnd": 500}',
        ),
    ]
    assert isinstance(paused, RunStopped)
    [step] = paused.steps
    assert [(c.name, c.executed) for c in step.calls] == [
        ("get_balance", False),
        ("send_payment", False),
    ]
    state = json.loads(paused.state)
    assert state["pending"] == ["call_2"]
    assert state["limits"]["max_steps"] == 4
    assert state["messages"] == [{"role": "user", "content": "Pay 500 VND from A-1"}]
    assert [r.stage for r in model.chat_requests] == ["route", "call"]
    assert "client.resume" in str(paused)


def test_resume_after_a_json_round_trip_runs_exactly_the_approved_calls(
    make_client: ClientFactory, get_balance: Any, send_payment: Any, ledger: Ledger
) -> None:
    model = pay_script()
    client = make_client(model, [get_balance, send_payment], router="probe")
    paused = pause(client)
    stored = json.dumps(json.loads(paused.state), indent=2)  # stored and read back as JSON

    result = client.resume(stored, approvals={"call_2": True})

    assert ledger.calls == [
        ("get_balance", {"account": "A-1"}),
        ("send_payment", {"account": "A-1", "amount_vnd": 500}),
    ]
    assert result.content == "Paid 500 VND from A-1."
    assert [r.stage for r in model.chat_requests] == ["route", "call", "route", "answer"]
    assert model.calls_for("answer")[0].messages[-2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "900"},
        {"role": "tool", "tool_call_id": "call_2", "content": "PAY-1"},
    ]
    assert [s.number for s in result.steps] == [1, 2]
    assert [a.number for a in result.steps[0].attempts] == [1]
    assert [c.output for c in result.calls] == [900, "PAY-1"]
    assert result.usage.total_tokens >= sum(s.usage.total_tokens for s in result.steps)


def test_a_denied_call_goes_back_to_the_model_and_never_runs(
    make_client: ClientFactory, get_balance: Any, send_payment: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("get_balance", {"account": "A-1"}),
                tool_call("send_payment", {"account": "A-1", "amount_vnd": 500}),
            ),
            text("The payment was not made."),
        ],
        route_answer=verdicts(True, False),
    )
    client = make_client(model, [get_balance, send_payment], router="probe")
    paused = pause(client)

    result = client.resume(paused.state, approvals={"call_2": False})

    assert ledger.calls == [("get_balance", {"account": "A-1"})]
    denied = result.steps[0].calls[1]
    assert (denied.executed, denied.skipped) == (False, "denied")
    assert model.calls_for("answer")[0].messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "DENIED: the user did not approve this call to send_payment, so it was not "
        "run. Do not call it again unless the user asks; tell the user it was not done.",
    }
    assert [c.name for c in result.calls] == ["get_balance"]
    assert result.content == "The payment was not made."


def test_a_single_step_run_pauses_and_resumes_as_one_step(
    make_client: ClientFactory, send_payment: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("send_payment", {"account": "A-1", "amount_vnd": 5})])
    client = make_client(model, [send_payment])

    with pytest.raises(ApprovalRequired) as paused:
        client.run("pay 5")
    result = client.resume(paused.value.state, approvals={"call_1": True})

    assert result.call.output == "PAY-1"
    assert ledger.count("send_payment") == 1
    assert len(model.chat_requests) == 1


def test_a_state_paused_by_one_twin_resumes_in_the_other(
    make_sync_client: ClientFactory,
    make_async_client: Callable[..., Any],
    send_payment: Any,
    ledger: Ledger,
) -> None:
    import asyncio

    model = ScriptedModel([tool_call("send_payment", {"account": "A-1", "amount_vnd": 5})])
    with pytest.raises(ApprovalRequired) as paused:
        make_sync_client(model, [send_payment]).run("pay 5")

    async def resume() -> Any:
        client = make_async_client(model, [send_payment])
        try:
            return await client.resume(paused.value.state, approvals={"call_1": True})
        finally:
            await client.close()

    result = asyncio.run(resume())

    assert result.call.output == "PAY-1"
    assert ledger.count("send_payment") == 1


@pytest.mark.parametrize(
    ("approvals", "message"),
    [
        ({"call_9": True}, r"call id\(s\) \['call_9'\] that are not pending.*\['call_2'\]"),
        ({}, r"no decision for pending call\(s\) \['call_2'\]"),
        ({"call_2": "yes"}, "must be True or False"),
        ([("call_2", True)], "approvals must be a mapping"),
    ],
)
def test_approvals_must_answer_exactly_the_pending_calls(
    make_client: ClientFactory,
    get_balance: Any,
    send_payment: Any,
    ledger: Ledger,
    approvals: Any,
    message: str,
) -> None:
    model = pay_script()
    client = make_client(model, [get_balance, send_payment], router="probe")
    paused = pause(client)

    with pytest.raises(ResumeError, match=message):
        client.resume(paused.state, approvals=approvals)

    assert ledger.calls == []
    assert len(model.chat_requests) == 2


def altered(state: str) -> str:
    data = json.loads(state)
    data["message"]["tool_calls"][1]["function"]["arguments"] = (
        '{"account": "A-1", "amount_vnd": 5000000}'
    )
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (altered, "altered after the run paused"),
        (lambda state: state[: len(state) // 2], "not JSON"),
        (lambda state: json.dumps({"kind": "other"}), "not a paused run"),
        (
            lambda state: json.dumps({**json.loads(state), "version": 99}),
            "version 99",
        ),
        (lambda state: 42, "must be the JSON string"),
    ],
)
def test_a_tampered_or_foreign_state_is_refused(
    make_client: ClientFactory,
    get_balance: Any,
    send_payment: Any,
    ledger: Ledger,
    change: Callable[[str], Any],
    message: str,
) -> None:
    model = pay_script()
    client = make_client(model, [get_balance, send_payment], router="probe")
    paused = pause(client)

    with pytest.raises(ResumeError, match=message):
        client.resume(change(paused.state), approvals={"call_2": True})

    assert ledger.calls == []


def test_a_state_naming_tools_the_client_lacks_is_refused(
    make_client: ClientFactory, get_balance: Any, send_payment: Any
) -> None:
    model = pay_script()
    paused = pause(make_client(model, [get_balance, send_payment], router="probe"))
    other = make_client(model, [get_balance])

    with pytest.raises(ResumeError, match=r"\['send_payment'\] that this client does not have"):
        other.resume(paused.state, approvals={"call_2": True})
