"""The toolbox of `multistep.jsonl`: a small back office whose answers are fixed fakes.

Every task of the set needs two or three calls where each one's arguments come from the
result before it (a customer's id, then its invoices, then one invoice's amount), so a
model cannot answer from the prompt: it must call, read the result and call again. The
data below is the whole back office; the same arguments always give the same result, and
`make_multistep.py` reads the same tables to write each task's expected calls and facts.

Identifiers have patterns (`CUS-` + six digits ...), so an id the model makes up is caught
by validation in the SDK's loop and by the data (`no such ...`) in the raw loop.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field

from toolcall_sdk import Tool, tool

__all__ = ["CUSTOMERS", "INVOICES", "ORDERS", "RATES", "TOOLS"]

CustomerId = Annotated[str, Field(pattern=r"^CUS-\d{6}$", description="e.g. CUS-000123")]
InvoiceId = Annotated[str, Field(pattern=r"^INV-\d{6}$", description="e.g. INV-004512")]
OrderId = Annotated[str, Field(pattern=r"^ORD-\d{5}$", description="e.g. ORD-12345")]

# name (lower case) -> (customer id, email, city)
CUSTOMERS: Final[dict[str, tuple[str, str, str]]] = {
    "acme": ("CUS-104201", "billing@acme.example", "Hanoi"),
    "globex": ("CUS-208315", "accounts@globex.example", "Da Nang"),
    "initech": ("CUS-311472", "finance@initech.example", "Hue"),
    "umbrella": ("CUS-415590", "pay@umbrella.example", "Can Tho"),
    "hooli": ("CUS-526034", "ap@hooli.example", "Hai Phong"),
    "stark": ("CUS-630718", "ledger@stark.example", "Nha Trang"),
    "wayne": ("CUS-741256", "invoices@wayne.example", "Vung Tau"),
    "tyrell": ("CUS-852967", "money@tyrell.example", "Da Lat"),
    "soylent": ("CUS-963108", "books@soylent.example", "Quy Nhon"),
    "cyberdyne": ("CUS-174623", "ar@cyberdyne.example", "Bien Hoa"),
}

# 1 unit of the currency in VND: each amount below divides evenly by the rate its task uses.
RATES: Final[dict[str, int]] = {"USD": 25_000, "EUR": 27_000, "JPY": 170}

# invoice id -> (customer id, amount in VND, status)
INVOICES: Final[dict[str, tuple[str, int, str]]] = {
    "INV-510001": ("CUS-104201", 3_250_000, "paid"),
    "INV-510002": ("CUS-104201", 4_800_000, "unpaid"),
    "INV-520001": ("CUS-208315", 1_200_000, "paid"),
    "INV-520002": ("CUS-208315", 7_350_000, "unpaid"),
    "INV-530001": ("CUS-311472", 2_600_000, "paid"),
    "INV-530002": ("CUS-311472", 5_940_000, "unpaid"),
    "INV-540001": ("CUS-415590", 9_100_000, "paid"),
    "INV-540002": ("CUS-415590", 6_420_000, "unpaid"),
    "INV-550001": ("CUS-526034", 8_000_000, "paid"),
    "INV-550002": ("CUS-526034", 2_275_000, "unpaid"),
    # Converted by the currency tasks: multiples of their rate.
    "INV-610001": ("CUS-630718", 2_500_000, "unpaid"),  # 100 USD
    "INV-610002": ("CUS-741256", 5_400_000, "unpaid"),  # 200 EUR
    "INV-610003": ("CUS-852967", 1_700_000, "unpaid"),  # 10000 JPY
    "INV-610004": ("CUS-963108", 7_500_000, "unpaid"),  # 300 USD
    "INV-610005": ("CUS-174623", 1_350_000, "unpaid"),  # 50 EUR
    "INV-620001": ("CUS-104201", 3_750_000, "unpaid"),  # 150 USD
    "INV-620002": ("CUS-208315", 10_800_000, "unpaid"),  # 400 EUR
    "INV-620003": ("CUS-311472", 850_000, "unpaid"),  # 5000 JPY
    "INV-620004": ("CUS-415590", 6_250_000, "unpaid"),  # 250 USD
    "INV-620005": ("CUS-526034", 2_160_000, "unpaid"),  # 80 EUR
}

# order id -> (customer id, invoice id)
ORDERS: Final[dict[str, tuple[str, str]]] = {
    "ORD-30101": ("CUS-630718", "INV-620001"),
    "ORD-30102": ("CUS-741256", "INV-620002"),
    "ORD-30103": ("CUS-852967", "INV-620003"),
    "ORD-30104": ("CUS-963108", "INV-620004"),
    "ORD-30105": ("CUS-174623", "INV-620005"),
    "ORD-40101": ("CUS-104201", "INV-510002"),
    "ORD-40102": ("CUS-208315", "INV-520002"),
    "ORD-40103": ("CUS-311472", "INV-530002"),
    "ORD-40104": ("CUS-415590", "INV-540002"),
    "ORD-40105": ("CUS-526034", "INV-550002"),
}


@tool
def find_customer(name: str) -> dict[str, str]:
    """Find a customer's id by company name.

    Args:
        name: The company name, e.g. Acme.
    """
    found = CUSTOMERS.get(name.strip().lower().removesuffix(" corp").removesuffix(" inc"))
    if found is None:
        return {"error": f"no customer named {name!r}"}
    return {"customer_id": found[0]}


@tool
def get_customer(customer_id: CustomerId) -> dict[str, str]:
    """Get a customer's details (email, city) by customer id."""
    for name, (cid, email, city) in CUSTOMERS.items():
        if cid == customer_id:
            return {"customer_id": cid, "name": name.title(), "email": email, "city": city}
    return {"error": f"no customer {customer_id}"}


@tool
def list_invoices(
    customer_id: CustomerId, status: Literal["paid", "unpaid"] | None = None
) -> list[dict[str, str]]:
    """List a customer's invoices (ids and statuses), optionally only paid or unpaid ones."""
    return [
        {"invoice_id": iid, "status": st}
        for iid, (cid, _, st) in INVOICES.items()
        if cid == customer_id and (status is None or st == status) and iid.startswith("INV-5")
    ]


@tool
def get_invoice(invoice_id: InvoiceId) -> dict[str, Any]:
    """Get one invoice's amount and status by invoice id."""
    found = INVOICES.get(invoice_id)
    if found is None:
        return {"error": f"no invoice {invoice_id}"}
    cid, amount, status = found
    return {"invoice_id": invoice_id, "customer_id": cid, "amount_vnd": amount, "status": status}


@tool
def get_order(order_id: OrderId) -> dict[str, str]:
    """Get an order's customer id and invoice id by order id."""
    found = ORDERS.get(order_id)
    if found is None:
        return {"error": f"no order {order_id}"}
    return {"order_id": order_id, "customer_id": found[0], "invoice_id": found[1]}


@tool
def convert_currency(
    amount_vnd: Annotated[int, Field(gt=0, description="Amount in Vietnamese dong")],
    currency: Literal["USD", "EUR", "JPY"],
) -> dict[str, Any]:
    """Convert an amount in VND to another currency."""
    amount = round(amount_vnd / RATES[currency], 2)
    return {"amount": int(amount) if amount.is_integer() else amount, "currency": currency}


TOOLS: list[Tool[..., Any]] = [
    find_customer,
    get_customer,
    list_invoices,
    get_invoice,
    get_order,
    convert_currency,
]
