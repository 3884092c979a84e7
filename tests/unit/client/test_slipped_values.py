"""A number or date one slip from a stated one is checked, grounding on or off, and the
forced retry is held to the stated value it slipped from."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import Field

from toolcall_sdk import tool
from toolcall_sdk.grounding._slips import is_slip_of
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory, Ledger

SYSTEM = {"role": "system", "content": "Today is 2026-12-01. Amounts are in VND."}


@pytest.fixture
def tools(ledger: Ledger) -> list[Any]:
    @tool
    def create_invoice(
        customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
        amount_vnd: Annotated[int, Field(gt=0)],
        due_date: date,
    ) -> str:
        """Create an invoice."""
        ledger.calls.append(("create_invoice", {"amount_vnd": amount_vnd, "due_date": due_date}))
        return "INV-000001"

    return [create_invoice]


def asked(text: str) -> list[dict[str, str]]:
    return [SYSTEM, {"role": "user", "content": text}]


@pytest.mark.parametrize("router", ["llm", "always"])
def test_ten_times_the_stated_amount_is_fed_back_and_the_retry_held_to_it(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, router: str
) -> None:
    # The 0.5B demo model's answer to this (the ladder's inv-006), and again when told.
    slipped = {"customer_id": "CUS-148717", "amount_vnd": 25000000, "due_date": "2027-01-11"}
    model = ScriptedModel(
        [
            tool_call("create_invoice", slipped),
            tool_call("create_invoice", {**slipped, "amount_vnd": 2500000}),
        ]
    )
    client = make_client(model, tools, router=router)

    result = client.run(asked("Bill CUS-148717 2.5 million VND, due on 11 January 2027."))

    [problem] = result.attempts[0].problems
    assert (problem.kind, [f.field for f in problem.fields]) == ("ungrounded", ["amount_vnd"])
    assert "25000000" in problem.message
    retry = model.requests[-1].json
    assert retry is not None
    [function] = [t["function"] for t in retry["tools"]]
    # Held to the value it slipped from, and only that field.
    assert function["parameters"]["properties"]["amount_vnd"]["enum"] == [2500000]
    assert "enum" not in function["parameters"]["properties"]["due_date"]
    assert result.attempts[1].request.constrained == ("create_invoice:/amount_vnd",)
    assert ledger.calls == [
        ("create_invoice", {"amount_vnd": 2500000, "due_date": date(2027, 1, 11)})
    ]


def test_a_date_with_day_and_month_swapped_is_fed_back_and_the_retry_held_to_it(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    slipped = {"customer_id": "CUS-148717", "amount_vnd": 1500000, "due_date": "2027-11-01"}
    model = ScriptedModel(
        [
            tool_call("create_invoice", slipped),
            tool_call("create_invoice", {**slipped, "due_date": "2027-01-11"}),
        ]
    )

    result = make_client(model, tools).run(
        asked("Please bill customer CUS-148717 1.500.000 đồng; payment due on 11 January 2027.")
    )

    [problem] = result.attempts[0].problems
    assert [f.field for f in problem.fields] == ["due_date"]
    retry = model.requests[-1].json
    assert retry is not None
    properties = retry["tools"][0]["function"]["parameters"]["properties"]
    assert properties["due_date"]["enum"] == ["2027-01-11"]
    assert ledger.calls == [
        ("create_invoice", {"amount_vnd": 1500000, "due_date": date(2027, 1, 11)})
    ]


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Bill CUS-148717 2.5 million VND, due 11 January 2027.", 2500000),  # as stated
        # A stated 10 may make a tenth right: "split 20000 among 10".
        ("Split 20000 among 10 people and bill CUS-148717 each share, due 11 January 2027.", 2000),
        # Below 1,000 a tenth is often right (10% of 5000).
        ("Bill CUS-148717 5000 VND, due 11 January 2027.", 500),
    ],
)
def test_values_that_are_not_a_slip_run_unchecked(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, text: str, amount: int
) -> None:
    args = {"customer_id": "CUS-148717", "amount_vnd": amount, "due_date": "2027-01-11"}
    model = ScriptedModel([tool_call("create_invoice", args)])

    result = make_client(model, tools).run(asked(text))

    assert result.attempts[0].problems == []
    assert ledger.calls == [
        ("create_invoice", {"amount_vnd": amount, "due_date": date(2027, 1, 11)})
    ]


def test_a_date_both_readings_of_which_are_stated_is_not_a_slip(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    # 05/01/2027 states both 5 January and 1 May: either is a reading, not a slip.
    args = {"customer_id": "CUS-148717", "amount_vnd": 1500000, "due_date": "2027-05-01"}
    model = ScriptedModel([tool_call("create_invoice", args)])

    result = make_client(model, tools).run(asked("Bill CUS-148717 1.500.000 VND due 05/01/2027."))

    assert result.attempts[0].problems == []
    assert len(ledger.calls) == 1


@pytest.mark.parametrize(
    ("value", "stated", "slip"),
    [
        (25000000, 2500000, True),
        (450000, 4500000, True),
        (2500000, 2500000, False),
        (25000, 2500000, False),  # a hundredth: "$45" in cents is 4500
        (4500, 45, False),
        (500, 50, False),  # both under 1,000
        ("2027-11-01", "2027-01-11", True),
        ("2027-01-01", "2027-01-01", False),
        ("2027-11-01", "2026-01-11", False),  # another year
        (True, 10, False),
    ],
)
def test_is_slip_of(value: Any, stated: Any, slip: bool) -> None:
    assert is_slip_of(value, stated) is slip
