"""Grounded arguments through the public client: a value the user gave must be that value.

Both twins, against the scripted server; each test asserts the feedback the server received.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from toolcall_sdk import (
    AttemptFailed,
    Derived,
    Grounded,
    GroundingPolicy,
    InvalidArgumentError,
    ToolCallClient,
    ToolCallFailed,
    tool,
)
from toolcall_sdk.grounding import DEFAULT_POLICY
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

from ..conftest import ClientFactory, Ledger

ASKED = "Invoice CUS-000042 for 12.5 million VND, due 2028-01-31."
RIGHT = {"customer_id": "CUS-000042", "amount_vnd": 12_500_000, "due_date": "2028-01-31"}
WRONG = {**RIGHT, "amount_vnd": 125_000_000}
# Not stated either, but not a slip of a stated value: only a grounding policy refuses it.
INVENTED = {**RIGHT, "amount_vnd": 13_000_000}
FEEDBACK = (
    "UNGROUNDED in create_invoice (call call_1):\n"
    '- amount_vnd: 125000000 is not a number the user gave; the user wrote "12.5 million VND" '
    "(= 12500000)\n"
    "Call create_invoice again with the values exactly as the user gave them."
)


def test_a_wrong_amount_is_rejected_named_and_corrected(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("create_invoice", WRONG), tool_call("create_invoice", RIGHT)])
    client = make_client(model, [create_invoice], grounding=True)

    result = client.call(ASKED)

    [first, second] = result.attempts
    assert first.error_kinds == ["ungrounded"]
    [problem] = first.problems
    assert problem.tool_name == "create_invoice"
    assert [(f.field, f.value) for f in problem.fields] == [("amount_vnd", 125_000_000)]
    assert second.ok
    assert result.call.arguments.amount_vnd == 12_500_000  # type: ignore[attr-defined]
    retry = model.calls_for("call")[1]
    assert retry.messages[-1] == {"role": "tool", "tool_call_id": "call_1", "content": FEEDBACK}
    assert retry.messages[-2]["tool_calls"][0]["function"]["arguments"] == (
        '{"customer_id": "CUS-000042", "amount_vnd": 125000000, "due_date": "2028-01-31"}'
    )


def test_vietnamese_grouping_is_accepted_at_once(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    amount = {**RIGHT, "amount_vnd": 1_500_000}
    model = ScriptedModel([tool_call("create_invoice", amount)])
    client = make_client(model, [create_invoice], grounding=True)

    result = client.call("Lập hoá đơn cho CUS-000042: 1.500.000 đồng, hạn 31/01/2028.")

    assert [a.ok for a in result.attempts] == [True]
    assert result.call.arguments.amount_vnd == 1_500_000  # type: ignore[attr-defined]
    assert len(model.calls_for("call")) == 1


def test_retries_run_out_and_nothing_runs(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("create_invoice", WRONG)] * 2)
    client = make_client(model, [create_invoice], grounding=True, max_retries=1)

    with pytest.raises(ToolCallFailed, match="ungrounded: amount_vnd: 125000000") as caught:
        client.run(ASKED)

    assert [a.error_kinds for a in caught.value.attempts] == [["ungrounded"], ["ungrounded"]]
    assert caught.value.executed == []
    assert ledger.calls == []


def test_an_invented_id_is_caught_by_the_default_policy_a_number_is_not(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    invented = {**WRONG, "customer_id": "CUS-000024"}
    model = ScriptedModel(
        [tool_call("create_invoice", invented), tool_call("create_invoice", WRONG)]
    )
    client = make_client(model, [create_invoice], grounding=DEFAULT_POLICY)

    result = client.call(ASKED)

    assert [a.error_kinds for a in result.attempts] == [["ungrounded"], []]
    assert model.calls_for("call")[1].messages[-1]["content"] == (
        "UNGROUNDED in create_invoice (call call_1):\n"
        '- customer_id: "CUS-000024" is not an identifier the user gave; the user wrote '
        '"CUS-000042"\n'
        "Call create_invoice again with the values exactly as the user gave them."
    )


def test_the_client_default_checks_nothing_but_slips(create_invoice: Any) -> None:
    # An invented date runs; 125000000 for "12.5 million" would not (test_slipped_values.py).
    invented = {**RIGHT, "due_date": "2028-01-13"}
    model = ScriptedModel([tool_call("create_invoice", invented)])
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[create_invoice],
        router="always",
        http_client=model.http_client(),
    )

    result = client.call(ASKED)

    assert len(model.chat_requests) == 1
    assert result.attempts[0].problems == []
    assert result.call.arguments.model_dump(mode="json")["due_date"] == "2028-01-13"


def test_default_policy_checks_identifiers_and_dates(create_invoice: Any) -> None:
    from toolcall_sdk.grounding import DEFAULT_POLICY

    invented = {**WRONG, "due_date": "2028-01-13"}
    model = ScriptedModel(
        [tool_call("create_invoice", invented), tool_call("create_invoice", WRONG)]
    )
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[create_invoice],
        router="always",
        http_client=model.http_client(),
        grounding=DEFAULT_POLICY,
    )

    result = client.call(ASKED)

    [problem] = result.attempts[0].problems
    assert [f.field for f in problem.fields] == ["due_date"]  # not amount_vnd
    assert result.call.arguments.amount_vnd == 125_000_000  # type: ignore[attr-defined]


def test_the_per_call_option_overrides_the_clients(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    model = ScriptedModel(
        [
            tool_call("create_invoice", WRONG),
            tool_call("create_invoice", RIGHT),
            tool_call("create_invoice", INVENTED),
        ]
    )
    client = make_client(model, [create_invoice], grounding=False)

    checked = client.call(ASKED, grounding=True)
    unchecked = client.call(ASKED)

    assert [a.error_kinds for a in checked.attempts] == [["ungrounded"], []]
    assert [a.error_kinds for a in unchecked.attempts] == [[]]
    with pytest.raises(InvalidArgumentError, match="grounding must be True, False or a"):
        client.call(ASKED, grounding="numbers")  # type: ignore[arg-type]


def test_a_recovered_call_gets_the_same_check(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    leaked = (
        '<tool_call>{"name": "create_invoice", "arguments": {"customer_id": "CUS-000042", '
        '"amount_vnd": 125000000, "due_date": "2028-01-31"}}</tool_call>'
    )
    model = ScriptedModel([text(leaked), tool_call("create_invoice", RIGHT)])
    client = make_client(model, [create_invoice], grounding=True)

    result = client.call(ASKED)

    assert result.attempts[0].parser_miss
    assert result.attempts[0].error_kinds == ["ungrounded"]
    retry = model.calls_for("call")[1].messages[-1]
    assert retry["role"] == "tool"
    assert '"12.5 million VND" (= 12500000)' in retry["content"]


def test_streamed_calls_get_the_same_check(make_client: ClientFactory, create_invoice: Any) -> None:
    model = ScriptedModel([tool_call("create_invoice", WRONG), tool_call("create_invoice", RIGHT)])
    client = make_client(model, [create_invoice], grounding=True)

    events = list(client.stream(ASKED))

    failed = next(e for e in events if isinstance(e, AttemptFailed))
    assert failed.attempt.error_kinds == ["ungrounded"]
    assert failed.attempt.feedback[0]["content"] == FEEDBACK
    assert model.calls_for("call")[1].messages[-1] == failed.attempt.feedback[0]


def test_tool_results_ground_the_next_steps_values(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger
) -> None:
    @tool
    def find_customer(name: str) -> str:
        """Find a customer's id by name."""
        ledger.calls.append(("find_customer", {"name": name}))
        return "CUS-000042"

    routes = iter([True, True, False])
    model = ScriptedModel(
        [
            tool_call("find_customer", {"name": "Acme"}),
            tool_call("create_invoice", {**RIGHT, "customer_id": "CUS-000043"}),
            tool_call("create_invoice", RIGHT),
            text("Done."),
        ],
        route_answer=lambda request: next(routes),
    )
    client = make_client(model, [find_customer, create_invoice], grounding=True, router="probe")

    result = client.run("Invoice Acme 12.5 million VND, due 2028-01-31.", max_steps=4)

    assert [[a.error_kinds for a in s.attempts] for s in result.steps] == [
        [[]],
        [["ungrounded"], []],
        [],
    ]
    assert ledger.count("create_invoice") == 1
    feedback = model.calls_for("call")[2].messages[-1]["content"]
    assert 'the user wrote "CUS-000042"' not in feedback
    assert 'a tool result says "CUS-000042"' in feedback


class Line(BaseModel):
    sku: str
    quantity: int
    total_vnd: Annotated[int, Derived()]  # computed by the model: never checked


def test_field_markers_through_the_client(make_client: ClientFactory) -> None:
    @tool
    def ship(city: Annotated[str, Grounded()], lines: list[Line]) -> str:
        """Ship an order."""
        return "shipped"

    order = {"lines": [{"sku": "SKU-1234", "quantity": 3, "total_vnd": 450_000}]}
    model = ScriptedModel(
        [tool_call("ship", {"city": "Hanoi", **order}), tool_call("ship", {"city": "Hue", **order})]
    )
    client = make_client(model, [ship], grounding=True)

    result = client.call("Ship 3 of SKU-1234 at 150k each to Huế.")

    assert [a.error_kinds for a in result.attempts] == [["ungrounded"], []]
    assert model.calls_for("call")[1].messages[-1]["content"] == (
        "UNGROUNDED in ship (call call_1):\n"
        '- city: "Hanoi" is not in the conversation; use the words the user wrote\n'
        "Call ship again with the values exactly as the user gave them."
    )


def test_relative_dates_count_from_the_policys_reference_date(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    from datetime import date

    tomorrow = {**RIGHT, "due_date": "2028-01-31"}
    model = ScriptedModel(
        [
            tool_call("create_invoice", {**tomorrow, "due_date": "2028-01-13"}),
            tool_call("create_invoice", tomorrow),
        ]
    )
    policy = GroundingPolicy(kinds={"date"}, reference_date=date(2028, 1, 30))
    client = make_client(model, [create_invoice], grounding=policy)

    result = client.call("Invoice CUS-000042 for 12.5 million VND, due tomorrow.")

    assert [a.error_kinds for a in result.attempts] == [["ungrounded"], []]
    assert "2028-01-13 is not a date the user gave" in str(
        model.calls_for("call")[1].messages[-1]["content"]
    )


def test_an_invalid_grounding_option_is_refused_at_construction(create_invoice: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="grounding must be True, False or a"):
        ToolCallClient(base_url="http://localhost:8000/v1", model="m", grounding="on")  # type: ignore[arg-type]


def test_a_schema_and_a_grounding_problem_go_back_in_one_round(
    make_client: ClientFactory, create_invoice: Any, get_weather: Any
) -> None:
    model = ScriptedModel(
        [
            parallel(tool_call("create_invoice", WRONG), tool_call("get_weather", {"unit": "c"})),
            parallel(
                tool_call("create_invoice", RIGHT), tool_call("get_weather", {"city": "Oslo"})
            ),
        ]
    )
    client = make_client(model, [create_invoice, get_weather], grounding=True)

    result = client.call(ASKED + " And the weather in Oslo?")

    assert result.attempts[0].error_kinds == ["ungrounded", "invalid_arguments"]
    answers = model.calls_for("call")[1].messages[-2:]
    assert [m["tool_call_id"] for m in answers] == ["call_1", "call_2"]
    assert answers[0]["content"] == FEEDBACK
    assert answers[1]["content"].startswith("VALIDATION_ERROR in get_weather")
    assert [c.name for c in result.calls] == ["create_invoice", "get_weather"]


# Where the answer decides whether a tool is needed (the default `llm` router), a call whose
# only fault is values nobody gave may turn out to be a call that should not have been made.
RETREAT_LINE = (
    "Call calculate_bmi again with the values exactly as the user gave them. If the user did "
    "not give them, or no tool fits the request, answer in plain text."
)


@pytest.fixture
def calculate_bmi(ledger: Ledger) -> Any:
    @tool
    def calculate_bmi(weight_kg: float, height_m: float) -> float:
        """Body mass index from weight and height."""
        ledger.calls.append(("calculate_bmi", {"weight_kg": weight_kg, "height_m": height_m}))
        return weight_kg / height_m**2

    return calculate_bmi


def test_invented_values_let_the_retry_answer_in_text_where_the_answer_decides(
    make_client: ClientFactory, calculate_bmi: Any, ledger: Ledger
) -> None:
    invented = {"weight_kg": 70.0, "height_m": 1.75}
    model = ScriptedModel(
        [tool_call("calculate_bmi", invented), text("What are your weight and height?")]
    )
    client = make_client(model, [calculate_bmi], grounding=True, router="llm")

    result = client.run("Is a BMI of 24 healthy?")

    first, second = model.calls_for("call")
    assert first.tool_choice == "auto"
    assert second.tool_choice == "auto"
    feedback = second.messages[-1]
    assert feedback["role"] == "tool"
    assert feedback["content"].startswith(
        "UNGROUNDED in calculate_bmi (call call_1):\n- weight_kg: 70 is not a number the user gave"
    )
    assert feedback["content"].endswith(RETREAT_LINE)
    assert result.called is False
    assert result.content == "What are your weight and height?"
    assert [a.error_kinds for a in result.attempts] == [["ungrounded"], []]
    assert ledger.calls == []


def test_after_invented_values_the_corrected_call_still_runs_once(
    make_client: ClientFactory, calculate_bmi: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("calculate_bmi", {"weight_kg": 70.0, "height_m": 1.75}),
            tool_call("calculate_bmi", {"weight_kg": 81.0, "height_m": 1.8}),
        ]
    )
    client = make_client(model, [calculate_bmi], grounding=True, router="llm")

    result = client.run("BMI for 81 kg at 1.8 m?")

    assert [r.tool_choice for r in model.calls_for("call")] == ["auto", "auto"]
    assert result.called
    assert ledger.calls == [("calculate_bmi", {"weight_kg": 81.0, "height_m": 1.8})]


def test_a_forced_call_keeps_its_retries_forced_and_its_feedback_plain(
    make_client: ClientFactory, calculate_bmi: Any
) -> None:
    model = ScriptedModel(
        [
            tool_call("calculate_bmi", {"weight_kg": 70.0, "height_m": 1.75}),
            tool_call("calculate_bmi", {"weight_kg": 81.0, "height_m": 1.8}),
        ]
    )
    client = make_client(model, [calculate_bmi], grounding=True)  # router="always"

    client.run("BMI for 81 kg at 1.8 m?")

    first, second = model.calls_for("call")
    named = {"type": "function", "function": {"name": "calculate_bmi"}}
    assert first.tool_choice == named
    assert second.tool_choice == named
    assert second.messages[-1]["content"].endswith(
        "Call calculate_bmi again with the values exactly as the user gave them."
    )


def test_a_schema_problem_beside_invented_values_keeps_the_retry_forced(
    make_client: ClientFactory, calculate_bmi: Any
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("calculate_bmi", {"weight_kg": 70.0, "height_m": 1.75}),
                tool_call("calculate_bmi", {"weight_kg": "heavy", "height_m": 1.8}),
            ),
            tool_call("calculate_bmi", {"weight_kg": 81.0, "height_m": 1.8}),
        ]
    )
    client = make_client(model, [calculate_bmi], grounding=True, router="llm")

    client.run("BMI for 81 kg at 1.8 m?")

    first, second = model.calls_for("call")
    assert first.tool_choice == "auto"
    assert second.tool_choice == {"type": "function", "function": {"name": "calculate_bmi"}}
