"""Hostile model output: bounded JSON decoding, non-finite numbers, bounded feedback quotes,
validators that crash. Each scenario runs through both client twins."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import field_validator

from toolcall_sdk import ToolCallFailed, ToolDefinitionError, tool
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import Call, Ledger

OSLO = {"city": "Oslo", "unit": "celsius"}


def feedback_of(model: ScriptedModel, retry: int = 1) -> str:
    content = model.calls_for("call")[retry].messages[-1]["content"]
    assert isinstance(content, str)
    return content


# -- bounded JSON decoding ---------------------------------------------------------------


def test_arguments_nested_1000_deep_are_fed_back_not_raised(
    call_with: Call, get_weather: Any
) -> None:
    deep = '{"city": ' + "[" * 1000 + "]" * 1000 + ', "unit": "celsius"}'
    model = ScriptedModel([tool_call("get_weather", deep), tool_call("get_weather", OSLO)])

    result = call_with(model, [get_weather])

    problem = result.attempts[0].problems[0]
    assert problem.kind == "invalid_json"
    assert "nested deeper than 100 levels" in problem.message
    assert "nested deeper than 100 levels" in feedback_of(model)
    assert result.call.arguments.model_dump() == OSLO


def test_deep_arguments_in_recovered_text_are_fed_back(call_with: Call, get_weather: Any) -> None:
    deep = "[" * 1000 + "]" * 1000
    leaked = f'<tool_call>{{"name": "get_weather", "arguments": {{"city": {deep}}}}}</tool_call>'
    model = ScriptedModel([text(leaked), tool_call("get_weather", OSLO)])

    result = call_with(model, [get_weather])

    assert result.attempts[0].parser_miss
    assert result.attempts[0].error_kinds == ["invalid_json"]
    assert result.call.arguments.model_dump() == OSLO


def test_a_5001_digit_integer_is_fed_back_not_raised(call_with: Call) -> None:
    @tool
    def charge(cents: int) -> str:
        """Charge an amount."""
        return "ok"

    model = ScriptedModel(
        [tool_call("charge", '{"cents": ' + "7" * 5001 + "}"), tool_call("charge", {"cents": 5})]
    )

    result = call_with(model, [charge])

    problem = result.attempts[0].problems[0]
    assert problem.kind == "invalid_json"
    assert "a number longer than 100 characters" in problem.message
    assert "7777777777" not in feedback_of(model)
    assert result.call.arguments.cents == 5


def test_arguments_over_the_size_bound_are_refused_and_not_echoed(
    call_with: Call, get_weather: Any
) -> None:
    huge = json.dumps({"city": "x" * 5_000_000, "unit": "celsius"})
    model = ScriptedModel([tool_call("get_weather", huge), tool_call("get_weather", OSLO)])

    result = call_with(model, [get_weather])

    assert result.attempts[0].error_kinds == ["invalid_json"]
    assert "over the 1000000-character limit" in feedback_of(model)
    retry = model.calls_for("call")[1]
    # The rejected call goes back to the model without its 5 MB of arguments.
    assert len(retry.body) < 10_000
    echoed = retry.messages[-2]["tool_calls"][0]["function"]["arguments"]
    assert echoed == "{}"
    assert result.call.arguments.model_dump() == OSLO


# -- non-finite numbers ------------------------------------------------------------------


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers_never_reach_a_float_parameter(call_with: Call, number: str) -> None:
    seen: list[float] = []

    @tool
    def set_threshold(value: float) -> str:
        """Set the alert threshold."""
        seen.append(value)
        return "set"

    model = ScriptedModel(
        [
            tool_call("set_threshold", f'{{"value": {number}}}'),
            tool_call("set_threshold", {"value": 0.5}),
        ]
    )

    result = call_with(model, [set_threshold], run=True)

    assert result.attempts[0].error_kinds == ["invalid_json"]
    assert "finite number" in feedback_of(model)
    assert seen == [0.5]


# -- bounded feedback quotes -------------------------------------------------------------


def test_a_10000_character_tool_name_is_never_echoed_whole(
    call_with: Call, get_weather: Any
) -> None:
    name = "n" * 10_000
    model = ScriptedModel([tool_call(name, OSLO), tool_call("get_weather", OSLO)])

    result = call_with(model, [get_weather])

    problem = result.attempts[0].problems[0]
    assert problem.kind == "unknown_tool"
    assert len(problem.message) < 200
    feedback = feedback_of(model)
    assert "n" * 64 + "..." in feedback
    assert "n" * 100 not in feedback
    retry = model.calls_for("call")[1]
    assert len(retry.body) < 5_000
    assert result.call.name == "get_weather"


def test_field_feedback_is_bounded_in_lines_and_names(call_with: Call, get_weather: Any) -> None:
    junk = {f"k{i}_" + "z" * 500: i for i in range(200)}
    model = ScriptedModel(
        [tool_call("get_weather", {**OSLO, **junk}), tool_call("get_weather", OSLO)]
    )

    result = call_with(model, [get_weather])

    assert result.attempts[0].error_kinds == ["invalid_arguments"]
    feedback = feedback_of(model)
    assert feedback.count("\n- ") == 10
    assert "and 190 more problems" in feedback
    assert "z" * 100 not in feedback
    assert len(feedback) < 2_000


def test_tool_retry_message_is_bounded(call_with: Call) -> None:
    from toolcall_sdk import ModelRetry

    @tool
    def lookup(order_id: str) -> str:
        """Look up an order."""
        if order_id != "A-1":
            raise ModelRetry(f"no order {order_id}")
        return "shipped"

    model = ScriptedModel(
        [tool_call("lookup", {"order_id": "q" * 100_000}), tool_call("lookup", {"order_id": "A-1"})]
    )

    result = call_with(model, [lookup], run=True)

    assert result.call.output == "shipped"
    assert "q" * 2_000 not in feedback_of(model)


# -- validators that crash -------------------------------------------------------------


def test_a_crashing_validator_raises_a_typed_error_naming_tool_and_call(
    call_with: Call, ledger: Ledger
) -> None:
    from pydantic import BaseModel

    from toolcall_sdk import ToolValidatorError

    rates: dict[str, float] = {}

    class Transfer(BaseModel):
        currency: str

        @field_validator("currency")
        @classmethod
        def known(cls, value: str) -> str:
            rates[value]  # a bug: KeyError instead of ValueError
            return value

    @tool
    def transfer(order: Transfer) -> str:
        """Transfer money."""
        ledger.calls.append(("transfer", {}))
        return "done"

    model = ScriptedModel([tool_call("transfer", {"currency": "XYZ"}, id="call_7")])

    with pytest.raises(ToolValidatorError) as excinfo:
        call_with(model, [transfer], run=True)

    error = excinfo.value
    assert isinstance(error, ToolDefinitionError)
    assert error.tool_name == "transfer"
    assert error.call_id == "call_7"
    assert "KeyError" in str(error)
    assert "call_7" in str(error)
    assert isinstance(error.__cause__, KeyError)
    assert ledger.calls == []
    assert len(model.calls_for("call")) == 1  # not fed back: the model cannot fix it


def test_validator_value_errors_still_go_back_to_the_model(call_with: Call) -> None:
    @tool
    def divide(numerator: float, denominator: float) -> float:
        """Divide two numbers."""
        return numerator / denominator

    model = ScriptedModel(
        [
            tool_call("divide", {"numerator": 1, "denominator": "zero"}),
            tool_call("divide", {"numerator": 1, "denominator": 2}),
        ]
    )

    result = call_with(model, [divide], run=True)

    assert result.call.output == 0.5
    with pytest.raises(ToolCallFailed):
        call_with(ScriptedModel([tool_call("divide", {"numerator": 1})]), [divide], max_retries=0)


def test_model_retry_raised_in_a_validator_is_fed_back(call_with: Call) -> None:
    from pydantic import BaseModel

    from toolcall_sdk import ModelRetry

    class Lookup(BaseModel):
        order_id: str

        @field_validator("order_id")
        @classmethod
        def known(cls, value: str) -> str:
            if value != "A-1":
                raise ModelRetry(f"no order {value}; orders look like A-1")
            return value

    @tool
    def lookup(query: Lookup) -> str:
        """Look up an order."""
        return "shipped"

    model = ScriptedModel(
        [tool_call("lookup", {"order_id": "B"}), tool_call("lookup", {"order_id": "A-1"})]
    )

    result = call_with(model, [lookup], run=True)

    assert result.attempts[0].error_kinds == ["tool_retry"]
    assert "no order B; orders look like A-1" in feedback_of(model)
    assert result.call.output == "shipped"


def test_a_string_holding_a_lone_surrogate_is_fed_back(call_with: Call, get_weather: Any) -> None:
    # JSON text holding a JSON string that decodes to a lone surrogate: not a JSON object.
    arguments = '"\\"\\\\ud800\\""'
    model = ScriptedModel([tool_call("get_weather", arguments), tool_call("get_weather", OSLO)])

    result = call_with(model, [get_weather])

    assert result.attempts[0].error_kinds == ["invalid_json"]
    assert result.call.arguments.model_dump() == OSLO
