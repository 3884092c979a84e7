"""The SDK's vLLM tool-parser plugin on a real CPU server with the split-tag demo model.

The demo model's tokenizer has no `<tool_call>` token: it writes the tag as ordinary tokens,
so in streaming the tag arrives split across deltas. These tests read the server's raw
answers (no SDK in between) with `tool_choice="auto"`, streamed and whole, and then the
SDK's own streaming call through the plugin. The last test puts vLLM's built-in `hermes`
parser beside the plugin on the same model and prompts, and prints what differs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import pytest

from toolcall_sdk import ToolCallClient
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo import SERVED_MODEL_NAME
from toolcall_sdk_demo.tools import DEMO_TOOLS

from .conftest import launch

START, END = "<tool_call>", "</tool_call>"
# Questions the demo model answers with calls, and two it may answer in words.
PROMPTS = [
    "What's the weather in Paris?",
    "Weather in Hanoi, in fahrenheit please",
    "Where is my order ORD-12345?",
    "Create an invoice for CUS-123456 of 250000 VND due 2031-05-20",
    "What is the weather in Oslo in celsius? And where is order ORD-54321?",
    "Hi! How are you?",
    "Thanks, that is all.",
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
        "model": SERVED_MODEL_NAME,
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


def partial_tags(chunks: list[str]) -> list[str]:
    """Streamed content that holds a tag or the start of one cut at the chunk's end."""
    found = []
    for chunk in chunks:
        if "tool_call" in chunk:
            found.append(chunk)
            continue
        for tag in (START, END):
            if any(chunk.endswith(tag[:k]) for k in range(2, len(tag))):
                found.append(chunk)
    return found


def _text(content: str | None) -> str:
    # A whole answer's blank content comes back as None; a streamed one keeps its blanks.
    return (content or "").strip()


@pytest.fixture(scope="module")
def builtin_hermes_server(vllm_python: str, demo_model_dir: Path) -> Iterator[Server]:
    """The same model behind vLLM's own `hermes` parser, for comparison."""
    yield from launch(vllm_python, demo_model_dir, tool_call_parser="hermes")


def test_plugin_is_loaded(plugin_server: Server) -> None:
    command = plugin_server.plan.argv
    assert command[command.index("--tool-call-parser") + 1] == "toolcall_hermes"
    plugin = Path(command[command.index("--tool-parser-plugin") + 1])
    assert plugin.name == "hermes_buffered.py"


def test_streamed_and_whole_auto_answers_agree(plugin_server: Server) -> None:
    with_calls = 0
    for prompt in PROMPTS:
        whole = ask(plugin_server, prompt, stream=False)
        streamed = ask(plugin_server, prompt, stream=True)

        assert streamed.calls == whole.calls, prompt
        assert _text(streamed.content) == _text(whole.content), prompt
        assert streamed.finish_reason == whole.finish_reason, prompt
        with_calls += bool(whole.calls)
        for name, arguments in whole.calls:
            assert name in {"get_weather", "get_order_status", "create_invoice"}
            assert isinstance(arguments, dict), (prompt, arguments)
    assert with_calls >= 4  # the comparison is not vacuous: most prompts are answered by calls


def test_no_partial_tag_is_streamed_as_content(plugin_server: Server) -> None:
    for prompt in PROMPTS:
        streamed = ask(plugin_server, prompt, stream=True)

        assert partial_tags(streamed.chunks) == [], prompt
        assert "<tool" not in (streamed.content or ""), prompt


def test_sdk_streaming_call_through_the_plugin(plugin_server: Server) -> None:
    # `auto` and no recovery from text: every call must come from the server's parser.
    client = ToolCallClient(
        base_url=plugin_server.base_url,
        model=SERVED_MODEL_NAME,
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
    assert [(c.name, c.raw_arguments) for c in streamed.calls] == [
        (c.name, c.raw_arguments) for c in plain.calls
    ]
    assert not any(a.parser_miss for a in streamed.attempts)
    assert streamed.attempts[0].request.tool_choice == "auto"


def test_sdk_required_call_through_the_plugin(plugin_server: Server) -> None:
    client = ToolCallClient(
        base_url=plugin_server.base_url,
        model=SERVED_MODEL_NAME,
        tools=DEMO_TOOLS,
        router="always",
        max_tokens=200,
    )

    result = client.call("What is the weather in Oslo in celsius?", stream=True)

    assert result.attempts[0].request.tool_choice == "required"
    assert result.calls, result.attempts
    assert not any(a.parser_miss for a in result.attempts)


def test_builtin_hermes_beside_the_plugin(
    builtin_hermes_server: Server, plugin_server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """Same model, same prompts: what vLLM's `hermes` parser does with split tags."""
    rows = []
    for prompt in PROMPTS:
        builtin_whole = ask(builtin_hermes_server, prompt, stream=False)
        builtin_stream = ask(builtin_hermes_server, prompt, stream=True)
        plugin_whole = ask(plugin_server, prompt, stream=False)
        plugin_stream = ask(plugin_server, prompt, stream=True)
        rows.append(
            {
                "prompt": prompt,
                "builtin_whole_calls": len(builtin_whole.calls),
                "builtin_stream_calls": len(builtin_stream.calls),
                "builtin_stream_same_calls": builtin_stream.calls == builtin_whole.calls,
                "builtin_partial_tags": partial_tags(builtin_stream.chunks),
                "builtin_whole_content": builtin_whole.content,
                "builtin_stream_content": builtin_stream.content,
                "plugin_calls": len(plugin_whole.calls),
                "plugin_whole_content": plugin_whole.content,
                "plugin_partial_tags": partial_tags(plugin_stream.chunks),
            }
        )
        # Same model, temperature 0: the plugin reads the calls vLLM's own parser reads.
        assert plugin_whole.calls == builtin_whole.calls, prompt
        assert plugin_stream.calls == plugin_whole.calls, prompt
    with capsys.disabled():
        print("\nvLLM hermes vs toolcall_hermes on the split-tag demo model:")
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
