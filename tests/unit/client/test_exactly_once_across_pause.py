"""Exactly once across an approval pause, and one decision per call.

A call that ran in a step is remembered by the step, in the paused state too: after
`resume()` a repeat of it is answered with its outcome, never run again. A call equal to one
a person decided in the step is held to that decision. Calls the server sent under the same
id get ids of their own before anything pauses or runs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk import ApprovalRequired, ModelRetry, tool
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

from ..conftest import ClientFactory, Ledger


def _tools(ledger: Ledger) -> list[Any]:
    @tool
    def charge(order_id: str) -> str:
        """Charge an order."""
        ledger.calls.append(("charge", {"order_id": order_id}))
        return f"charged {order_id}"

    @tool
    def notify(customer_id: str) -> str:
        """Tell a customer."""
        ledger.calls.append(("notify", {"customer_id": customer_id}))
        if customer_id != "CUS-1":
            raise ModelRetry("unknown customer; ids look like CUS-1")
        return "sent"

    @tool(requires_approval=True)
    def refund(amount: int) -> str:
        """Refund an amount."""
        ledger.calls.append(("refund", {"amount": amount}))
        return f"refunded {amount}"

    return [charge, notify, refund]


def _pause(client: Any, prompt: str = "charge A1, refund 5, tell the customer") -> Any:
    with pytest.raises(ApprovalRequired) as paused:
        client.run(prompt, max_steps=3)
    return paused.value


def test_a_call_that_ran_before_the_pause_does_not_run_again_after_resume(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("charge", {"order_id": "A1"}, id="c1"),
                tool_call("notify", {"customer_id": "bob"}, id="c2"),
            ),
            # The retry repeats the charge next to a call that needs approval.
            parallel(
                tool_call("charge", {"order_id": "A1"}, id="c3"),
                tool_call("refund", {"amount": 5}, id="c4"),
            ),
            text("Done."),
        ]
    )
    client = make_client(model, _tools(ledger))
    paused = _pause(client)
    assert ledger.calls == [("charge", {"order_id": "A1"}), ("notify", {"customer_id": "bob"})]
    assert [call.id for call in paused.pending] == ["c4"]
    assert [call.id for call in paused.executed] == ["c1"]

    result = client.resume(json.dumps(json.loads(paused.state)), approvals={"c4": True})

    assert ledger.count("charge") == 1
    assert ledger.count("refund") == 1
    assert result.content == "Done."
    assert [(c.id, c.reused_from) for c in result.calls] == [
        ("c1", None),
        ("c3", "c1"),
        ("c4", None),
    ]
    # The repeat is answered with the first run's tool message, exactly.
    answer = model.calls_for("call")[-1].messages
    assert {"role": "tool", "tool_call_id": "c3", "content": "charged A1"} in answer
    assert {"role": "tool", "tool_call_id": "c4", "content": "refunded 5"} in answer


def test_an_approved_call_repeated_by_a_retry_runs_once_without_a_second_approval(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("refund", {"amount": 5}, id="r1"),
                tool_call("notify", {"customer_id": "bob"}, id="n1"),
            ),
            parallel(
                tool_call("refund", {"amount": 5}, id="r2"),
                tool_call("notify", {"customer_id": "CUS-1"}, id="n2"),
            ),
            text("Refunded."),
        ]
    )
    client = make_client(model, _tools(ledger))
    paused = _pause(client)

    result = client.resume(paused.state, approvals={"r1": True})

    assert ledger.count("refund") == 1
    assert ledger.count("notify") == 2
    assert result.content == "Refunded."
    assert [(c.id, c.reused_from) for c in result.calls] == [
        ("r1", None),
        ("r2", "r1"),
        ("n2", None),
    ]


def test_an_approved_call_that_ran_does_not_run_again_after_a_second_pause(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("refund", {"amount": 5}, id="r1"),
                tool_call("notify", {"customer_id": "bob"}, id="n1"),
            ),
            # The retry repeats the refund that ran, next to a new one: a second pause.
            parallel(
                tool_call("refund", {"amount": 5}, id="r2"),
                tool_call("refund", {"amount": 7}, id="r3"),
                tool_call("notify", {"customer_id": "CUS-1"}, id="n2"),
            ),
            text("Refunded twice."),
        ]
    )
    client = make_client(model, _tools(ledger))
    first = _pause(client)
    with pytest.raises(ApprovalRequired) as again:
        client.resume(first.state, approvals={"r1": True})
    # Only the new refund waits: the one that ran is not asked about again.
    assert [call.id for call in again.value.pending] == ["r3"]
    assert ledger.count("refund") == 1

    result = client.resume(again.value.state, approvals={"r3": True})

    assert ledger.calls.count(("refund", {"amount": 5})) == 1
    assert ledger.calls.count(("refund", {"amount": 7})) == 1
    assert result.content == "Refunded twice."
    assert [(c.id, c.executed, c.reused_from) for c in result.calls] == [
        ("r1", True, None),
        ("r2", True, "r1"),
        ("r3", True, None),
        ("n2", True, None),
    ]
    # A call restored from the state carries its output as JSON.
    assert result.calls[0].output == "refunded 5"


def test_a_call_equal_to_a_denied_one_is_denied_again_in_the_step(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("refund", {"amount": 500}, id="r1"),
                tool_call("notify", {"customer_id": "bob"}, id="n1"),
            ),
            parallel(
                tool_call("refund", {"amount": 500}, id="r2"),
                tool_call("notify", {"customer_id": "CUS-1"}, id="n2"),
            ),
            text("The refund was not approved."),
        ]
    )
    client = make_client(model, _tools(ledger))
    paused = _pause(client)

    result = client.resume(paused.state, approvals={"r1": False})

    assert ledger.count("refund") == 0
    assert result.content == "The refund was not approved."
    assert [(c.id, c.skipped) for c in result.steps[0].calls if c.name == "refund"] == [
        ("r2", "denied")
    ]


def test_calls_sent_under_one_id_get_their_own_ids_and_decisions(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("refund", {"amount": 500}, id="call_1"),
                tool_call("refund", {"amount": 5}, id="call_1"),
            ),
            text("Refunded 5."),
        ]
    )
    client = make_client(model, _tools(ledger))
    paused = _pause(client, "refund 5")

    ids = [call.id for call in paused.pending]
    assert len(set(ids)) == 2
    assert [call.arguments for call in paused.pending] == [{"amount": 500}, {"amount": 5}]
    assert ids[0] == "call_1"

    result = client.resume(paused.state, approvals={ids[0]: False, ids[1]: True})

    assert ledger.calls == [("refund", {"amount": 5})]
    assert result.content == "Refunded 5."
    # The history the model saw holds one tool message per call, under the new ids.
    sent = model.calls_for("answer")[-1].messages if model.calls_for("answer") else []
    sent = sent or model.chat_requests[-1].messages
    assistant = next(m for m in sent if m.get("tool_calls"))
    assert [c["id"] for c in assistant["tool_calls"]] == ids
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ids


def test_a_duplicate_id_cannot_approve_two_calls_with_one_decision(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("refund", {"amount": 500}, id="call_1"),
                tool_call("refund", {"amount": 5}, id="call_1"),
            ),
        ]
    )
    client = make_client(model, _tools(ledger))
    paused = _pause(client, "refund 5")
    with pytest.raises(Exception, match="no decision") as refused:
        client.resume(paused.state, approvals={"call_1": True})
    assert type(refused.value).__name__ == "ResumeError"
    assert ledger.calls == []
