"""An identifier copied from the tool's own description is checked, grounding on or off."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field

from toolcall_sdk import ToolCallFailed, tool
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory, Ledger

InvoiceId = Annotated[str, Field(pattern=r"^INV-\d{6}$", description="e.g. INV-004512")]
CustomerId = Annotated[str, Field(pattern=r"^CUS-\d{6}$", description="e.g. CUS-000123")]


@pytest.fixture
def tools(ledger: Ledger) -> list[Any]:
    @tool
    def get_invoice(invoice_id: InvoiceId) -> str:
        """Show one invoice."""
        ledger.calls.append(("get_invoice", {"invoice_id": invoice_id}))
        return "unpaid"

    @tool
    def list_invoices(customer_id: CustomerId) -> str:
        """List a customer's invoices."""
        ledger.calls.append(("list_invoices", {"customer_id": customer_id}))
        return "INV-376653"

    return [get_invoice, list_invoices]


@pytest.mark.parametrize("router", ["llm", "always"])
def test_the_descriptions_example_id_is_fed_back_and_never_runs(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, router: str
) -> None:
    # The 0.5B demo model's answer to this, in 4 of the ladder's 50 invoices cases.
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "INV-004512"}),
            tool_call("list_invoices", {"customer_id": "CUS-376653"}),
        ]
    )
    client = make_client(model, tools, router=router)

    result = client.run("Which invoices does CUS-376653 have?")

    [problem] = result.attempts[0].problems
    assert (problem.kind, problem.tool_name) == ("ungrounded", "get_invoice")
    assert "INV-004512" in problem.message
    assert ledger.calls == [("list_invoices", {"customer_id": "CUS-376653"})]


def test_the_example_id_runs_where_the_user_states_it(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("get_invoice", {"invoice_id": "INV-004512"})])

    result = make_client(model, tools).run("Show me invoice INV-004512.")

    assert result.attempts[0].problems == []
    assert ledger.calls == [("get_invoice", {"invoice_id": "INV-004512"})]


def test_an_id_the_description_does_not_show_is_not_checked_with_grounding_off(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    # Grounding stays the user's choice: only the copied example is checked regardless.
    model = ScriptedModel([tool_call("get_invoice", {"invoice_id": "INV-999999"})])

    result = make_client(model, tools).run("Show me the last invoice.")

    assert result.attempts[0].problems == []
    assert ledger.calls == [("get_invoice", {"invoice_id": "INV-999999"})]


def offered(request: Any) -> list[str]:
    assert request.json is not None
    return [entry["function"]["name"] for entry in request.json["tools"]]


@pytest.mark.parametrize("router", ["llm", "always"])
def test_the_retry_leaves_out_a_tool_whose_refused_id_nobody_stated(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, router: str
) -> None:
    # Told, the 0.5B wrote get_invoice(INV-004512) twice more (the ladder's inv-078):
    # no invoice id stands in the conversation, so the retry does not offer get_invoice.
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "INV-004512"}),
            tool_call("list_invoices", {"customer_id": "CUS-376653"}),
        ]
    )
    client = make_client(model, tools, router=router)

    result = client.run("Which invoices does CUS-376653 have?")

    calls = [r for r in model.requests if r.json and r.json.get("tools")]
    assert offered(calls[0]) == ["get_invoice", "list_invoices"]
    assert offered(calls[-1]) == ["list_invoices"]
    assert result.attempts[-1].request.tools == ("list_invoices",)
    assert ledger.calls == [("list_invoices", {"customer_id": "CUS-376653"})]


def test_the_tool_stays_offered_where_an_id_of_its_form_is_stated(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    # INV-000777 is stated: a call of get_invoice can carry it, so the tool stays.
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "INV-004512"}),
            tool_call("get_invoice", {"invoice_id": "INV-000777"}),
        ]
    )

    result = make_client(model, tools).run("Is INV-000777 of CUS-376653 paid?")

    assert offered(model.requests[-1]) == ["get_invoice", "list_invoices"]
    assert result.attempts[0].problems[0].kind == "ungrounded"
    assert ledger.calls == [("get_invoice", {"invoice_id": "INV-000777"})]


def test_the_only_tool_offered_is_never_left_out(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "INV-004512"}),
            tool_call("get_invoice", {"invoice_id": "INV-004512"}),
            tool_call("get_invoice", {"invoice_id": "INV-004512"}),
        ]
    )
    client = make_client(model, tools[:1])

    with pytest.raises(ToolCallFailed) as failed:
        client.run("Show me my invoice.")

    assert [offered(r) for r in model.requests if r.json and r.json.get("tools")] == [
        ["get_invoice"]
    ] * 3
    assert len(failed.value.attempts) == 3
    assert ledger.calls == []


def test_a_call_refused_for_another_reason_also_leaves_out_a_tool_with_no_stated_id(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    # The ladder's inv-122: no customer id is stated, yet the 0.5B wrote create_invoice
    # (refused: a due date in the past) three times; record_payment was the call.
    @tool
    def create_invoice(customer_id: CustomerId, amount_vnd: int, due_date: str) -> str:
        """Create an invoice."""
        ledger.calls.append(("create_invoice", {"customer_id": customer_id}))
        return "INV-000001"

    @tool
    def record_payment(invoice_id: InvoiceId, amount_vnd: int, paid_on: str) -> str:
        """Record a payment received for an invoice."""
        ledger.calls.append(("record_payment", {"invoice_id": invoice_id}))
        return "recorded"

    invalid = {"customer_id": "CUS-592792", "amount_vnd": 2500000}  # due_date left out
    model = ScriptedModel(
        [
            tool_call("create_invoice", invalid),
            tool_call(
                "record_payment",
                {"invoice_id": "INV-592792", "amount_vnd": 2500000, "paid_on": "2026-11-09"},
            ),
        ]
    )
    client = make_client(model, [create_invoice, record_payment])

    client.run("We received 2.5 million VND for INV-592792 on 09/11/2026.")

    assert offered(model.requests[-1]) == ["record_payment"]
    assert ledger.calls == [("record_payment", {"invoice_id": "INV-592792"})]
