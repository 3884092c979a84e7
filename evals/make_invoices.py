"""Generate `invoices.jsonl`, the bundled eval set (deterministic: same file every run).

Run from the repository root::

    python evals/make_invoices.py            # writes evals/invoices.jsonl
    python evals/make_invoices.py --check    # exits 1 if the file is not what this writes

Every case offers the ten tools of `invoices_tools.py`, sets `today` to `TODAY` (so dates
"not in the past" stay valid forever) and tells the model the date in a system message.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from _case_file import write_or_check

TODAY = date(2026, 12, 1)
SEED = 20261201
TOOLS_REF = "invoices_tools.py:TOOLS"
SYSTEM = (
    f"You are the invoicing assistant of a small company. Today is {TODAY.isoformat()}. "
    "Amounts are in Vietnamese dong (VND). Use a tool when the request needs one."
)
OUT = Path(__file__).with_name("invoices.jsonl")

Case = dict[str, Any]
MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip


class Gen:
    """Random but reproducible identifiers, amounts and dates."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def customer(self) -> str:
        return f"CUS-{self.rng.randint(1, 999_999):06d}"

    def invoice(self) -> str:
        return f"INV-{self.rng.randint(1, 999_999):06d}"

    def order(self) -> str:
        return f"ORD-{self.rng.randint(10_000, 99_999):05d}"

    def amount(self) -> int:
        return self.rng.choice([250_000, 500_000, 1_200_000, 1_500_000, 2_500_000, 7_800_000,
                                12_000_000, 45_000_000])  # fmt: skip

    def future(self) -> date:
        return TODAY + timedelta(days=self.rng.randint(3, 200))

    def past(self) -> date:
        return TODAY - timedelta(days=self.rng.randint(1, 120))

    def say_amount(self, value: int) -> str:
        millions = value / 1_000_000
        forms = [f"{value:,} VND", f"{value:,}".replace(",", ".") + " đồng", f"{value} dong"]
        if millions >= 1 and value % 100_000 == 0:
            forms.append(f"{millions:g} million VND")
        return self.rng.choice(forms)

    def say_date(self, value: date, *, with_year: bool = True) -> str:
        month = MONTHS[value.month - 1]
        if not with_year:
            return self.rng.choice([f"{month} {value.day}", f"the {value.day} of {month}"])
        return self.rng.choice(
            [
                value.isoformat(),
                f"{value.day} {month} {value.year}",
                f"{month} {value.day}, {value.year}",
                f"{value.day:02d}/{value.month:02d}/{value.year}",
            ]
        )


def case(
    number: int,
    category: str,
    user: str | list[dict[str, Any]],
    calls: list[tuple[str, dict[str, Any]]] | None,
    *,
    accept: dict[str, list[Any]] | None = None,
) -> Case:
    turns = [{"role": "user", "content": user}] if isinstance(user, str) else user
    expected = [
        {"name": name, "arguments": args, **({"accept": accept} if accept else {})}
        for name, args in (calls or [])
    ]
    return {
        "id": f"inv-{number:03d}",
        "category": category,
        "messages": [{"role": "system", "content": SYSTEM}, *turns],
        "tools": TOOLS_REF,
        "expected": {"calls": expected},
        "context": {"today": TODAY.isoformat()},
    }


def create_basic(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    cus, amount, due = g.customer(), g.amount(), g.future()
    text = g.rng.choice(
        [
            "Create an invoice for {c} for {a}, due {d}.",
            "Please bill customer {c} {a}; payment due on {d}.",
            "New invoice: {c}, {a}, due date {d}.",
            "Invoice {c} {a} and make it due {d}.",
        ]
    ).format(c=cus, a=g.say_amount(amount), d=g.say_date(due))
    args = {"customer_id": cus, "amount_vnd": amount, "due_date": due.isoformat()}
    return text, [("create_invoice", args)]


def create_no_year(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    # A month and day without a year: the only reading not in the past is the next one.
    cus, amount = g.customer(), g.amount()
    due = date(2027, g.rng.randint(1, 10), g.rng.randint(1, 28))
    text = f"Bill {cus} {g.say_amount(amount)}, due {g.say_date(due, with_year=False)}."
    args = {"customer_id": cus, "amount_vnd": amount, "due_date": due.isoformat()}
    return text, [("create_invoice", args)]


def create_loose_id(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    # The customer id written loosely; the pattern says how it must be sent.
    digits = g.customer()[4:]
    amount, due = g.amount(), g.future()
    loose = g.rng.choice([f"cus {digits}", f"customer number {digits}", f"CUS{digits}"])
    text = f"Make an invoice of {g.say_amount(amount)} for {loose}, due {g.say_date(due)}."
    args = {"customer_id": f"CUS-{digits}", "amount_vnd": amount, "due_date": due.isoformat()}
    return text, [("create_invoice", args)]


def order_status(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    order = g.order()
    shown = g.rng.choice([order, order, order.replace("-", " "), order.lower()])
    text = g.rng.choice(
        ["Where is my order {o}?", "What's the status of order {o}?", "Has {o} shipped yet?"]
    ).format(o=shown)
    return text, [("get_order_status", {"order_id": order})]


def get_invoice(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    inv = g.invoice()
    text = g.rng.choice(["Show me invoice {i}.", "What does {i} say?", "Open invoice {i} please."])
    return text.format(i=inv), [("get_invoice", {"invoice_id": inv})]


def list_range(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]], dict[str, list[Any]]]:
    cus = g.customer()
    start = g.past() - timedelta(days=60)
    end = start + timedelta(days=g.rng.randint(10, 50))
    status = g.rng.choice(["unpaid", "paid", "overdue"])
    text = (
        f"List the {status} invoices of {cus} issued between {g.say_date(start)} "
        f"and {g.say_date(end)}."
    )
    args = {
        "customer_id": cus,
        "status": status,
        "from_date": start.isoformat(),
        "to_date": end.isoformat(),
    }
    return text, [("list_invoices", args)], {}


def list_all(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]], dict[str, list[Any]]]:
    cus = g.customer()
    text = g.rng.choice(["List every invoice of {c}.", "Which invoices does {c} have?"])
    # Optional filters may be left out or sent empty (null is dropped by validation).
    accept: dict[str, list[Any]] = {"status": [""], "from_date": [""], "to_date": [""]}
    return text.format(c=cus), [("list_invoices", {"customer_id": cus})], accept


def update_due(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    inv, due = g.invoice(), g.future()
    text = g.rng.choice(
        ["Move the due date of {i} to {d}.", "Give {i} more time: new due date {d}."]
    ).format(i=inv, d=g.say_date(due))
    return text, [("update_invoice_due_date", {"invoice_id": inv, "due_date": due.isoformat()})]


def cancel(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    inv = g.invoice()
    reason, words = g.rng.choice(
        [
            ("duplicate", "it was issued twice"),
            ("customer_request", "the customer asked us to"),
            ("wrong_amount", "the amount on it is wrong"),
        ]
    )
    text = f"Cancel invoice {inv}, {words}."
    return text, [("cancel_invoice", {"invoice_id": inv, "reason": reason})]


def credit_note(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    inv, amount = g.invoice(), g.amount()
    text = g.rng.choice(
        [
            "Refund {a} of the paid invoice {i}.",
            "Issue a credit note of {a} against {i}.",
            "{i} was paid but we owe the customer {a} back.",
        ]
    ).format(i=inv, a=g.say_amount(amount))
    return text, [("create_credit_note", {"invoice_id": inv, "amount_vnd": amount})]


def reminder(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    inv = g.invoice()
    channel, words = g.rng.choice(
        [
            ("email", "by email"),
            ("sms", "by text message"),
            ("sms", "via SMS"),
            ("email", "by mail"),
        ]
    )
    text = f"Remind the customer to pay {inv} {words}."
    return text, [("send_payment_reminder", {"invoice_id": inv, "channel": channel})]


def payment(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    inv, amount, paid = g.invoice(), g.amount(), g.past()
    text = f"We received {g.say_amount(amount)} for {inv} on {g.say_date(paid)}."
    args = {"invoice_id": inv, "amount_vnd": amount, "paid_on": paid.isoformat()}
    return text, [("record_payment", args)]


def balance(g: Gen) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    cus = g.customer()
    text = g.rng.choice(["How much does {c} still owe us?", "What is the balance of {c}?"])
    return text.format(c=cus), [("get_customer_balance", {"customer_id": cus})]


IRRELEVANT = [
    "What is the capital of France?",
    "Write a two-line poem about spreadsheets.",
    "How is VAT usually calculated in Vietnam?",
    "Thanks, that's all for today!",
    "What does 'net 30' mean on an invoice?",
    "Translate 'invoice' into Vietnamese.",
    "Can you explain the difference between a credit note and a refund?",
    "Good morning!",
    "Which is bigger, 1.5 million or 1,200,000?",
    "Give me three tips for getting customers to pay on time.",
    "What's 15% of 2,000,000?",
    "Who invented double-entry bookkeeping?",
    "Summarise what an accounts receivable clerk does.",
    "Is it better to invoice weekly or monthly?",
    "Tell me a joke about accountants.",
    "How many days are there in February 2027?",
    "What time zone is Hanoi in?",
    "Spell 'receivable' backwards.",
    "What should a good invoice template include?",
    "Can you write a polite email asking for a meeting next week?",
    "Convert 100 US dollars to words.",
    "What is an ORD number usually used for?",
    "Explain what a due date is to a new employee.",
    "How do I say thank you in Vietnamese?",
    "What is the weekday of 2027-01-01?",
]


def multi_turn(
    g: Gen, index: int
) -> tuple[list[dict[str, Any]], list[tuple[str, dict[str, Any]]] | None]:
    cus, inv, amount, due = g.customer(), g.invoice(), g.amount(), g.future()
    first = f"Create an invoice for {cus} for {g.say_amount(amount)}, due {g.say_date(due)}."
    call_id = f"call{index:03d}"
    history: list[dict[str, Any]] = [
        {"role": "user", "content": first},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": "create_invoice",
                        "arguments": json.dumps(
                            {"customer_id": cus, "amount_vnd": amount, "due_date": due.isoformat()}
                        ),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": call_id,
            "content": json.dumps({"invoice_id": inv, "status": "unpaid"}),
        },
        {"role": "assistant", "content": f"Done: invoice {inv} is created."},
    ]
    kind = index % 5
    if kind == 0:
        follow, calls = (
            "Now send them a reminder for it by email.",
            [("send_payment_reminder", {"invoice_id": inv, "channel": "email"})],
        )
    elif kind == 1:
        new_due = due + timedelta(days=14)
        follow = f"Actually, push its due date to {g.say_date(new_due)}."
        calls = [("update_invoice_due_date", {"invoice_id": inv, "due_date": new_due.isoformat()})]
    elif kind == 2:
        follow, calls = (
            "Oops, that one is a duplicate. Cancel it.",
            [("cancel_invoice", {"invoice_id": inv, "reason": "duplicate"})],
        )
    elif kind == 3:
        follow, calls = (
            "What does that customer owe in total now?",
            [("get_customer_balance", {"customer_id": cus})],
        )
    else:
        follow, calls = "Great, thank you!", None
    return [*history, {"role": "user", "content": follow}], calls


def build() -> list[Case]:
    g = Gen(SEED)
    cases: list[Case] = []

    def add(category: str, count: int, make: Callable[[Gen], Any]) -> None:
        for _ in range(count):
            made = make(g)
            accept = made[2] if len(made) == 3 else None
            cases.append(case(len(cases) + 1, category, made[0], made[1], accept=accept))

    add("create/basic", 20, create_basic)
    add("create/no_year", 10, create_no_year)
    add("create/loose_id", 10, create_loose_id)
    add("order/status", 15, order_status)
    add("invoice/get", 10, get_invoice)
    add("invoice/list_range", 12, list_range)
    add("invoice/list_optional", 6, list_all)
    add("invoice/update_due", 10, update_due)
    add("invoice/cancel", 9, cancel)
    add("invoice/credit_note", 9, credit_note)
    add("invoice/reminder", 10, reminder)
    add("payment/record", 10, payment)
    add("customer/balance", 8, balance)
    for text in IRRELEVANT:
        cases.append(case(len(cases) + 1, "irrelevant", text, None))
    for index in range(15):
        turns, calls = multi_turn(g, index)
        cases.append(case(len(cases) + 1, "multi_turn", turns, calls))
    return cases


def main(argv: list[str]) -> int:
    return write_or_check(OUT, build(), "make_invoices.py", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
