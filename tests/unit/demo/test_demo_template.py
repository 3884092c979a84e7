"""The demo model's chat template, rendered as vLLM renders it (jinja2 with transformers'
`tojson`). jinja2 ships with transformers and vLLM, not with the SDK, so these tests skip in an
environment without it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip(
    "toolcall_sdk_demo",
    reason="the demo model package is not installed (pip install -e ./demo-model)",
)
pytest.importorskip(
    "jinja2", reason="jinja2 is not installed (it comes with transformers/vLLM, not the SDK)"
)

from toolcall_sdk_demo._data import generate
from toolcall_sdk_demo._template import render_chat
from toolcall_sdk_demo._toolbox import demo_tools, tool_definition
from toolcall_sdk_demo._train import assistant_spans

CALL: dict[str, Any] = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Hà Nội", "unit": "celsius"}'},
}


def test_tools_render_as_one_signature_line_each() -> None:
    text = render_chat([{"role": "user", "content": "Hi"}], demo_tools("strict"))
    assert text.startswith("<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n<tools>\n")
    assert (
        'get_weather(city: string, unit: "celsius"|"fahrenheit"): '
        "Get the current weather for a city.\n"
    ) in text
    assert "get_order_status(order_id: string ^ORD-\\d{5}$): " in text
    assert "amount_vnd: integer, due_date: string (date))" in text
    # Fields a server adds never reach the prompt.
    assert "strict" not in text
    assert "additionalProperties" not in text


def test_schema_style_and_server_fields_do_not_change_the_signature() -> None:
    messages = [{"role": "user", "content": "Hi"}]
    plain = render_chat(messages, [tool_definition("get_order_status", "plain")])
    strict = render_chat(messages, [tool_definition("get_order_status", "strict")])
    server = tool_definition("get_order_status", "strict")
    server["function"]["extra"] = None
    assert plain == strict == render_chat(messages, [server])


def test_complex_parameters_fall_back_to_json() -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
            },
        },
    }
    text = render_chat([{"role": "user", "content": "x"}], [tool])
    assert 'f(tags: {"type": "array", "items": {"type": "string"}})' in text


def test_no_tools_no_tools_block_and_a_given_system_prompt() -> None:
    text = render_chat(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        add_generation_prompt=True,
    )
    assert text == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_tool_calls_render_in_hermes_format_with_no_separator() -> None:
    second = {**CALL, "id": "call_2"}
    text = render_chat(
        [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None, "tool_calls": [CALL, second]},
        ]
    )
    one = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Hà Nội", '
        '"unit": "celsius"}}\n</tool_call>'
    )
    assert text.endswith(f"<|im_start|>assistant\n{one}{one}<|im_end|>\n")


def test_arguments_as_string_or_dict_render_the_same() -> None:
    as_dict = {
        **CALL,
        "function": {"name": "get_weather", "arguments": json.loads(CALL["function"]["arguments"])},
    }
    messages = [{"role": "user", "content": "x"}]
    assert render_chat([*messages, {"role": "assistant", "tool_calls": [CALL]}]) == render_chat(
        [*messages, {"role": "assistant", "tool_calls": [as_dict]}]
    )


def test_tool_messages_are_grouped_into_one_user_turn() -> None:
    text = render_chat(
        [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "A"},
            {"role": "tool", "tool_call_id": "call_2", "content": "B"},
        ],
        add_generation_prompt=True,
    )
    assert "<|im_start|>assistant\nChecking.\n<tool_call>" in text
    assert text.endswith(
        "<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n"
        "</tool_response><|im_end|>\n<|im_start|>assistant\n"
    )


def test_training_targets_are_exactly_the_assistant_turns() -> None:
    for example in generate(100, seed=3):
        text = render_chat(example.messages, example.tools)
        spans = assistant_spans(text)
        turns = [m for m in example.messages if m["role"] == "assistant"]
        assert len(spans) == len(turns)
        last = text[spans[-1][0] : spans[-1][1]]
        assert last.endswith("<|im_end|>")
        if example.expected:
            assert last.startswith("<tool_call>\n")
            assert last.count("<tool_call>") == len(example.expected)
        else:
            assert last == f"{example.answer}<|im_end|>"
        # The prompt the server renders is a prefix of the training text.
        prompt = render_chat(example.prompt, example.tools, add_generation_prompt=True)
        assert text.startswith(prompt)
        assert spans[-1][0] == len(prompt)
