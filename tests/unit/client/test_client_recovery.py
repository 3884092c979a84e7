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
    feedback = cut_off.calls_for("call")[1].messages[-1]
    assert feedback["role"] == "tool"
    assert feedback["content"].startswith(
        "ERROR in get_weather (call call_1): your call was cut off"
    )


def test_call_left_in_the_text_and_cut_off_gets_cut_off_feedback(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    # max_tokens ended the answer inside the call: recovery finds no call (the model never
    # finished it), and the feedback says why instead of "you answered with text".
    cut = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Os'
    model = ScriptedModel([text(cut, finish_reason="length"), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?")

    assert result.attempts[0].error_kinds == ["no_tool_call"]
    assert result.attempts[0].parser_miss is False
    feedback = model.calls_for("call")[1].messages[-1]
    assert feedback == {
        "role": "user",
        "content": "ERROR: your call was cut off: the answer reached the token limit "
        "(max_tokens) before the tool call was complete. Available tools: get_weather. "
        "Call one of them now, with no text before the call.",
    }
    assert ledger.count("get_weather") == 1


@pytest.mark.parametrize(
    ("model_id", "leaked"),
    [
        (
            "deepseek-ai/DeepSeek-V3.1",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
            '{"city": "Oslo", "unit": "celsius"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        ),
        (
            "deepseek-ai/DeepSeek-V3.2",
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
            '<｜DSML｜parameter name="city" string="true">Oslo</｜DSML｜parameter>\n'
            '<｜DSML｜parameter name="unit" string="true">celsius</｜DSML｜parameter>\n'
            "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        ),
        (
            "zai-org/GLM-4.7",
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value>"
            "<arg_key>unit</arg_key><arg_value>celsius</arg_value></tool_call>",
        ),
        (
            "moonshotai/Kimi-K2-Instruct-0905",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            '<|tool_call_argument_begin|>{"city": "Oslo", "unit": "celsius"}<|tool_call_end|>'
            "<|tool_calls_section_end|>",
        ),
        (
            "openai/gpt-oss-20b",
            "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant "
            "to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>"
            '{"city": "Oslo", "unit": "celsius"}',
        ),
        (
            "google/gemma-4-31B-it",
            '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,unit:<|"|>celsius<|"|>}<tool_call|>',
        ),
        (
            "Qwen/Qwen3.5-9B",
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
            "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
        ),
    ],
    ids=["deepseek-v3.1", "deepseek-v3.2", "glm-4.7", "kimi-k2", "gpt-oss", "gemma-4", "qwen3.5"],
)
def test_every_family_is_recovered_through_the_model_id(
    get_weather: Any, model_id: str, leaked: str
) -> None:
    model = ScriptedModel([text(leaked)])
    client = ToolCallClient(
        base_url=model.base_url,
        model=model_id,
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
    )

    result = client.call("Weather in Oslo?")

    assert result.attempts[0].parser_miss
    assert result.call.arguments.model_dump() == OSLO
    assert len(model.calls_for("call")) == 1


def test_streamed_split_tags_are_recovered_too(get_weather: Any) -> None:
    model = ScriptedModel([text(LEAKED)], chunk_size=1)
    with model.serve() as base_url:
        client = ToolCallClient(base_url=base_url, model="m", tools=[get_weather], router="always")
        result = client.call("Weather in Oslo?", stream=True)

    assert result.attempts[0].parser_miss
    assert result.call.arguments.model_dump() == OSLO
