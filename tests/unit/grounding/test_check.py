"""The check itself: which values are looked for, where, and what feedback says."""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolcall_sdk import Derived, Grounded, GroundingPolicy, InvalidArgumentError, tool
from toolcall_sdk._results import Problem, ToolCall
from toolcall_sdk._tools import Tool
from toolcall_sdk._validation import check_answer
from toolcall_sdk.grounding import DEFAULT_POLICY
from toolcall_sdk.grounding._check import Grounder
from toolcall_sdk.grounding._policy import named_grounding, resolve_grounding

ALL = GroundingPolicy()


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: date,
) -> None:
    """Create an invoice."""


class Line(BaseModel):
    sku: str
    quantity: int
    total_vnd: Annotated[int, Derived()]


@tool
def place_order(
    lines: list[Line],
    city: Annotated[str, Grounded()],
    note: str = "",
    currency: Literal["VND", "USD"] = "VND",
    contact: str | None = None,
    pages: int = 10,
) -> None:
    """Place an order."""


def check(
    tool_: Tool[..., Any],
    arguments: dict[str, Any],
    *messages: dict[str, Any] | str,
    policy: GroundingPolicy = ALL,
) -> list[Problem]:
    schema = tool_.openai_schema()
    tools = {tool_.name: tool_}
    call = {"id": "call_1", "function": {"name": tool_.name, "arguments": json.dumps(arguments)}}
    calls, problems = check_answer(
        {"role": "assistant", "tool_calls": [call]},
        tools,
        schemas={tool_.name: schema["function"]["parameters"]},
    )
    assert not problems, problems
    history = [{"role": "user", "content": m} if isinstance(m, str) else m for m in messages]
    grounded, ungrounded = Grounder(tools, {tool_.name: schema}).check(calls, history, policy)
    assert [c.id for c in grounded] == ([] if ungrounded else ["call_1"])
    return ungrounded


INVOICE = {"customer_id": "CUS-000042", "amount_vnd": 12_500_000, "due_date": "2028-01-31"}
ASKED = "Invoice CUS-000042 for 12.5 million VND, due January 31, 2028."


def lines(problems: list[Problem]) -> list[str]:
    return [f"{f.field}: {f.message}" for p in problems for f in p.fields]


def test_values_the_user_gave_pass() -> None:
    assert check(create_invoice, INVOICE, ASKED) == []


def test_the_issue_example_names_the_field_value_and_what_the_user_wrote() -> None:
    [problem] = check(create_invoice, {**INVOICE, "amount_vnd": 125_000_000}, ASKED)

    assert problem.kind == "ungrounded"
    assert problem.tool_name == "create_invoice"
    assert problem.call_id == "call_1"
    assert [f.field for f in problem.fields] == ["amount_vnd"]
    assert problem.fields[0].value == 125_000_000
    assert lines([problem]) == [
        'amount_vnd: 125000000 is not a number the user gave; the user wrote "12.5 million VND" '
        "(= 12500000)"
    ]


def test_each_wrong_value_is_listed() -> None:
    wrong = {"customer_id": "CUS-000024", "amount_vnd": 42_000_000, "due_date": "2028-01-13"}
    [problem] = check(create_invoice, wrong, "Bill CUS-000042 4,2 triệu, due 31/01/2028")

    assert lines([problem]) == [
        'customer_id: "CUS-000024" is not an identifier the user gave; the user wrote "CUS-000042"',
        'amount_vnd: 42000000 is not a number the user gave; the user wrote "4,2 triệu" '
        "(= 4200000)",
        'due_date: 2028-01-13 is not a date the user gave; the user wrote "31/01/2028" '
        "(= 2028-01-31)",
    ]


def test_the_default_policy_leaves_numbers_out() -> None:
    wrong = {**INVOICE, "amount_vnd": 125_000_000}
    assert check(create_invoice, wrong, ASKED, policy=DEFAULT_POLICY) == []
    [problem] = check(
        create_invoice, {**wrong, "customer_id": "CUS-000024"}, ASKED, policy=DEFAULT_POLICY
    )
    assert [f.field for f in problem.fields] == ["customer_id"]


@pytest.mark.parametrize(
    "written",
    ["cus 000042", "CUS000042", "cus-000042", "customer 000042", "customer number 42"],
)
def test_an_identifier_is_found_whatever_its_case_and_separators(written: str) -> None:
    asked = f"Invoice {written} for 12.5 million VND, due January 31, 2028."
    assert check(create_invoice, INVOICE, asked) == []


def test_an_identifier_is_not_found_inside_a_longer_one() -> None:
    [problem] = check(
        create_invoice, {**INVOICE, "customer_id": "CUS-000042"}, ASKED.replace("42", "421")
    )
    assert problem.fields[0].field == "customer_id"


@pytest.mark.parametrize(
    "asked",
    ["Bill customer CUS-638256 for 12.5 million VND.", "Bill CUS_638256 for 12.5 million VND."],
)
def test_an_id_is_not_given_by_another_id_with_the_same_number(asked: str) -> None:
    # The 0.5B, told its invoice id `CUS-638256` breaks `^INV-\d{6}$`, wrote `INV-638256`:
    # the customer's number under the invoice prefix, an invoice nobody named.
    @tool
    def get_invoice(invoice_id: Annotated[str, Field(pattern=r"^INV-\d{6}$")]) -> None:
        """Show an invoice."""

    [problem] = check(get_invoice, {"invoice_id": "INV-638256"}, asked)

    assert lines([problem])[0].startswith('invoice_id: "INV-638256" is not an identifier')


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("Show invoice 638256.", "INV-638256"),
        ("Show invoice number 638256, please.", "INV-0638256"),
        ("Show INV638256.", "INV-638256"),
    ],
)
def test_a_bare_number_or_the_same_prefix_still_gives_the_id(asked: str, written: str) -> None:
    @tool
    def get_invoice(invoice_id: Annotated[str, Field(pattern=r"^INV-\d{6,7}$")]) -> None:
        """Show an invoice."""

    assert check(get_invoice, {"invoice_id": written}, asked) == []


@tool
def uv_index(
    location: str,
    date: Annotated[str, Field(description="The date for the UV index, in the format mm-dd-yyyy.")],
) -> None:
    """Retrieve UV index data for a location and date."""


@pytest.mark.parametrize(
    ("written", "grounded"),
    [("06-01-2023", True), ("01-06-2023", False), ("6-1-2023", True), ("2023-06-01", True)],
)
def test_a_date_in_the_layout_its_description_asks_for_is_checked_as_a_date(
    written: str, grounded: bool
) -> None:
    arguments = {"location": "Tokyo", "date": written}

    problems = check(uv_index, arguments, "The UV index for Tokyo on June 1, 2023?")

    assert (problems == []) == grounded
    if not grounded:
        assert lines(problems) == [
            'date: 2023-01-06 is not a date the user gave; the user wrote "June 1, 2023" '
            "(= 2023-06-01)"
        ]


@tool
def send_mail(to: str, subject: str, body: str) -> None:
    """Send an e-mail."""


def test_an_email_must_match_character_for_character_and_text_is_free() -> None:
    asked = "Mail an.nguyen@example.com that the invoice is ready."
    subject = {"subject": "Invoice ready", "body": "Dear An, your invoice is ready."}
    assert check(send_mail, {"to": "an.nguyen@example.com", **subject}, asked) == []
    [problem] = check(send_mail, {"to": "annguyen@example.com", **subject}, asked)
    assert [f.field for f in problem.fields] == ["to"]


def test_choices_defaults_and_derived_fields_are_not_checked_nested_fields_are() -> None:
    order = {
        "lines": [{"sku": "SKU-1234", "quantity": 3, "total_vnd": 450_000}],
        "city": "Huế",
        "currency": "USD",  # an enum: the schema gives it
        "pages": 10,  # the default
    }
    assert check(place_order, order, "3 of SKU-1234 to Huế, 150k each") == []
    wrong = {**order, "lines": [{"sku": "SKU-1243", "quantity": 4, "total_vnd": 1}]}
    [problem] = check(place_order, wrong, "3 of SKU-1234 to Huế, 150k each")
    assert [f.field for f in problem.fields] == ["lines.0.sku", "lines.0.quantity"]


def test_grounded_text_must_be_the_users_words() -> None:
    order = {"lines": [], "city": "Hue"}  # accents aside, the user's word
    assert check(place_order, order, "Deliver to Huế") == []
    [problem] = check(place_order, {**order, "city": "Hanoi"}, "Deliver to Huế")
    assert lines([problem]) == [
        'city: "Hanoi" is not in the conversation; use the words the user wrote'
    ]


def test_grounded_applies_where_the_policy_leaves_the_kind_out() -> None:
    order = {"lines": [], "city": "Hanoi"}
    only_numbers = GroundingPolicy(kinds={"number"})
    assert len(check(place_order, order, "Deliver to Huế", policy=only_numbers)) == 1


def test_tool_results_and_the_system_prompt_are_sources_assistant_text_is_not() -> None:
    history: list[dict[str, Any] | str] = [
        {"role": "system", "content": "The signed-in customer is CUS-000042. Today is 2028-01-01."},
        "Bill me 12.5 million VND",
        {"role": "assistant", "content": "Due when? January 31, 2028?"},
    ]
    [problem] = check(create_invoice, INVOICE, *history)
    assert [f.field for f in problem.fields] == ["due_date"]
    assert (
        check(
            create_invoice, INVOICE, *history, {"role": "tool", "content": '{"due": "2028-01-31"}'}
        )
        == []
    )
    with_answers = GroundingPolicy(sources={"user", "system", "assistant"})
    assert check(create_invoice, INVOICE, *history, policy=with_answers) == []


def test_the_sdks_own_feedback_never_grounds_a_value() -> None:
    wrong = {**INVOICE, "amount_vnd": 125_000_000}
    feedback = {
        "role": "tool",
        "tool_call_id": "call_0",
        "content": "UNGROUNDED in create_invoice (call call_0):\n- amount_vnd: 125000000 ...",
    }
    assert len(check(create_invoice, wrong, ASKED, feedback)) == 1


def test_zero_and_one_are_free_unless_the_policy_says_otherwise() -> None:
    order = {"lines": [{"sku": "SKU-1234", "quantity": 1, "total_vnd": 1}], "city": "Huế"}
    assert check(place_order, order, "A SKU-1234 to Huế") == []
    strict = GroundingPolicy(free_numbers=set())
    assert len(check(place_order, order, "A SKU-1234 to Huế", policy=strict)) == 1


def test_relative_dates_need_a_reference_date() -> None:
    asked = "Invoice CUS-000042 for 12.5 million VND, due tomorrow."
    assert check(create_invoice, {**INVOICE, "due_date": "2030-05-05"}, asked) == []
    dated = GroundingPolicy(reference_date=date(2028, 1, 30))
    assert check(create_invoice, INVOICE, asked, policy=dated) == []
    [problem] = check(create_invoice, {**INVOICE, "due_date": "2028-01-13"}, asked, policy=dated)
    assert problem.fields[0].field == "due_date"
    assert "a relative date" in problem.fields[0].message
    assert (
        check(
            create_invoice,
            INVOICE,
            asked,
            policy=GroundingPolicy(reference_date=lambda: date(2028, 1, 30)),
        )
        == []
    )


def test_a_description_that_states_a_default_gives_that_value() -> None:
    @tool
    def fall(height: int, gravity: float | None = None) -> None:
        """Final velocity of a falling object.

        Args:
            height: Height in metres.
            gravity: Acceleration due to gravity. Default value is 9.81 m/s^2.
        """

    assert check(fall, {"height": 150, "gravity": 9.81}, "Dropped from 150 m") == []
    assert len(check(fall, {"height": 150, "gravity": 9.8}, "Dropped from 150 m")) == 1


def test_policy_and_option_values_are_checked() -> None:
    assert resolve_grounding(False) is None
    assert resolve_grounding(True) == ALL
    assert named_grounding("default") is DEFAULT_POLICY
    assert named_grounding("off") is None
    with pytest.raises(InvalidArgumentError, match="True, False or a GroundingPolicy"):
        resolve_grounding("yes")
    with pytest.raises(InvalidArgumentError, match="unknown kinds 'amount'"):
        GroundingPolicy(kinds={"amount"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="reference_date"):
        GroundingPolicy(reference_date="2028-01-01")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="--grounding"):
        named_grounding("numbers")


def test_a_call_with_no_checked_value_passes_with_no_source_at_all() -> None:
    calls: list[ToolCall] = []
    assert Grounder({}, {}).check(calls, [], ALL) == ([], [])


def test_the_day_the_conversation_states_is_the_reference_date() -> None:
    system = {"role": "system", "content": "You bill customers. Today is 2028-01-30."}
    asked = "Invoice CUS-000042 for 12.5 million VND, due tomorrow."
    assert check(create_invoice, {**INVOICE, "due_date": "2028-01-31"}, system, asked) == []
    [problem] = check(create_invoice, {**INVOICE, "due_date": "2028-02-01"}, system, asked)
    assert problem.fields[0].field == "due_date"
