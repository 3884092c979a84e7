"""Grounded decoding: the exact schema a forced request sends, held to the stated values."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, Field

from toolcall_sdk import Derived, InvalidArgumentError, ToolCallClient, tool
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory, Ledger

PROMPT = [
    {"role": "system", "content": "Today is 2026-12-01. Amounts are in VND."},
    {"role": "user", "content": "Bill CUS-148717 12.5 million VND, due 20 December."},
]


@pytest.fixture
def invoice(ledger: Ledger) -> Any:
    @tool
    def create_invoice(
        customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
        amount_vnd: Annotated[int, Field(gt=0)],
        due_date: date,
        fee_vnd: Annotated[int, Derived()] = 0,
        note: str = "",
    ) -> str:
        """Create an invoice."""
        ledger.calls.append(("create_invoice", {"amount_vnd": amount_vnd}))
        return "INV-1"

    return create_invoice


def _properties(request: Any) -> dict[str, Any]:
    [tool_entry] = (request.json or {})["tools"]
    properties: dict[str, Any] = tool_entry["function"]["parameters"]["properties"]
    return properties


GOOD = {"customer_id": "CUS-148717", "amount_vnd": 12500000, "due_date": "2026-12-20"}


def test_forced_requests_hold_numbers_dates_and_identifiers_to_the_conversation(
    make_client: ClientFactory, invoice: Any
) -> None:
    model = ScriptedModel([tool_call("create_invoice", GOOD)])
    client = make_client(model, [invoice], grounded_decoding="forced")

    result = client.call(PROMPT)

    properties = _properties(model.calls_for("call")[0])
    assert properties["customer_id"]["enum"] == ["CUS-148717"]
    assert 12500000 in properties["amount_vnd"]["enum"]
    assert 125000000 not in properties["amount_vnd"]["enum"]
    assert all(value > 0 for value in properties["amount_vnd"]["enum"])  # gt=0 holds
    assert properties["due_date"]["enum"] == ["2026-12-01", "2026-12-20", "2027-12-20"]
    # Derived and free-text fields are never held.
    assert "enum" not in properties["fee_vnd"]
    assert "enum" not in properties["note"]
    assert result.attempts[0].request.constrained == (
        "create_invoice:/customer_id",
        "create_invoice:/amount_vnd",
        "create_invoice:/due_date",
    )


def test_retry_mode_holds_only_the_retry_after_an_ungrounded_value(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    wrong = {**GOOD, "amount_vnd": 125000000}
    model = ScriptedModel([tool_call("create_invoice", wrong), tool_call("create_invoice", GOOD)])
    client = make_client(model, [invoice], grounded_decoding="retry", grounding=True)

    result = client.run(PROMPT)

    first, retry = model.calls_for("call")
    assert "enum" not in _properties(first)["amount_vnd"]
    assert 12500000 in _properties(retry)["amount_vnd"]["enum"]
    assert [p.kind for p in result.attempts[0].problems] == ["ungrounded"]
    assert result.attempts[0].request.constrained == ()
    assert "create_invoice:/amount_vnd" in result.attempts[1].request.constrained
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]


def test_a_free_choice_and_a_field_with_no_candidate_stay_unconstrained(
    make_client: ClientFactory, invoice: Any
) -> None:
    model = ScriptedModel([tool_call("create_invoice", GOOD), tool_call("create_invoice", GOOD)])
    # Under auto vLLM holds the answer to no schema: nothing is sent differently.
    free = make_client(model, [invoice], grounded_decoding="forced", tool_choice="auto")
    free.call(PROMPT)
    assert all("enum" not in p for p in _properties(model.calls_for("call")[0]).values())

    forced = make_client(model, [invoice], grounded_decoding="forced")
    forced.call("Bill the usual customer the usual amount.")  # no id, no date stated
    properties = _properties(model.calls_for("call")[1])
    assert "enum" not in properties["customer_id"]
    assert "enum" not in properties["due_date"]


@pytest.mark.parametrize(
    ("request_text", "held"),
    [
        ("Bill CUS-148717 12.5 million VND, due 2026-12-20.", True),
        ("Bill CUS-148717 1.500.000 đồng, due 2026-12-20.", True),
        ("Bill CUS-148717 800k, due 2026-12-20.", True),
        ("Bill CUS-148717 one million VND, due 2026-12-20.", True),
        # Every number in plain digits: the model copies them, and may need one it knows.
        ("Bill CUS-148717 1500000 VND, due 2026-12-20.", False),
        ("Bill CUS-148717 for 3 items, due 2026-12-20.", False),
        ("Bill CUS-148717 two items at 440 each, due 2026-12-20.", False),
    ],
)
def test_numbers_are_held_only_where_one_must_be_read(
    make_client: ClientFactory, invoice: Any, request_text: str, held: bool
) -> None:
    model = ScriptedModel([tool_call("create_invoice", GOOD)])
    client = make_client(model, [invoice], grounded_decoding="forced", max_retries=0)

    client.call(request_text)

    properties = _properties(model.calls_for("call")[0])
    assert ("enum" in properties["amount_vnd"]) is held
    # Dates and identifiers are held either way.
    assert properties["customer_id"]["enum"] == ["CUS-148717"]
    assert "2026-12-20" in properties["due_date"]["enum"]


def test_off_is_the_default_and_a_wrong_mode_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="grounded_decoding must be one of"):
        ToolCallClient(base_url="http://127.0.0.1:9/v1", model="m", grounded_decoding="on")  # type: ignore[arg-type]


def _not_past(day: date) -> date:
    if day < date(2026, 12, 1):
        raise ValueError("must not be in the past (today is 2026-12-01)")
    return day


@tool
def bill(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: Annotated[date, AfterValidator(_not_past)],
) -> str:
    """Create an invoice."""
    return "INV-1"


PAST = {"customer_id": "CUS-259240", "amount_vnd": 1500000, "due_date": "2026-07-22"}
NO_YEAR = [
    {"role": "system", "content": "Today is 2026-12-01."},
    {"role": "user", "content": "Bill CUS-259240 1.500.000 dong, due July 22."},
]


def test_a_value_validation_refused_is_not_offered_again(make_client: ClientFactory) -> None:
    model = ScriptedModel(
        [tool_call("bill", PAST), tool_call("bill", {**PAST, "due_date": "2027-07-22"})]
    )
    client = make_client(model, [bill], grounded_decoding="forced")

    result = client.call(NO_YEAR)

    first, retry = model.calls_for("call")
    assert _properties(first)["due_date"]["enum"] == ["2026-07-22", "2026-12-01", "2027-07-22"]
    # The refused reading of "July 22" leaves its other one: not every other stated date
    # (offered today's too, the 0.5B took it).
    assert _properties(retry)["due_date"]["enum"] == ["2027-07-22"]
    assert result.calls[0].arguments.model_dump()["due_date"] == date(2027, 7, 22)


@pytest.mark.parametrize("mode", ["off", "retry"])
def test_with_decoding_off_the_retry_still_holds_the_field_whose_value_was_refused(
    make_client: ClientFactory, mode: str
) -> None:
    # The 0.5B wrote 2026-07-22 for "July 22" three times over, told each time that it was
    # in the past, until ToolCallFailed.
    model = ScriptedModel(
        [tool_call("bill", PAST), tool_call("bill", {**PAST, "due_date": "2027-07-22"})]
    )
    client = make_client(model, [bill], grounded_decoding=mode)

    result = client.call(NO_YEAR)

    first, retry = model.calls_for("call")
    assert all("enum" not in field for field in _properties(first).values())
    held = _properties(retry)
    assert held["due_date"]["enum"] == ["2027-07-22"]
    # Only the refused field: the amount and the id stay as the model writes them.
    assert "enum" not in held["amount_vnd"]
    assert "enum" not in held["customer_id"]
    assert result.attempts[1].request.constrained == ("bill:/due_date",)
    assert result.calls[0].arguments.model_dump()["due_date"] == date(2027, 7, 22)


def test_with_decoding_on_the_retry_after_an_ungrounded_value_is_forced_and_held(
    make_client: ClientFactory, invoice: Any
) -> None:
    wrong = {**GOOD, "amount_vnd": 125000000}
    model = ScriptedModel([tool_call("create_invoice", wrong), tool_call("create_invoice", GOOD)])
    # The default router leaves the first request to the answer (auto).
    client = make_client(model, [invoice], router="llm", grounded_decoding="retry", grounding=True)

    client.call(PROMPT)

    first, retry = model.calls_for("call")
    assert (first.json or {})["tool_choice"] == "auto"
    assert (retry.json or {})["tool_choice"] != "auto"
    assert 12500000 in _properties(retry)["amount_vnd"]["enum"]


@pytest.mark.parametrize(
    ("mode", "held"),
    [
        # Nothing is a reading of the refused date: with decoding off the field stays free
        # (held to the other stated dates, the 0.5B took the reference day, and it ran).
        ("off", None),
        ("forced", ["2026-07-22", "2026-12-01", "2027-07-22"]),
    ],
)
def test_a_refused_date_that_no_mention_reads_is_held_only_when_decoding_is_on(
    make_client: ClientFactory, mode: str, held: list[str] | None
) -> None:
    invented = {**PAST, "due_date": "2026-01-05"}
    model = ScriptedModel(
        [tool_call("bill", invented), tool_call("bill", {**PAST, "due_date": "2027-07-22"})]
    )

    make_client(model, [bill], grounded_decoding=mode).call(NO_YEAR)

    _, retry = model.calls_for("call")
    assert _properties(retry)["due_date"].get("enum") == held
