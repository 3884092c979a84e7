"""Stage-2 options: `tool_choice="auto"` and `recover=False`, on both clients."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from toolcall_sdk import AsyncToolCallClient, ToolCallClient, ToolCallFailed
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory

OSLO = {"city": "Oslo", "unit": "celsius"}
LEAKED = f'<tool_call>{{"name": "get_weather", "arguments": {json.dumps(OSLO)}}}</tool_call>'
NO_CALL_FEEDBACK = {
    "role": "user",
    "content": "ERROR: you answered with text, but a tool call is required. "
    "Available tools: get_weather. Call one of them now.",
}

AsyncFactory = Callable[..., AsyncToolCallClient]


def test_auto_is_sent_even_for_a_single_tool(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], tool_choice="auto")

    result = client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    assert request.json is not None
    assert request.json["tool_choice"] == "auto"
    assert [t["function"]["name"] for t in request.json["tools"]] == ["get_weather"]
    assert request.temperature == 0.0
    assert result.attempts[0].request.tool_choice == "auto"
    assert result.call.arguments.model_dump() == OSLO


def test_auto_with_several_tools(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather, create_invoice], tool_choice="auto")

    client.call("Weather in Oslo?")

    assert model.calls_for("call")[0].tool_choice == "auto"


def test_required_stays_the_default(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    one = ScriptedModel([tool_call("get_weather", OSLO)])
    make_client(one, [get_weather]).call("Weather?")
    two = ScriptedModel([tool_call("get_weather", OSLO)])
    make_client(two, [get_weather, create_invoice]).call("Weather?")

    assert one.calls_for("call")[0].tool_choice == {
        "type": "function",
        "function": {"name": "get_weather"},
    }
    assert two.calls_for("call")[0].tool_choice == "required"


def test_auto_text_answer_is_fed_back_and_retried(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text("It is probably sunny."), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], tool_choice="auto")

    result = client.call("Weather in Oslo?")

    first, second = result.attempts
    assert first.error_kinds == ["no_tool_call"]
    assert first.parser_miss is False
    assert first.feedback == [NO_CALL_FEEDBACK]
    retry = model.calls_for("call")[1]
    assert retry.tool_choice == "auto"
    assert retry.messages[-2:] == [
        {"role": "assistant", "content": "It is probably sunny."},
        NO_CALL_FEEDBACK,
    ]
    assert second.ok
    assert result.call.arguments.model_dump() == OSLO


def test_auto_recovers_a_call_left_in_the_text(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(LEAKED)])
    client = make_client(model, [get_weather], tool_choice="auto")

    result = client.call("Weather in Oslo?")

    assert len(model.calls_for("call")) == 1
    assert result.attempts[0].parser_miss is True
    assert result.call.arguments.model_dump() == OSLO


def test_recover_false_feeds_the_leaked_call_back(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(LEAKED), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], recover=False)

    result = client.call("Weather in Oslo?")

    first = result.attempts[0]
    assert first.parser_miss is False
    assert first.error_kinds == ["no_tool_call"]
    # The markup goes back verbatim as the rejected answer: nothing was read from it.
    assert model.calls_for("call")[1].messages[-2:] == [
        {"role": "assistant", "content": LEAKED},
        NO_CALL_FEEDBACK,
    ]
    assert result.call.id == "call_1"


def test_recover_false_fails_where_recovery_succeeds(
    make_client: ClientFactory, get_weather: Any
) -> None:
    on = make_client(ScriptedModel([text(LEAKED)]), [get_weather], max_retries=0)
    off = make_client(ScriptedModel([text(LEAKED)]), [get_weather], max_retries=0, recover=False)

    assert on.call("Weather in Oslo?").attempts[0].parser_miss
    with pytest.raises(ToolCallFailed) as excinfo:
        off.call("Weather in Oslo?")
    assert [a.error_kinds for a in excinfo.value.attempts] == [["no_tool_call"]]


@pytest.mark.parametrize("client_class", [ToolCallClient, AsyncToolCallClient])
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tool_choice": "none"}, "tool_choice must be one of 'required', 'auto'"),
        ({"tool_choice": "named"}, "got 'named'"),
        ({"recover": "yes"}, "recover must be True or False"),
        ({"recover": None}, "recover must be True or False"),
    ],
)
def test_option_values_are_checked(
    client_class: type[Any], options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        client_class(base_url="http://localhost:1/v1", model="m", **options)


async def test_async_twin_takes_both_options(
    make_async_client: AsyncFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(LEAKED), tool_call("get_weather", OSLO)])
    client = make_async_client(model, [get_weather], tool_choice="auto", recover=False)

    result = await client.call("Weather in Oslo?")

    assert [r.tool_choice for r in model.calls_for("call")] == ["auto", "auto"]
    assert result.attempts[0].error_kinds == ["no_tool_call"]
    assert result.attempts[0].parser_miss is False
    assert result.call.arguments.model_dump() == OSLO
