"""Stage 2 through the public client: forced calls, validation, feedback, retries, escalation."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel

from toolcall_sdk import ToolCallFailed, ToolCallResult, tool
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

from ..conftest import TODAY, ClientFactory, Ledger, not_in_past

GOOD = {"customer_id": "CUS-123456", "amount_vnd": 150000, "due_date": "2026-07-01"}


def test_pattern_violation_then_valid_call(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("create_invoice", {**GOOD, "customer_id": "CUS-12"}),
            tool_call("create_invoice", GOOD),
        ]
    )
    client = make_client(model, [create_invoice], max_retries=2)

    result = client.call("Invoice CUS-123456 for 150000 VND due July 1st")

    assert result.called is True
    [call] = result.calls
    assert call.name == "create_invoice"
    assert call.arguments.customer_id == "CUS-123456"  # type: ignore[attr-defined]
    assert call.arguments.due_date == date(2026, 7, 1)  # type: ignore[attr-defined]
    assert isinstance(call.arguments, BaseModel)
    assert len(result.attempts) == 2
    assert result.attempts[0].error_kinds == ["invalid_arguments"]
    assert result.attempts[1].ok
    assert ledger.calls == []  # call() never executes

    first, second = model.calls_for("call")
    for request in (first, second):
        assert request.tool_choice == {"type": "function", "function": {"name": "create_invoice"}}
        assert request.temperature == 0
    feedback = second.messages[-1]
    assert feedback["role"] == "tool"
    assert feedback["tool_call_id"] == "call_1"
    assert "customer_id" in feedback["content"]
    assert "^CUS-\\d{6}$" in feedback["content"]
    assert '"CUS-12"' in feedback["content"]
    assert "https://errors.pydantic.dev" not in feedback["content"]
    # The rejected assistant message precedes the feedback, arguments as a JSON string.
    rejected = second.messages[-2]
    assert rejected["role"] == "assistant"
    assert rejected["tool_calls"][0]["id"] == "call_1"
    assert isinstance(rejected["tool_calls"][0]["function"]["arguments"], str)


def test_required_when_several_tools_are_offered(
    make_client: ClientFactory, create_invoice: Any, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo", "unit": None})])
    client = make_client(model, [create_invoice, get_weather])

    result = client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    assert request.tool_choice == "required"
    assert [t["function"]["name"] for t in request.tools or []] == [
        "create_invoice",
        "get_weather",
    ]
    # null for a field with a default means "use the default" (strict form sends null).
    assert result.call.arguments.unit == "celsius"  # type: ignore[attr-defined]


def test_unknown_tool_is_named_and_alternatives_listed(
    make_client: ClientFactory, create_invoice: Any, get_weather: Any
) -> None:
    model = ScriptedModel(
        [
            tool_call("send_invoice_email", {"to": "a@b.c"}),
            tool_call("create_invoice", GOOD),
        ]
    )
    client = make_client(model, [create_invoice, get_weather])

    result = client.call("Invoice CUS-123456")

    assert result.attempts[0].error_kinds == ["unknown_tool"]
    feedback = model.calls_for("call")[1].messages[-1]
    assert feedback["role"] == "tool"
    assert '"send_invoice_email"' in feedback["content"]
    assert "create_invoice, get_weather" in feedback["content"]
    assert result.call.name == "create_invoice"


def test_malformed_json_is_fed_back(make_client: ClientFactory, create_invoice: Any) -> None:
    model = ScriptedModel(
        [
            tool_call("create_invoice", '{"customer_id": "CUS-123456", "amount_vnd": 15'),
            tool_call("create_invoice", GOOD),
        ]
    )
    client = make_client(model, [create_invoice])

    result = client.call("Invoice CUS-123456")

    problem = result.attempts[0].problems[0]
    assert problem.kind == "invalid_json"
    assert problem.raw_arguments == '{"customer_id": "CUS-123456", "amount_vnd": 15'
    feedback = model.calls_for("call")[1].messages[-1]
    assert "not a valid JSON object" in feedback["content"]
    assert result.call.arguments.amount_vnd == 150000  # type: ignore[attr-defined]


def test_text_instead_of_forced_call_gets_a_user_reminder(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    model = ScriptedModel([text("Sure, I will create it."), tool_call("create_invoice", GOOD)])
    client = make_client(model, [create_invoice])

    result = client.call("Invoice CUS-123456")

    assert result.attempts[0].error_kinds == ["no_tool_call"]
    second = model.calls_for("call")[1]
    assert second.messages[-2] == {"role": "assistant", "content": "Sure, I will create it."}
    assert second.messages[-1]["role"] == "user"
    assert "tool call is required" in second.messages[-1]["content"]
    assert "create_invoice" in second.messages[-1]["content"]
    assert len(result.attempts) == 2


@pytest.mark.parametrize("max_retries", [0, 1, 2, 4])
def test_always_invalid_exhausts_exactly_max_retries_plus_one(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger, max_retries: int
) -> None:
    bad = {**GOOD, "amount_vnd": -5}
    model = ScriptedModel(lambda request: tool_call("create_invoice", bad))
    client = make_client(model, [create_invoice], max_retries=max_retries)

    with pytest.raises(ToolCallFailed) as excinfo:
        client.run("Invoice CUS-123456")

    assert len(model.calls_for("call")) == max_retries + 1
    attempts = excinfo.value.attempts
    assert [a.number for a in attempts] == list(range(1, max_retries + 2))
    assert all(a.error_kinds == ["invalid_arguments"] for a in attempts)
    assert attempts[-1].problems[0].fields[0].field == "amount_vnd"
    assert attempts[0].raw_message["tool_calls"][0]["function"]["name"] == "create_invoice"
    assert ledger.calls == []
    assert "amount_vnd" in str(excinfo.value)


def test_custom_validator_and_validation_context(make_client: ClientFactory) -> None:
    @tool
    def schedule(due: Annotated[date, AfterValidator(not_in_past)]) -> str:
        """Schedule a payment."""
        return due.isoformat()

    model = ScriptedModel(
        [tool_call("schedule", {"due": "2026-05-01"}), tool_call("schedule", {"due": "2026-06-02"})]
    )
    client = make_client(model, [schedule], validation_context={"today": TODAY})

    result = client.call("pay next week")

    feedback = model.calls_for("call")[1].messages[-1]["content"]
    assert "due: must not be in the past (today is 2026-06-01)" in feedback
    assert "Value error" not in feedback
    assert result.call.arguments.due == date(2026, 6, 2)  # type: ignore[attr-defined]


def test_per_call_context_overrides_the_client_context(make_client: ClientFactory) -> None:
    @tool
    def schedule(due: Annotated[date, AfterValidator(not_in_past)]) -> str:
        """Schedule a payment."""
        return due.isoformat()

    model = ScriptedModel([tool_call("schedule", {"due": "2026-05-01"})])
    client = make_client(model, [schedule], validation_context={"today": TODAY})

    result = client.call("pay", context={"today": date(2026, 1, 1)})

    assert result.attempts[0].ok


def test_parallel_calls_are_all_validated(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("get_weather", {"city": "Oslo", "unit": "celsius"}),
                tool_call("get_weather", {"city": "Hanoi", "unit": "celsius"}),
            )
        ]
    )
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo and Hanoi?")

    assert [c.arguments.city for c in result.calls] == ["Oslo", "Hanoi"]  # type: ignore[attr-defined]
    assert result.outputs == ["18 degrees celsius in Oslo", "18 degrees celsius in Hanoi"]
    assert ledger.count("get_weather") == 2
    assert [m["tool_call_id"] for m in result.messages if m["role"] == "tool"] == [
        "call_1",
        "call_2",
    ]


def test_one_bad_call_in_a_parallel_answer_sends_both_back(
    make_client: ClientFactory, create_invoice: Any, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("get_weather", {"city": "Oslo", "unit": "celsius"}),
                tool_call("create_invoice", {**GOOD, "due_date": "2026-02-30"}),
            ),
            parallel(
                tool_call("get_weather", {"city": "Oslo", "unit": "celsius"}),
                tool_call("create_invoice", GOOD),
            ),
        ]
    )
    client = make_client(model, [create_invoice, get_weather])

    result = client.run("Weather in Oslo, and invoice CUS-123456")

    second = model.calls_for("call")[1]
    tool_messages = [m for m in second.messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_1", "call_2"]
    assert tool_messages[0]["content"].startswith("NOT_EXECUTED")
    assert "due_date" in tool_messages[1]["content"]
    # Nothing ran for the rejected answer; each call of the accepted one ran once.
    assert ledger.count("get_weather") == 1
    assert ledger.count("create_invoice") == 1
    assert len(result.calls) == 2


def test_escalation_handler_returns_a_fallback(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    seen: list[ToolCallFailed] = []

    def to_human(failed: ToolCallFailed) -> ToolCallResult:
        seen.append(failed)
        return ToolCallResult(called=False, content="A person will handle this.")

    model = ScriptedModel(lambda request: text("no"))
    client = make_client(model, [create_invoice], max_retries=1, on_escalate=to_human)

    result = client.call("Invoice CUS-123456")

    assert result.content == "A person will handle this."
    assert len(seen[0].attempts) == 2


def test_named_tool_and_options_reach_the_request(make_client: ClientFactory) -> None:
    @tool(name="lookup_order", description="Find an order by id.", strict=False)
    def find(order_id: str) -> str:
        return order_id

    model = ScriptedModel([tool_call("lookup_order", {"order_id": "ORD-1"})])
    client = make_client(model, [find], temperature=0.1, max_tokens=64, extra_body={"top_k": 1})

    client.call("where is ORD-1")

    [request] = model.calls_for("call")
    assert request.temperature == 0.1
    assert request.json is not None
    assert request.json["max_tokens"] == 64
    assert request.json["top_k"] == 1
    [entry] = request.tools or []
    assert entry["function"]["name"] == "lookup_order"
    assert entry["function"]["description"] == "Find an order by id."
    assert "strict" not in entry["function"]


def test_result_messages_continue_the_conversation(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo", "unit": "celsius"})])
    client = make_client(model, [get_weather])

    result = client.run(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Oslo?"}]
    )

    roles = [m["role"] for m in result.messages]
    assert roles == ["system", "user", "assistant", "tool"]
    assert result.messages[-1]["content"] == "18 degrees celsius in Oslo"
