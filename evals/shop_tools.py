"""The toolbox of `shop_heldout.jsonl`: the support desk of a small online shop.

Written for a held-out check of the default pipeline: none of its cases was read while the
pipeline's rules were chosen. Six tools, two close pairs (cancel vs refund, order status vs
shipment tracking), an id pattern, amounts, an enum and a delivery date that must not be in
the past (checked against `context["today"]`).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo

from toolcall_sdk import Tool, tool

__all__ = ["TOOLS"]

OrderId = Annotated[str, Field(pattern=r"^ORD-\d{5}$", description="Order id, ORD- and 5 digits")]


def _not_in_past(value: date, info: ValidationInfo) -> date:
    today = (info.context or {}).get("today")
    if value < (date.fromisoformat(today) if today else date.today()):
        raise ValueError("must not be in the past")
    return value


@tool
def get_order_status(order_id: OrderId) -> dict[str, Any]:
    """Look up the status of an order (placed, packed, shipped, delivered, cancelled)."""
    return {"order_id": order_id, "status": "shipped"}


@tool
def track_shipment(order_id: OrderId) -> dict[str, Any]:
    """Where a shipped order's parcel is now, and when the carrier expects to deliver it."""
    return {"order_id": order_id, "location": "Da Nang hub"}


@tool
def cancel_order(
    order_id: OrderId,
    reason: Literal["changed_mind", "found_cheaper", "ordered_by_mistake", "too_slow"],
) -> dict[str, Any]:
    """Cancel an order that has not shipped yet."""
    return {"order_id": order_id, "cancelled": True}


@tool
def issue_refund(
    order_id: OrderId,
    amount_vnd: Annotated[int, Field(gt=0, description="Amount to refund in Vietnamese dong")],
) -> dict[str, Any]:
    """Refund part or all of a delivered order's price to the customer."""
    return {"order_id": order_id, "refunded_vnd": amount_vnd}


@tool
def schedule_delivery(
    order_id: OrderId,
    delivery_date: Annotated[date, AfterValidator(_not_in_past)],
) -> dict[str, Any]:
    """Book the day a packed order is delivered."""
    return {"order_id": order_id, "delivery_date": delivery_date.isoformat()}


@tool
def search_products(
    query: str,
    max_price_vnd: Annotated[int | None, Field(gt=0, description="Price ceiling in VND")] = None,
) -> list[dict[str, Any]]:
    """Search the shop's catalogue."""
    return [{"name": query, "price_vnd": max_price_vnd or 100000}]


TOOLS: list[Tool[..., Any]] = [
    get_order_status,
    track_shipment,
    cancel_order,
    issue_refund,
    schedule_delivery,
    search_products,
]
