"""`listed_values="ask"`: a valid answer that leaves out values the request lists is sent
back once, and the fuller answer is taken only when it is better; nothing runs twice."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import InvalidArgumentError, ToolCallClient, tool
from toolcall_sdk.testing import ScriptedModel, http_error, text, tool_call, tool_calls

from ..conftest import ClientFactory, Ledger

REQUEST = "What is the factorial of 5, 10 and 15?"


@pytest.fixture
def factorial(ledger: Ledger) -> Any:
    @tool
    def math_factorial(number: int) -> int:
        """The factorial of a number."""
        ledger.calls.append(("math_factorial", {"number": number}))
        result = 1
        for k in range(2, number + 1):
            result *= k
        return result

    return math_factorial


@pytest.fixture
def weather(ledger: Ledger) -> Any:
    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        ledger.calls.append(("get_weather", {"city": city}))
        return "sunny"

    return get_weather


def _three() -> Any:
    return tool_calls([tool_call("math_factorial", {"number": n}) for n in (5, 10, 15)])


def test_an_answer_that_leaves_listed_values_out_is_asked_once_and_the_fuller_one_runs(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), _three()])
    client = make_client(model, [factorial], listed_values="ask")

    result = client.run(REQUEST)

    first, ask = model.calls_for("call")
    # The first request names the one tool; the ask may hold several calls of it.
    assert first.json is not None
    assert ask.json is not None
    assert first.json["tool_choice"] == {"type": "function", "function": {"name": "math_factorial"}}
    assert ask.json["tool_choice"] == "required"
    assert ask.json["parallel_tool_calls"] is True
    feedback = ask.json["messages"][-1]
    assert feedback["role"] == "tool"
    assert feedback["content"] == (
        f"INCOMPLETE in math_factorial (call {feedback['tool_call_id']}): the request lists "
        "more values than your calls use:\n"
        "- number: the request also lists 10, 15 beside 5\n"
        "Nothing ran. Answer again with every call the request asks for: one math_factorial "
        "call per listed value, this one included, all in one answer."
    )
    # Each function ran once per listed value, nothing of the first answer.
    assert ledger.calls == [("math_factorial", {"number": n}) for n in (5, 10, 15)]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5, 10, 15]
    assert [p.kind for p in result.attempts[0].problems] == ["missing_calls"]
    assert result.attempts[1].problems == []


@pytest.mark.parametrize(
    "retry",
    [
        pytest.param(tool_call("math_factorial", {"number": 10}), id="no-more-calls"),
        pytest.param(
            tool_calls(
                [
                    tool_call("math_factorial", {"number": 5}),
                    tool_call("get_weather", {"city": "x"}),
                ]
            ),
            id="another-tool",
        ),
        pytest.param(
            tool_calls(
                [
                    tool_call("math_factorial", {"number": 5}),
                    tool_call("math_factorial", {"number": "ten"}),
                ]
            ),
            id="invalid",
        ),
        pytest.param(text("5! is 120."), id="text"),
    ],
)
def test_a_worse_retry_leaves_the_first_answer_standing(
    make_client: ClientFactory, factorial: Any, weather: Any, ledger: Ledger, retry: Any
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), retry])
    client = make_client(model, [factorial, weather], listed_values="ask")

    result = client.run(REQUEST)

    assert ledger.calls == [("math_factorial", {"number": 5})]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5]
    assert len(model.calls_for("call")) == 2
    # The ask is forgotten: the history holds the first answer and its result only.
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool"]
    assert result.attempts[0].problems == []


def test_off_by_default_and_without_a_retry_left_nothing_more_is_asked(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5})] * 2)
    make_client(model, [factorial]).run(REQUEST)
    make_client(model, [factorial], listed_values="ask", max_retries=0).run(REQUEST)

    assert len(model.calls_for("call")) == 2
    assert ledger.calls == [("math_factorial", {"number": 5})] * 2


def test_a_complete_answer_and_a_later_step_are_never_sent_back(
    make_client: ClientFactory, factorial: Any
) -> None:
    model = ScriptedModel([_three(), tool_call("math_factorial", {"number": 5})])
    client = make_client(model, [factorial], listed_values="ask")
    client.call(REQUEST)
    # The conversation goes on after the request: earlier calls may hold the other values.
    later = [
        {"role": "user", "content": REQUEST},
        {"role": "assistant", "content": "Working on it."},
    ]
    client.call(later)

    assert len(model.calls_for("call")) == 2


def test_a_wrong_mode_is_refused() -> None:
    with pytest.raises(
        InvalidArgumentError, match="listed_values must be one of 'off', 'ask', 'complete'"
    ):
        ToolCallClient(base_url="http://127.0.0.1:9/v1", model="m", listed_values="always")  # type: ignore[arg-type]


def test_complete_asks_for_each_left_out_call_with_its_listed_value_held(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("math_factorial", {"number": 5}),
            tool_call("math_factorial", {"number": 10}),
            tool_call("math_factorial", {"number": 5}),  # a repeat adds nothing
        ]
    )
    client = make_client(model, [factorial], listed_values="complete")

    result = client.run(REQUEST)

    first, *items = model.calls_for("call")
    assert first.json is not None
    assert "enum" not in first.json["tools"][0]["function"]["parameters"]["properties"]["number"]
    held = []
    for item in items:
        assert item.json is not None
        assert item.json["tool_choice"] == {
            "type": "function",
            "function": {"name": "math_factorial"},
        }
        # Asked on the conversation as the first answer saw it: no feedback in between.
        assert item.json["messages"] == first.json["messages"]
        held.append(item.json["tools"][0]["function"]["parameters"]["properties"]["number"])
    assert [schema["enum"] for schema in held] == [[10], [15]]
    assert ledger.calls == [("math_factorial", {"number": n}) for n in (5, 10)]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5, 10]
    assert len({call.id for call in result.calls}) == 2
    # One assistant message holds both calls, each answered by its result.
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "tool"]


def test_complete_keeps_the_first_answer_when_no_left_out_call_comes_back_valid(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("math_factorial", {"number": 5}),
            tool_call("math_factorial", {"number": "ten"}),
            text("15! is large."),
        ]
    )
    client = make_client(model, [factorial], listed_values="complete")

    result = client.run(REQUEST)

    assert ledger.calls == [("math_factorial", {"number": 5})]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5]
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool"]


def test_complete_points_a_left_out_call_at_its_own_sentence(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool
    def future_value(stock: str, invested_amount: int, years: int) -> float:
        """The future value of an investment."""
        ledger.calls.append(("future_value", {"stock": stock}))
        return float(invested_amount)

    request = (
        "I have invested $5000 in Apple (AAPL) for 5 years. "
        "And I have invested $8000 in Microsoft (MSFT) for the next 7 years."
    )
    model = ScriptedModel(
        [
            tool_call("future_value", {"stock": "AAPL", "invested_amount": 5000, "years": 5}),
            tool_call("future_value", {"stock": "MSFT", "invested_amount": 8000, "years": 7}),
        ]
    )
    client = make_client(model, [future_value], listed_values="complete")

    client.run(request)

    first, item = model.calls_for("call")
    assert first.json is not None
    assert item.json is not None
    assert item.json["messages"][:-1] == first.json["messages"]
    assert item.json["messages"][-1] == {
        "role": "user",
        "content": "Write the future_value call for this part of the request: "
        "And I have invested $8000 in Microsoft (MSFT) for the next 7 years.",
    }
    properties = item.json["tools"][0]["function"]["parameters"]["properties"]
    assert properties["years"]["enum"] == [7]
    assert "enum" not in properties["stock"]
    assert "enum" not in properties["invested_amount"]
    assert ledger.calls == [
        ("future_value", {"stock": "AAPL"}),
        ("future_value", {"stock": "MSFT"}),
    ]


@pytest.mark.parametrize("mode", ["ask", "complete"])
def test_a_failed_completion_request_loses_the_valid_answer_in_hand(
    make_client: ClientFactory, factorial: Any, ledger: Ledger, mode: str
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), http_error(400)])
    client = make_client(model, [factorial], listed_values=mode)

    result = client.run(REQUEST)

    assert ledger.calls == [("math_factorial", {"number": 5})]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5]
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool"]
    assert len(model.calls_for("call")) == 2
