"""Tools defined in a module with string annotations (PEP 563)."""

from __future__ import annotations

from datetime import date
from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from toolcall_sdk import tool


class Priority(Enum):
    LOW = "low"
    HIGH = "high"


class Address(BaseModel):
    street: str
    city: str
    postcode: str | None = None


@tool
def ship_order(
    order_id: Annotated[str, Field(pattern=r"^ORD-\d{5}$", description="Order id.")],
    address: Address,
    priority: Priority = Priority.LOW,
    carrier: Literal["dhl", "ups"] = "dhl",
    ship_on: date | None = None,
) -> str:
    """Ship an order to an address.

    Args:
        order_id: Ignored: the Field description wins.
        address: Where to ship.
        priority: How fast.
    """
    return f"{order_id} to {address.city}"
