"""Calls left in the text by a mismatched server parser, and deterministic repairs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk import ToolCallClient
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory, Ledger

OSLO = {"city": "Oslo", "unit": "celsius"}
LEAKED = (
    "Let me check.\n<tool_call>\n"
    f'{{"name": "get_weather", "arguments": {json.dumps(OSLO)}}}\n</tool_call>'
)


def test_call_in_content_is_recovered_and_flagged(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([text(LEAKED)])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?")

    assert result.call.name == "get_weather"
    assert result.call.arguments.city == "Oslo"  # type: ignore[attr-defined]
    assert result.attempts[0].parser_miss is True
    assert result.attempts[0].ok
    assert result.content == "Let me check."
    assert ledger.count("get_weather") == 1
    assert len(model.calls_for("call")) == 1
    # The history carries the call as a real tool call, so the template renders it back.
    assistant = result.messages[-2]
    assert assistant["tool_calls"][0]["id"] == "r00100000"
    assert result.messages[-1]["tool_call_id"] == "r00100000"


@pytest.mark.parametrize(
    "leaked",
    [
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}]',
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo", "unit": "celsius"}}',
        '[get_weather(city="Oslo", unit="celsius")]',
        "<function=get_weather><parameter=city>Oslo</parameter><parameter=unit>celsius"
        "</parameter></function>",
        '<think>need weather</think><tool_call>{"name": "get_weather", "arguments": '
        '{"city": "Oslo", "unit": "celsius"}}</tool_call>',
    ],
    ids=["mistral", "llama3", "pythonic", "qwen3-xml", "after-think"],
)
def test_every_format_is_recovered(
    make_client: ClientFactory, get_weather: Any, leaked: str
) -> None:
    model = ScriptedModel([text(leaked)])
    client = make_client(model, [get_weather])

    result = client.call("Weather in Oslo?")

    assert result.attempts[0].parser_miss
    assert result.call.arguments.model_dump() == OSLO


def test_recovered_invalid_call_gets_feedback_on_its_id(
    make_client: ClientFactory, get_weather: Any
) -> None:
    bad = '<tool_call>{"name": "get_weather", "arguments": {"unit": "celsius"}}</tool_call>'
    model = ScriptedModel([text(bad), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    result = client.call("Weather in Oslo?")

    assert result.attempts[0].parser_miss
    assert result.attempts[0].error_kinds == ["invalid_arguments"]
    retry = model.calls_for("call")[1]
    assert retry.messages[-2]["tool_calls"][0]["id"] == "r00100000"
    assert retry.messages[-1]["tool_call_id"] == "r00100000"
    assert "city: Field required" in retry.messages[-1]["content"]
    assert result.attempts[1].parser_miss is False


def test_text_answers_are_never_searched(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([text(LEAKED)])
    client = make_client(model, [get_weather], router="never")

    result = client.run("Weather in Oslo?")

    assert result.called is False
    assert result.calls == []
    assert result.content == LEAKED


def test_arguments_as_a_json_string_are_unwrapped(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", json.dumps(json.dumps(OSLO)))])
    client = make_client(model, [get_weather])

    result = client.call("Weather in Oslo?")

    assert result.call.arguments.model_dump() == OSLO
    assert result.attempts[0].repairs == ["get_weather:json_string_arguments"]
    assert len(result.attempts) == 1


def test_truncated_object_is_closed_only_after_a_clean_stop(
    make_client: ClientFactory, get_weather: Any
) -> None:
    cut = '{"city": "Oslo", "unit": "celsius"'
    stopped = ScriptedModel([tool_call("get_weather", cut, finish_reason="stop")])
    result = make_client(stopped, [get_weather]).call("Weather in Oslo?")
    assert result.attempts[0].repairs == ["get_weather:closed_truncated_json"]
    assert result.call.arguments.model_dump() == OSLO

    cut_off = ScriptedModel(
        [tool_call("get_weather", cut, finish_reason="length"), tool_call("get_weather", OSLO)]
    )
    result = make_client(cut_off, [get_weather]).call("Weather in Oslo?")
    assert result.attempts[0].error_kinds == ["invalid_json"]
    assert result.attempts[0].repairs == []


def test_streamed_split_tags_are_recovered_too(get_weather: Any) -> None:
    model = ScriptedModel([text(LEAKED)], chunk_size=1)
    with model.serve() as base_url:
        client = ToolCallClient(base_url=base_url, model="m", tools=[get_weather], router="always")
        result = client.call("Weather in Oslo?", stream=True)

    assert result.attempts[0].parser_miss
    assert result.call.arguments.model_dump() == OSLO
