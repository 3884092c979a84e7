"""Generate `multistep.jsonl`, the agent-loop eval set (deterministic: same file every run).

Run from the repository root::

    python evals/make_multistep.py            # writes evals/multistep.jsonl
    python evals/make_multistep.py --check    # exits 1 if the file is not what this writes

Each task needs two or three dependent calls to the tools of `multistep_tools.py` (the
second call's argument is in the first call's result, never in the prompt), then a text
answer holding the fact the last result gave. The expected calls and facts are read from
the toolbox's own tables, so the file and the fakes cannot disagree.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from _case_file import write_or_check

HERE = Path(__file__).resolve().parent
OUT = HERE / "multistep.jsonl"
TOOLS_REF = "multistep_tools.py:TOOLS"
SYSTEM = (
    "You are the back-office assistant of a small company. Amounts are in Vietnamese dong "
    "(VND). Use the tools to look up what you need, one call at a time; when you have the "
    "answer, reply to the user in one short sentence."
)
# Room for one detour (a rejected or repeated call) besides the calls and the answer.
SPARE_STEPS = 2

Case = dict[str, Any]


def _toolbox() -> Any:
    spec = importlib.util.spec_from_file_location("_multistep_tools", HERE / "multistep_tools.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _money(amount: int) -> list[str]:
    """A VND amount as the model may write it; the scorer also drops thousands separators."""
    return [str(amount)]


def _find(name: str) -> dict[str, Any]:
    """`find_customer` by name, however the model capitalises it (the tool ignores case)."""
    return {"name": "find_customer", "accept": {"name": [name.title(), name, name.upper()]}}


def _case(
    number: int, category: str, user: str, calls: list[dict[str, Any]], facts: list[Any]
) -> Case:
    return {
        "id": f"ms-{number:03d}",
        "category": category,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "tools": TOOLS_REF,
        "expected": {"calls": calls},
        "agent": {"max_steps": len(calls) + 1 + SPARE_STEPS, "answer": facts},
    }


def build() -> list[Case]:
    box = _toolbox()
    customers, invoices, orders, rates = box.CUSTOMERS, box.INVOICES, box.ORDERS, box.RATES
    by_id = {cid: (name, email, city) for name, (cid, email, city) in customers.items()}
    cases: list[Case] = []

    def add(category: str, user: str, calls: list[dict[str, Any]], facts: list[Any]) -> None:
        cases.append(_case(len(cases) + 1, category, user, calls, facts))

    def call(tool_name: str, /, **arguments: Any) -> dict[str, Any]:
        return {"name": tool_name, "arguments": arguments}

    first_five = ["acme", "globex", "initech", "umbrella", "hooli"]
    email_asks = [
        "What is the billing email address of {}?",
        "Which email should I send {}'s invoices to?",
        "Find the email address we have on file for {}.",
        "I need {}'s contact email, please.",
        "What email does {} use for invoices?",
    ]
    for name, ask in zip(first_five, email_asks, strict=True):
        cid, email, _ = customers[name]
        add(
            "chain2/customer_email",
            ask.format(name.title()),
            [_find(name), call("get_customer", customer_id=cid)],
            [email],
        )

    city_asks = [
        "Which city is the customer of order {} in?",
        "Order {}: in which city is its customer based?",
        "Where (which city) is the customer who placed order {}?",
        "Tell me the city of the customer behind order {}.",
        "In what city is the buyer of order {} located?",
    ]
    city_orders = [o for o in orders if o.startswith("ORD-301")]
    for order, ask in zip(city_orders, city_asks, strict=True):
        cid, _ = orders[order]
        add(
            "chain2/order_city",
            ask.format(order),
            [call("get_order", order_id=order), call("get_customer", customer_id=cid)],
            [by_id[cid][2]],
        )

    convert_asks = [
        "How much is invoice {} in {}?",
        "Convert the amount of invoice {} to {}.",
        "What is invoice {} worth in {}?",
        "Give me the total of invoice {} in {}.",
        "Invoice {}: what does it come to in {}?",
    ]
    currencies = ["USD", "EUR", "JPY", "USD", "EUR"]
    to_convert = [i for i in invoices if i.startswith("INV-61")]
    for invoice, currency, ask in zip(to_convert, currencies, convert_asks, strict=True):
        amount = invoices[invoice][1]
        add(
            "chain2/invoice_currency",
            ask.format(invoice, currency),
            [
                call("get_invoice", invoice_id=invoice),
                call("convert_currency", amount_vnd=amount, currency=currency),
            ],
            [str(amount // rates[currency])],
        )

    amount_asks = [
        "How much is the invoice of order {}, in VND?",
        "What is the amount of the invoice for order {}?",
        "Order {}: how much was it invoiced for?",
        "Look up order {} and tell me its invoice amount.",
        "What does the invoice behind order {} come to in VND?",
    ]
    amount_orders = [o for o in orders if o.startswith("ORD-401")]
    for order, ask in zip(amount_orders, amount_asks, strict=True):
        _, invoice = orders[order]
        add(
            "chain2/order_amount",
            ask.format(order),
            [call("get_order", order_id=order), call("get_invoice", invoice_id=invoice)],
            [_money(invoices[invoice][1])],
        )

    unpaid_asks = [
        "How much does {} owe on its unpaid invoice?",
        "What is the amount of {}'s unpaid invoice?",
        "{} has one unpaid invoice: how much is it?",
        "Check the unpaid invoice of {} and tell me its amount in VND.",
        "How much is outstanding on {}'s unpaid invoice?",
    ]
    for name, ask in zip(first_five, unpaid_asks, strict=True):
        cid = customers[name][0]
        unpaid = next(i for i, (c, _, s) in invoices.items() if c == cid and s == "unpaid")
        add(
            "chain3/unpaid_amount",
            ask.format(name.title()),
            [
                _find(name),
                {
                    "name": "list_invoices",
                    "arguments": {"customer_id": cid},
                    "accept": {"status": ["unpaid", ""]},
                },
                call("get_invoice", invoice_id=unpaid),
            ],
            [_money(invoices[unpaid][1])],
        )

    order_convert_asks = [
        "How much is the invoice of order {} in {}?",
        "Convert the invoice of order {} to {}.",
        "What is the invoice for order {} worth in {}?",
        "Order {}: what does its invoice come to in {}?",
        "Give me the invoice total of order {} in {}.",
    ]
    convert_orders = [o for o in orders if o.startswith("ORD-301")]
    for order, currency, ask in zip(convert_orders, currencies, order_convert_asks, strict=True):
        _, invoice = orders[order]
        amount = invoices[invoice][1]
        add(
            "chain3/order_currency",
            ask.format(order, currency),
            [
                call("get_order", order_id=order),
                call("get_invoice", invoice_id=invoice),
                call("convert_currency", amount_vnd=amount, currency=currency),
            ],
            [str(amount // rates[currency])],
        )
    return cases


def main(argv: list[str]) -> int:
    return write_or_check(OUT, build(), "make_multistep.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
