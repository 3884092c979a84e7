"""`listed_values="continue"`: the model's own answer sent back with the opening of another
call, and the new calls it writes there kept only where the request states their values;
each function runs once per kept call, and a failed or useless continuation loses nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk.testing import ScriptedModel, http_error, text, tool_call, tool_calls

from ..conftest import ClientFactory, Ledger

CODER = "Qwen/Qwen2.5-Coder-0.5B-Instruct"
REQUEST = "What is the factorial of 5, 10 and 15?"


@pytest.fixture
def factorial(ledger: Ledger) -> Any:
    from toolcall_sdk import tool

    @tool
    def math_factorial(number: int) -> int:
        """The factorial of a number."""
        ledger.calls.append(("math_factorial", {"number": number}))
        return number

    return math_factorial


@pytest.fixture
def weather(ledger: Ledger) -> Any:
    from toolcall_sdk import tool

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        ledger.calls.append(("get_weather", {"city": city}))
        return "sunny"

    return get_weather


def _fenced(arguments: dict[str, Any]) -> str:
    body = json.dumps({"name": "math_factorial", "arguments": arguments}, indent=2)
    return f"```json\n{body}\n```"


# What the 0.5B writes after the opening: the rest of the second call, then a third whole.
CONTINUED = ' {\n    "number": 10\n  }\n}\n```\n' + _fenced({"number": 15})


def test_the_answer_is_continued_and_each_stated_value_gets_its_call(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), text(CONTINUED)])
    client = make_client(model, [factorial], model_id=CODER, listed_values="continue")

    result = client.run(REQUEST)

    first, continued = model.calls_for("call")
    assert first.json is not None
    assert continued.json is not None
    # The answer's own request, its call written as the model writes it, then the opening
    # of another call cut before the space the model writes with its brace.
    assert continued.json["messages"][:-1] == first.json["messages"]
    assert continued.json["messages"][-1] == {
        "role": "assistant",
        "content": _fenced({"number": 5}) + '\n```json\n{\n  "name": "math_factorial",\n'
        '  "arguments":',
    }
    assert continued.json["tools"] == first.json["tools"]
    assert continued.json["tool_choice"] == "none"
    assert continued.json["continue_final_message"] is True
    assert continued.json["add_generation_prompt"] is False
    assert ledger.calls == [("math_factorial", {"number": n}) for n in (5, 10, 15)]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5, 10, 15]
    assert len({call.id for call in result.calls}) == 3
    # One assistant message holds the three calls, each answered by its result.
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "tool", "tool"]
    assert [a.request.tool_choice for a in result.attempts][1] == "none"


def test_repeats_swaps_and_values_nobody_gave_are_dropped(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    written = "\n".join(
        _fenced(arguments)
        for arguments in ({"number": 5}, {"number": 20}, {"number": "ten"}, {"number": 10})
    )
    model = ScriptedModel(
        [tool_call("math_factorial", {"number": 5}), text(' {"number": 5}}\n```\n' + written)]
    )
    client = make_client(model, [factorial], model_id=CODER, listed_values="continue")

    result = client.run(REQUEST)

    # 5 again is a repeat, 20 is not in the request and "ten" is no number: only 10 joins.
    assert ledger.calls == [("math_factorial", {"number": 5}), ("math_factorial", {"number": 10})]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5, 10]


def test_a_continuation_with_nothing_new_leaves_the_answer_as_it_was(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("math_factorial", {"number": 5}), text(' {"number": 6}}\n```')]
    )
    client = make_client(model, [factorial], model_id=CODER, listed_values="continue")

    result = client.run("What is the factorial of 5?")

    assert ledger.calls == [("math_factorial", {"number": 5})]
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool"]
    assert result.messages[1]["tool_calls"][0]["function"]["arguments"] == '{"number": 5}'
    assert [a.problems for a in result.attempts] == [[], []]


def test_a_qwen25_model_is_continued_in_its_hermes_tags(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    tagged = ' {"number": 10}}\n</tool_call>\n<tool_call>\n'
    tagged += '{"name": "math_factorial", "arguments": {"number": 15}}\n</tool_call>'
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), text(tagged)])
    client = make_client(
        model, [factorial], model_id="Qwen/Qwen2.5-7B-Instruct", listed_values="continue"
    )

    client.run(REQUEST)

    continued = model.calls_for("call")[1].json
    assert continued is not None
    assert continued["messages"][-1]["content"] == (
        '<tool_call>\n{"name": "math_factorial", "arguments": {"number": 5}}\n</tool_call>\n'
        '<tool_call>\n{"name": "math_factorial", "arguments":'
    )
    assert ledger.calls == [("math_factorial", {"number": n}) for n in (5, 10, 15)]


@pytest.mark.parametrize(
    ("model_id", "answer"),
    [
        pytest.param("test-model", tool_call("math_factorial", {"number": 5}), id="unknown-family"),
        pytest.param(
            CODER,
            tool_calls(
                [
                    tool_call("math_factorial", {"number": 5}),
                    tool_call("get_weather", {"city": "Hanoi"}),
                ]
            ),
            id="two-tools",
        ),
    ],
)
def test_no_continuation_where_no_format_is_known_or_several_tools_were_called(
    make_client: ClientFactory, factorial: Any, weather: Any, model_id: str, answer: Any
) -> None:
    model = ScriptedModel([answer])
    client = make_client(model, [factorial, weather], model_id=model_id, listed_values="continue")

    client.run(REQUEST + " And the weather in Hanoi?")

    assert len(model.calls_for("call")) == 1


def test_a_failed_continuation_loses_the_valid_answer_in_hand(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), http_error(400)])
    client = make_client(model, [factorial], model_id=CODER, listed_values="continue")

    result = client.run(REQUEST)

    assert ledger.calls == [("math_factorial", {"number": 5})]
    assert [call.arguments.model_dump()["number"] for call in result.calls] == [5]
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool"]


@pytest.mark.parametrize(
    "request_text",
    [
        pytest.param("What is the factorial of 5?", id="nothing-else-stated"),
        pytest.param("What is the factorial of five and of ten?", id="numbers-in-words"),
        pytest.param("Factorial of 5, for my two kids.", id="a-count-in-words"),
    ],
)
def test_continue_listed_sends_no_continuation_where_nothing_is_left_out(
    make_client: ClientFactory, factorial: Any, ledger: Ledger, request_text: str
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5})])
    client = make_client(model, [factorial], model_id=CODER, listed_values="continue_listed")

    result = client.run(request_text)

    # One request, no continuation: the script holds one answer, and a second request
    # would find none.
    assert len(model.calls_for("call")) == 1
    assert ledger.calls == [("math_factorial", {"number": 5})]
    assert len(result.attempts) == 1


def test_continue_listed_continues_where_the_request_states_another_number(
    make_client: ClientFactory, factorial: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), text(CONTINUED)])
    client = make_client(model, [factorial], model_id=CODER, listed_values="continue_listed")

    client.run(REQUEST)

    assert len(model.calls_for("call")) == 2
    assert ledger.calls == [("math_factorial", {"number": n}) for n in (5, 10, 15)]


def test_continue_listed_continues_where_the_request_lists_another_name(
    make_client: ClientFactory, weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Berlin"}), text(' {"city": "Paris"}\n}\n```')]
    )
    client = make_client(model, [weather], model_id=CODER, listed_values="continue_listed")

    client.run("What's the weather in Berlin and Paris today?")

    continued = model.calls_for("call")[1].json
    assert continued is not None
    assert continued["messages"][-1]["content"].endswith('"name": "get_weather",\n  "arguments":')
    assert ledger.calls == [("get_weather", {"city": "Berlin"}), ("get_weather", {"city": "Paris"})]
