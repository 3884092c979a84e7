"""What `benchmarks/fuzz.py` found, each through the public client (both twins): server
answers and model output that escaped as plain exceptions, or past a bound, before."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from toolcall_sdk import MalformedResponseError, ToolCallFailed, tool
from toolcall_sdk.testing import ScriptedModel, malformed, tool_call

from ..conftest import ClientFactory

OSLO = {"city": "Oslo", "unit": "celsius"}
# Python writes an infinite float as `Infinity`; a server writes the number it computed.
HUGE_FLOAT = "<1e400>"


def wire(value: Any) -> str:
    return json.dumps(value).replace(json.dumps(HUGE_FLOAT), "1e400")


def completion(message: dict[str, Any], **extra: Any) -> str:
    """A non-streamed chat completion holding `message` (written out, so any JSON fits)."""
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return wire({"id": "c", "object": "chat.completion", "choices": [choice], **extra})


def chunk(delta: dict[str, Any], finish_reason: Any = None, **extra: Any) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    body = {"id": "c", "object": "chat.completion.chunk", "choices": [choice], **extra}
    return f"data: {wire(body)}\n\n"


def nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def weather_call(arguments: Any, *, call_id: str = "call_1", name: str = "get_weather") -> Any:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    "tool_calls",
    [
        "get_weather",
        ["get_weather"],
        [[]],
        {"function": {"name": "get_weather"}},
        7,
        [{"id": "call_1", "type": "function", "function": "get_weather"}],
    ],
)
def test_tool_calls_that_are_not_call_objects_are_a_malformed_answer(
    make_client: ClientFactory, get_weather: Any, tool_calls: Any
) -> None:
    body = completion({"role": "assistant", "content": None, "tool_calls": tool_calls})
    model = ScriptedModel([malformed(body)])
    client = make_client(model, [get_weather])

    with pytest.raises(MalformedResponseError, match="tool_calls that are not a list of call"):
        client.run("Weather in Oslo?")
    assert len(model.chat_requests) == 1  # the same request would get the same answer


def test_streamed_tool_calls_that_are_not_call_objects_carry_no_call(
    make_client: ClientFactory, get_weather: Any
) -> None:
    stream = chunk({"role": "assistant", "tool_calls": 7}) + chunk({}, "tool_calls")
    model = ScriptedModel([malformed(stream), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?", stream=True)

    assert result.attempts[0].error_kinds == ["no_tool_call"]
    assert result.call.output == "18 degrees celsius in Oslo"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("count", ["many", {"n": 1}, [3], HUGE_FLOAT, -5, True, 2.5])
def test_token_counts_that_cannot_be_true_are_estimated_from_the_request(
    make_client: ClientFactory, get_weather: Any, stream: bool, count: Any
) -> None:
    usage = {"prompt_tokens": count, "completion_tokens": 4}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [weather_call('{"city": "Oslo"}')],
    }
    if stream:
        delta = {**message, "tool_calls": [{"index": 0, **weather_call('{"city": "Oslo"}')}]}
        body = chunk(delta, "tool_calls") + chunk({}, usage=usage) + "data: [DONE]\n\n"
    else:
        body = completion(message, usage=usage)
    model = ScriptedModel([malformed(body)])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?", stream=stream)

    assert result.call.output == "18 degrees celsius in Oslo"
    # Not 0 (which would let a run pass max_tokens_total): about four characters a token
    # of the messages and tools sent, as docs/agents.md says; the possible count is kept.
    sent = model.chat_requests[0]
    prompt = json.dumps(sent.messages, ensure_ascii=False) + json.dumps(sent.tools)
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (
        math.ceil(len(prompt) / 4),
        4,
    )


def test_a_streamed_finish_reason_that_is_not_text_does_not_end_the_answer(
    make_client: ClientFactory, get_weather: Any
) -> None:
    delta = {"role": "assistant", "tool_calls": [{"index": 0, **weather_call('{"city": "Oslo"}')}]}
    cut = chunk(delta, {"reason": "stop"})  # no real finish reason, no [DONE]: incomplete
    model = ScriptedModel([malformed(cut), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?", stream=True)

    assert len(model.chat_requests) == 2  # retried as a cut stream, never taken as an answer
    assert result.attempts[0].finish_reason == "tool_calls"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"city": "Oslo", "days": HUGE_FLOAT}, "Infinity is not a JSON value"),
        ({"city": "Oslo", "days": 7 * 10**200}, "a number longer than 100 characters"),
        ({"city": nested(150)}, "nested deeper than 100 levels"),
    ],
)
def test_arguments_sent_as_an_object_get_the_bounds_of_argument_text(
    make_client: ClientFactory, arguments: dict[str, Any], said: str
) -> None:
    @tool
    def forecast(city: str, days: float = 1.0) -> str:
        """Forecast for a city."""
        return f"{days} days in {city}"

    call = weather_call(arguments, name="forecast")
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    model = ScriptedModel(
        [malformed(completion(message)), tool_call("forecast", {"city": "Oslo", "days": 2})]
    )
    client = make_client(model, [forecast])

    result = client.run("Forecast for Oslo?")

    problem = result.attempts[0].problems[0]
    assert problem.kind == "invalid_json"
    assert said in problem.message
    assert result.call.output == "2.0 days in Oslo"


def test_an_object_form_call_within_the_bounds_still_runs(
    make_client: ClientFactory, get_weather: Any
) -> None:
    message = {"role": "assistant", "content": None, "tool_calls": [weather_call(OSLO)]}
    model = ScriptedModel([malformed(completion(message))])
    client = make_client(model, [get_weather])
    assert client.run("Weather in Oslo?").call.output == "18 degrees celsius in Oslo"


def test_a_huge_call_id_is_quoted_within_bounds(
    make_client: ClientFactory, get_weather: Any
) -> None:
    call_id = "call_" + "x" * 100_000
    model = ScriptedModel(
        [tool_call("get_wether", OSLO, id=call_id), tool_call("get_weather", OSLO)]
    )
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?")

    feedback = model.chat_requests[1].messages[-1]
    assert feedback["tool_call_id"] == call_id  # the id itself must match its call
    assert len(feedback["content"]) < 300
    assert "there is no tool named" in feedback["content"]
    assert result.call.output == "18 degrees celsius in Oslo"


def test_a_huge_numeric_string_for_an_integer_is_fed_back(make_client: ClientFactory) -> None:
    @tool
    def charge(cents: int) -> str:
        """Charge an amount."""
        return "ok"

    huge = '{"cents": "' + "7" * 5001 + '"}'
    model = ScriptedModel([tool_call("charge", huge), tool_call("charge", {"cents": 5})])
    client = make_client(model, [charge])

    result = client.run("Charge 5 cents")

    assert result.attempts[0].error_kinds == ["invalid_arguments"]
    assert result.call.output == "ok"
    with pytest.raises(ToolCallFailed):
        make_client(ScriptedModel([tool_call("charge", huge)] * 3), [charge]).call("x")
