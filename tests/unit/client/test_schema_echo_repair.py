"""A schema keyword echoed into the arguments is repaired, not re-asked (issue trace)."""

from __future__ import annotations

from typing import Any

from toolcall_sdk import tool
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory, Ledger


def test_an_echoed_required_list_is_dropped_before_validation(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool
    def get_invoice(invoice_id: str) -> dict[str, Any]:
        """Show an invoice."""
        ledger.calls.append(("get_invoice", {"invoice_id": invoice_id}))
        return {"invoice_id": invoice_id, "status": "open"}

    # The 0.5B demo model's answer to "Show me invoice INV-20417." under auto.
    model = ScriptedModel(
        [tool_call("get_invoice", {"invoice_id": "INV-20417", "required": ["invoice_id"]})]
    )
    client = make_client(model, [get_invoice])

    result = client.run("Show me invoice INV-20417.")

    assert ledger.calls == [("get_invoice", {"invoice_id": "INV-20417"})]
    assert len(model.chat_requests) == 1  # no re-ask
    assert result.attempts[0].repairs == ["get_invoice:schema_echo:/required"]
    assert result.attempts[0].problems == []
