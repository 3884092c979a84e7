"""An identifier copied from the tool's own description is checked, grounding on or off."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field

from toolcall_sdk import tool
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
