"""The toolbox of the bundled `invoices.jsonl` eval set: a small invoicing back office.

Ten tools, some deliberately close to each other (cancel vs credit note, get vs list,
create vs update the due date), with the constraints that trip small models: ID patterns,
positive amounts, enums, date ranges and due dates that must not be in the past.
`create_invoice` and `get_order_status` have the same names and parameters as the CPU demo
model's tools, so the CI slice can use them.

Dates are checked against `context["today"]` (an ISO date the case file sets), so the set
gives the same verdicts whatever day it runs; without it, against today's date.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo

from toolcall_sdk import Tool, tool

__all__ = ["CORE_TOOLS", "TOOLS"]

CustomerId = Annotated[str, Field(pattern=r"^CUS-\d{6}$", description="e.g. CUS-000123")]
InvoiceId = Annotated[str, Field(pattern=r"^INV-\d{6}$", description="e.g. INV-004512")]
AmountVnd = Annotated[int, Field(gt=0, description="Amount in Vietnamese dong")]


def _today(info: ValidationInfo) -> date:
    value = (info.context or {}).get("today")
    if isinstance(value, str):
        return date.fromisoformat(value)
    return value if isinstance(value, date) else date.today()


def not_in_past(value: date, info: ValidationInfo) -> date:
    """Reject a date before today (`context["today"]` when the case sets it)."""
    if value < _today(info):
        raise ValueError(f"must not be in the past (today is {_today(info).isoformat()})")
    return value


FutureDate = Annotated[date, AfterValidator(not_in_past)]


@tool
def create_invoice(
    customer_id: CustomerId, amount_vnd: AmountVnd, due_date: FutureDate
) -> dict[str, Any]:
    """Create an invoice for a customer."""
    return {"invoice_id": "INV-" + customer_id[-6:], "status": "unpaid"}


@tool
def get_order_status(order_id: Annotated[str, Field(pattern=r"^ORD-\d{5}$")]) -> dict[str, str]:
    """Look up the status of an order."""
    return {"order_id": order_id, "status": "shipped"}


@tool
def get_invoice(invoice_id: InvoiceId) -> dict[str, Any]:
    """Show one invoice: customer, amount, due date and status."""
    return {"invoice_id": invoice_id, "status": "unpaid"}


@tool
def list_invoices(
    customer_id: CustomerId,
    status: Literal["unpaid", "paid", "overdue"] | None = None,
    from_date: date | None = None,
    to_date: date | None = None,
) -> list[dict[str, Any]]:
    """List a customer's invoices, optionally by status and issue-date range.

    Args:
        customer_id: The customer.
        status: Only invoices in this state.
        from_date: First issue date to include.
        to_date: Last issue date to include.
    """
    if from_date and to_date and to_date < from_date:
        raise ValueError("to_date is before from_date")
    return []


@tool
def update_invoice_due_date(invoice_id: InvoiceId, due_date: FutureDate) -> dict[str, Any]:
    """Move the due date of an existing invoice."""
    return {"invoice_id": invoice_id, "due_date": due_date.isoformat()}


@tool
def cancel_invoice(
    invoice_id: InvoiceId, reason: Literal["duplicate", "customer_request", "wrong_amount"]
) -> dict[str, Any]:
    """Cancel an unpaid invoice entirely."""
    return {"invoice_id": invoice_id, "status": "cancelled"}


@tool
def create_credit_note(invoice_id: InvoiceId, amount_vnd: AmountVnd) -> dict[str, Any]:
    """Refund part of a paid invoice with a credit note."""
    return {"credit_note_id": "CN-" + invoice_id[-6:]}


@tool
def send_payment_reminder(
    invoice_id: InvoiceId, channel: Literal["email", "sms"]
) -> dict[str, Any]:
    """Send the customer a reminder to pay an invoice."""
    return {"invoice_id": invoice_id, "sent": channel}


@tool
def record_payment(invoice_id: InvoiceId, amount_vnd: AmountVnd, paid_on: date) -> dict[str, Any]:
    """Record a payment received for an invoice."""
    return {"invoice_id": invoice_id, "paid_on": paid_on.isoformat()}


@tool
def get_customer_balance(customer_id: CustomerId) -> dict[str, Any]:
    """Total amount a customer still owes across all invoices."""
    return {"customer_id": customer_id, "balance_vnd": 0}


TOOLS: list[Tool[..., Any]] = [
    create_invoice,
    get_order_status,
    get_invoice,
    list_invoices,
    update_invoice_due_date,
    cancel_invoice,
    create_credit_note,
    send_payment_reminder,
    record_payment,
    get_customer_balance,
]

CORE_TOOLS: list[Tool[..., Any]] = [create_invoice, get_order_status]
"""The two tools the CPU demo model knows (same names and parameters)."""
