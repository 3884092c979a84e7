"""Exactly once: a repeated call is not run again; errors say what already ran."""

from __future__ import annotations

import pytest

from toolcall_sdk import ModelRetry, ServerUnavailableError, tool
from toolcall_sdk.testing import ScriptedModel, http_error, parallel, tool_call

from ..conftest import ClientFactory


def _tools(ran: list[str]) -> list[object]:
    @tool
    def charge(customer_id: str, amount: int) -> str:
        """Charge a customer."""
        ran.append(f"charge {customer_id} {amount}")
        return f"charged {amount}"

    @tool
    def notify(customer_id: str) -> str:
        """Tell the customer."""
        ran.append(f"notify {customer_id}")
        if customer_id != "CUS-1":
            raise ModelRetry("unknown customer; ids look like CUS-1")
        return "sent"

    return [charge, notify]


def test_a_call_repeated_after_model_retry_is_not_run_again(make_client: ClientFactory) -> None:
    ran: list[str] = []
    first = parallel(
        tool_call("charge", {"customer_id": "CUS-1", "amount": 5}, id="call_a"),
        tool_call("notify", {"customer_id": "bob"}, id="call_b"),
    )
    # The feedback shows the charge's output; the model answers with the whole set again.
    again = parallel(
        tool_call("charge", {"amount": 5, "customer_id": "CUS-1"}, id="call_c"),
        tool_call("notify", {"customer_id": "CUS-1"}, id="call_d"),
    )
    model = ScriptedModel([first, again])
    client = make_client(model, _tools(ran))

    result = client.run("charge CUS-1 5 and tell them")

    assert ran == ["charge CUS-1 5", "notify bob", "notify CUS-1"]
    assert [(c.id, c.reused_from) for c in result.calls] == [
        ("call_a", None),
        ("call_c", "call_a"),
        ("call_d", None),
    ]
    assert [c.output for c in result.calls] == ["charged 5", "charged 5", "sent"]
    # The repeated call is answered with the recorded output, like any executed call.
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    assert tool_messages[-2:] == [
        {"role": "tool", "tool_call_id": "call_c", "content": "charged 5"},
        {"role": "tool", "tool_call_id": "call_d", "content": "sent"},
    ]


def test_a_transport_error_after_a_partial_execution_says_what_ran(
    make_client: ClientFactory,
) -> None:
    ran: list[str] = []
    first = parallel(
        tool_call("charge", {"customer_id": "CUS-1", "amount": 5}, id="call_a"),
        tool_call("notify", {"customer_id": "bob"}, id="call_b"),
    )
    model = ScriptedModel([first, *[http_error(503)] * 4])
    client = make_client(model, _tools(ran))

    with pytest.raises(ServerUnavailableError) as raised:
        client.run("charge CUS-1 5 and tell them")

    assert ran == ["charge CUS-1 5", "notify bob"]
    assert [c.id for c in raised.value.executed] == ["call_a"]
    assert raised.value.executed[0].output == "charged 5"
    assert [a.error_kinds for a in raised.value.attempts] == [["tool_retry"]]


def test_a_transport_error_before_anything_ran_has_nothing_executed(
    make_client: ClientFactory,
) -> None:
    model = ScriptedModel([http_error(503)] * 4)
    client = make_client(model, _tools([]))
    with pytest.raises(ServerUnavailableError) as raised:
        client.run("charge")
    assert raised.value.executed == []
    assert raised.value.attempts == []
