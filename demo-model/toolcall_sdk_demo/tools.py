"""The demo toolbox as SDK tools: the three tools of the README, the examples and the live tests.

The business functions return canned data so the demo and the integration tests can run them.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo

from toolcall_sdk import Tool, tool

__all__ = ["DEMO_TOOLS", "create_invoice", "get_order_status", "get_weather", "not_in_past"]


def not_in_past(value: date, info: ValidationInfo) -> date:
    """Reject a due date before today (or before `context["today"]` when given)."""
    today = (info.context or {}).get("today") or date.today()
    if value < today:
        raise ValueError("must not be in the past")
    return value


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"]) -> dict[str, Any]:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. Paris.
        unit: Temperature unit.
    """
    return {"city": city, "temperature": 21 if unit == "celsius" else 70, "unit": unit}


@tool
def get_order_status(order_id: Annotated[str, Field(pattern=r"^ORD-\d{5}$")]) -> dict[str, str]:
    """Look up the status of an order."""
    return {"order_id": order_id, "status": "shipped"}


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: Annotated[date, AfterValidator(not_in_past)],
) -> dict[str, Any]:
    """Create an invoice for a customer."""
    return {
        "invoice_id": f"INV-{customer_id[-6:]}",
        "customer_id": customer_id,
        "amount_vnd": amount_vnd,
        "due_date": due_date.isoformat(),
    }


DEMO_TOOLS: list[Tool[..., Any]] = [get_weather, get_order_status, create_invoice]
