"""`@tool(examples=[...])`: argument examples written by hand, checked where they are written."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from toolcall_sdk import Tool, ToolDefinitionError, tool


def test_examples_are_kept_as_json_values() -> None:
    @tool(examples=[{"customer_id": "CUS-000123", "due_date": date(2027, 1, 15)}])
    def create_invoice(
        customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")], due_date: date
    ) -> None:
        """Create an invoice."""

    assert create_invoice.examples == ({"customer_id": "CUS-000123", "due_date": "2027-01-15"},)


def test_without_examples_a_tool_has_none() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert ping.examples == ()
    assert ping() == "pong"


def test_values_are_not_validated_only_the_names() -> None:
    # A rule about today's date would fail a good example some day; the names never change.
    @tool(examples=[{"due_date": "2001-01-01"}])
    def remind(due_date: Annotated[date, Field(gt=date(2026, 1, 1))]) -> None:
        """Send a reminder."""

    assert remind.examples == ({"due_date": "2001-01-01"},)


def test_a_model_tool_takes_examples_by_alias_too() -> None:
    class Lookup(BaseModel):
        """Look an order up."""

        order_id: str = Field(alias="orderId")
        verbose: bool = False

    made = tool(examples=[{"orderId": "ORD-1"}, {"order_id": "ORD-2", "verbose": True}])(Lookup)

    assert isinstance(made, Tool)
    assert [example["verbose"] for example in made.examples[1:]] == [True]


@pytest.mark.parametrize(
    ("examples", "said"),
    [
        (
            [{"city": "Hanoi", "country": "VN"}],
            "examples[0] does not fit the parameters (unknown 'country')",
        ),
        (
            [{"city": "Hanoi"}, {"unit": "kelvin"}],
            "examples[1] does not fit the parameters (missing 'city')",
        ),
        (["Hanoi"], "examples[0] must be a dict of arguments (got str)"),
        ({"city": "Hanoi"}, "examples must be a list of argument dicts"),
        ([{"city": object()}], "examples[0] holds a value that is not JSON"),
    ],
)
def test_examples_that_do_not_fit_fail_at_definition(examples: Any, said: str) -> None:
    with pytest.raises(ToolDefinitionError) as raised:

        @tool(examples=examples)
        def get_weather(city: str, unit: str = "celsius") -> str:
            """Current weather for a city."""
            return city

    assert raised.value.tool_name == "get_weather"
    assert said in str(raised.value)
