"""Which offered tool a call to an unoffered name means: its words and arguments decide."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk._meant_tool import meant_choices, meant_tool


def _function(
    name: str, description: str, required: tuple[str, ...] = (), **properties: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": list(required)},
    }


STRING: dict[str, Any] = {"type": "string"}
DATE: dict[str, Any] = {"type": "string", "format": "date"}
NULL: dict[str, Any] = {"type": "null"}
MOVE = {"invoice_id": "INV-749372", "due_date": "2026-12-14"}
CONVERT = {"base_currency": "USD", "target_currency": "EUR", "amount": 100}
INVOICES = {
    "update_invoice_due_date": _function(
        "update_invoice_due_date",
        "Move the due date of an existing invoice.",
        ("invoice_id", "due_date"),
        invoice_id=STRING,
        due_date=DATE,
    ),
    "create_credit_note": _function(
        "create_credit_note",
        "Refund part of a paid invoice with a credit note.",
        ("invoice_id", "amount_vnd"),
        invoice_id=STRING,
        amount_vnd={"type": "integer"},
    ),
    "list_invoices": _function(
        "list_invoices",
        "List a customer's invoices, optionally by status and issue-date range.",
        # The strict form: every parameter required, the optional ones nullable.
        ("customer_id", "status", "from_date", "to_date"),
        customer_id=STRING,
        status={"anyOf": [{"type": "string", "enum": ["unpaid", "paid", "overdue"]}, NULL]},
        from_date={"anyOf": [DATE, NULL]},
        to_date={"anyOf": [DATE, NULL]},
    ),
}


@pytest.mark.parametrize(
    ("name", "arguments", "meant"),
    [
        # Words of the description.
        ("move_due_date", MOVE, "update_invoice_due_date"),
        ("refund_invoice", '{"invoice_id": "INV-8", "amount_vnd": 500000}', "create_credit_note"),
        # A fixed choice of a parameter, and a plural of a word of the name.
        (
            "list_paid_invoices",
            {"customer_id": "CUS-7", "from_date": "2026-07-08"},
            "list_invoices",
        ),
        ("listOverdueInvoices", {"customer_id": "CUS-770066"}, "list_invoices"),
    ],
)
def test_a_name_made_of_one_tools_words_with_its_arguments_means_that_tool(
    name: str, arguments: Any, meant: str
) -> None:
    assert meant_tool(name, arguments, INVOICES) == meant


HYPOT = {
    "math_hypot": _function(
        "math_hypot",
        "The Euclidean norm, sqrt(x*x + y*y).",
        ("x", "y"),
        x={"type": "number"},
        y={"type": "number"},
    ),
}
CELLS = {
    "cell_divide": _function(
        "cell_divide",
        "Simulate the division of a cell into two daughter cells.",
        cell_id=STRING,
        method=STRING,
        times={"type": "integer"},
    ),
}
CURRENCY = {
    "currency_converter": _function(
        "currency_converter",
        "Calculates the cost in target currency given the amount in base currency.",
        base_currency=STRING,
        target_currency=STRING,
        amount={"type": "number"},
    ),
}


@pytest.mark.parametrize(
    ("name", "arguments", "tools"),
    [
        # A word the tool never uses: the model invented a tool for another question.
        ("restaurant_divide", {"cell_id": "12345", "method": "meiosis", "times": 2}, CELLS),
        ("flight_duration", CONVERT, CURRENCY),
        # An argument the tool does not take.
        ("move_due_date", {"invoice_id": "INV-1", "new_due_date": "2026-12-14"}, INVOICES),
        # A parameter the tool requires left out: another tool's call ("sqrt" is a word of
        # math_hypot's description).
        ("math.sqrt", {"x": 9}, HYPOT),
        # No arguments, or none readable: nothing ties the call to the tool.
        ("list_invoices_now", {}, {"list_invoices_now_x": INVOICES["list_invoices"]}),
        ("move_due_date", "not json", INVOICES),
        ("move_due_date", ["INV-1"], INVOICES),
        # A name with no words.
        ("__", {"invoice_id": "INV-1"}, INVOICES),
        # The schema written out: a value is a phrase of the tool's own descriptions (the
        # 0.5B's answer to "Translate 'invoice' into Vietnamese.").
        ("refund_invoice", {"invoice_id": "a paid invoice", "amount_vnd": 1}, INVOICES),
    ],
)
def test_a_name_or_arguments_another_tool_would_need_mean_nothing(
    name: str, arguments: Any, tools: dict[str, Any]
) -> None:
    assert meant_tool(name, arguments, tools) is None


def test_two_tools_that_both_fit_mean_neither() -> None:
    tools = {
        "get_invoice": _function("get_invoice", "Fetch one invoice.", invoice_id=STRING),
        "void_invoice": _function("void_invoice", "Void one invoice.", invoice_id=STRING),
    }

    assert meant_tool("invoice", {"invoice_id": "INV-1"}, tools) is None
    assert meant_tool("fetch_invoice", {"invoice_id": "INV-1"}, tools) == "get_invoice"


@pytest.mark.parametrize(
    ("name", "arguments", "filled"),
    [
        # The user asked for the overdue ones; the model said so in the name only.
        ("list_overdue_invoices", {"customer_id": "CUS-1"}, {"status": "overdue"}),
        ("list_paid_invoices", '{"customer_id": "CUS-1", "status": null}', {"status": "paid"}),
        # A value the call gives stays the call's.
        ("list_paid_invoices", {"customer_id": "CUS-1", "status": "unpaid"}, {}),
        # No word of the name is a choice; "list" is the tool's own word.
        ("list_invoices_for_customer", {"customer_id": "CUS-1"}, {}),
    ],
)
def test_a_word_of_the_name_that_is_a_fixed_choice_fills_its_parameter(
    name: str, arguments: Any, filled: dict[str, Any]
) -> None:
    assert meant_choices(name, arguments, INVOICES["list_invoices"]) == filled


def test_a_word_that_is_a_choice_of_two_parameters_fills_neither() -> None:
    both = _function(
        "list_orders",
        "List orders.",
        status={"enum": ["open", "closed"]},
        payment={"enum": ["open", "settled"]},
    )

    assert meant_choices("list_open_orders", {}, both) == {}
    assert meant_choices("list_settled_orders", {}, both) == {"payment": "settled"}
