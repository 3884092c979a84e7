"""A retry may not swap the rejected call for another tool with values nobody gave."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field

from toolcall_sdk import ToolCallFailed, tool
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory


@pytest.fixture
def tools() -> list[Any]:
    @tool
    def get_invoice(invoice_id: Annotated[str, Field(pattern=r"^INV-\d{5}$")]) -> str:
        """Show an invoice."""
        return "open"

    @tool
    def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
        """Convert an amount between currencies."""
        return amount

    return [get_invoice, convert_currency]


def test_a_switched_call_with_invented_values_is_rejected(
    make_client: ClientFactory, tools: list[Any]
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "20417"}),  # breaks the pattern
            tool_call(
                "convert_currency", {"amount": 1000, "from_currency": "USD", "to_currency": "VND"}
            ),
            tool_call("get_invoice", {"invoice_id": "INV-20417"}),
        ]
    )
    client = make_client(model, tools, max_retries=2)

    result = client.call("Show me invoice INV-20417.")

    assert [c.name for c in result.calls] == ["get_invoice"]
    assert [p.kind for p in result.attempts[1].problems] == ["ungrounded"]
    assert "1000" in result.attempts[1].problems[0].message


def test_a_switched_call_with_the_users_values_is_accepted(
    make_client: ClientFactory, tools: list[Any]
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "20417"}),
            tool_call(
                "convert_currency", {"amount": 250, "from_currency": "USD", "to_currency": "VND"}
            ),
        ]
    )
    client = make_client(model, tools, max_retries=1)

    result = client.call("Convert 250 USD to VND for invoice INV-20417.")

    assert [c.name for c in result.calls] == ["convert_currency"]


def test_the_same_tool_on_retry_is_not_held(make_client: ClientFactory, tools: list[Any]) -> None:
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "20417"}),
            tool_call("get_invoice", {"invoice_id": "INV-99999"}),  # not stated, same tool
        ]
    )
    client = make_client(model, tools, max_retries=1)

    result = client.call("Show me invoice INV-20417.")

    # Without grounding=, a retry of the same tool is judged by the schema alone, as before.
    assert result.calls[0].arguments.model_dump() == {"invoice_id": "INV-99999"}


def test_a_switch_on_the_last_retry_escalates(make_client: ClientFactory, tools: list[Any]) -> None:
    model = ScriptedModel(
        [
            tool_call("get_invoice", {"invoice_id": "20417"}),
            tool_call(
                "convert_currency", {"amount": 1000, "from_currency": "USD", "to_currency": "VND"}
            ),
        ]
    )
    client = make_client(model, tools, max_retries=1)

    with pytest.raises(ToolCallFailed):
        client.call("Show me invoice INV-20417.")
