"""The SDK's vLLM parser plugin on a real CPU server: Qwen2.5-Coder's calls under `auto`.

Qwen2.5-Coder writes calls as fenced (```json) or bare JSON objects, never in `<tool_call>`
tags. These tests read the server's raw answers (no SDK in between) with `tool_choice="auto"`,
streamed and whole: the plugin's `toolcall_qwen25_coder` parser turns calls to offered tools
into `tool_calls`, leaves everything else as text, and a streamed answer agrees with the whole
one. Then the SDK's own calls through the plugin, with recovery off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai

from toolcall_sdk import ToolCallClient
from toolcall_sdk.launcher import Server
from toolcall_sdk.launcher._demo import DEMO_TOOL_CALL_PARSER
from toolcall_sdk_demo.tools import DEMO_TOOLS

from .conftest import MODEL

OFFERED = {"get_weather", "get_order_status", "create_invoice"}
# Questions the model answers with calls to offered tools, then ones it answers otherwise.
CALL_PROMPTS = [
    "What's the weather in Paris?",
    "Weather in Hanoi, in fahrenheit please",
    "Where is my order ORD-12345?",
    "Create an invoice for CUS-123456 of 250000 VND due 2031-05-20",
]
OTHER_PROMPTS = [
    "Tell me a joke.",
    "Write a haiku about the sea.",
]


@dataclass
class Answer:
    """One chat completion, as the client sees it."""

    content: str | None
    calls: list[tuple[str, Any]]  # (name, decoded arguments, or the text when not JSON)
    chunks: list[str] = field(default_factory=list)  # streamed content deltas, in order
    finish_reason: str | None = None


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def ask(server: Server, prompt: str, *, stream: bool) -> Answer:
    """Ask the server directly, with `tool_choice="auto"` and non-strict tools."""
    client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
    request: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [t.openai_schema() for t in DEMO_TOOLS],
        "tool_choice": "auto",
        "temperature": 0,
        "max_tokens": 200,
    }
    if not stream:
        choice = client.chat.completions.create(**request).choices[0]
        calls = [
            (c.function.name, _arguments(c.function.arguments))
            for c in choice.message.tool_calls or []
        ]
        return Answer(choice.message.content, calls, finish_reason=choice.finish_reason)
    chunks: list[str] = []
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    finish = None
    for chunk in client.chat.completions.create(**request, stream=True):
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        finish = choice.finish_reason or finish
        if choice.delta.content:
            chunks.append(choice.delta.content)
        for call in choice.delta.tool_calls or []:
            if call.function and call.function.name:
                names[call.index] = names.get(call.index, "") + call.function.name
            if call.function and call.function.arguments:
                arguments[call.index] = arguments.get(call.index, "") + call.function.arguments
    calls = [(names.get(i, ""), _arguments(arguments.get(i, ""))) for i in sorted(names)]
    return Answer("".join(chunks) or None, calls, chunks, finish)


def _text(content: str | None) -> str:
    # A whole answer's blank content comes back as None; a streamed one keeps its blanks.
    return (content or "").strip()


def test_plugin_is_loaded(plugin_server: Server) -> None:
    command = plugin_server.plan.argv
    assert command[command.index("--tool-call-parser") + 1] == DEMO_TOOL_CALL_PARSER
    assert DEMO_TOOL_CALL_PARSER == "toolcall_qwen25_coder"
    plugin = Path(command[command.index("--tool-parser-plugin") + 1])
    assert plugin.name == "hermes_buffered.py"


def test_calls_to_offered_tools_arrive_as_tool_calls(plugin_server: Server) -> None:
    for prompt in CALL_PROMPTS:
        whole = ask(plugin_server, prompt, stream=False)

        assert len(whole.calls) == 1, (prompt, whole)
        name, arguments = whole.calls[0]
        assert name in OFFERED, prompt
        assert isinstance(arguments, dict), (prompt, arguments)
        assert _text(whole.content) == "", prompt
        assert whole.finish_reason == "tool_calls", prompt


def test_streamed_and_whole_auto_answers_agree(plugin_server: Server) -> None:
    for prompt in CALL_PROMPTS + OTHER_PROMPTS:
        whole = ask(plugin_server, prompt, stream=False)
        streamed = ask(plugin_server, prompt, stream=True)

        assert streamed.calls == whole.calls, prompt
        assert _text(streamed.content) == _text(whole.content), prompt
        assert streamed.finish_reason == whole.finish_reason, prompt
        # No piece of a call that became a tool call is streamed as text.
        for name, _ in whole.calls:
            assert f'"{name}"' not in (streamed.content or ""), prompt


def test_only_offered_names_become_calls(plugin_server: Server) -> None:
    for prompt in OTHER_PROMPTS:
        whole = ask(plugin_server, prompt, stream=False)
        assert all(name in OFFERED for name, _ in whole.calls), (prompt, whole)
        if not whole.calls:
            assert _text(whole.content), prompt  # an answer in text, kept whole


def test_sdk_call_through_the_plugin_needs_no_recovery(plugin_server: Server) -> None:
    # `auto` and no recovery from text: every call must come from the server's parser.
    client = ToolCallClient(
        base_url=plugin_server.base_url,
        model=MODEL,
        tools=DEMO_TOOLS,
        router="always",
        tool_choice="auto",
        recover=False,
        max_tokens=200,
    )
    question = "Create an invoice for CUS-123456 of 250000 VND due 2031-05-20"

    plain = client.call(question)
    streamed = client.call(question, stream=True)

    assert streamed.calls, streamed.attempts
    assert [(c.name, c.arguments) for c in streamed.calls] == [
        (c.name, c.arguments) for c in plain.calls
    ]
    assert not any(a.parser_miss for a in streamed.attempts)
    assert streamed.attempts[0].request.tool_choice == "auto"
    assert streamed.call.arguments.customer_id == "CUS-123456"  # type: ignore[attr-defined]
