"""`toolcall-sdk proxy` in front of the real demo vLLM, with the plain `openai` client.

Each case shows the pair: the same `openai` code straight against vLLM, then with its
`base_url` pointed at the proxy. Behind the wrong `--tool-call-parser` the direct call gets no
`tool_calls` (the call stays in `content`); through the proxy the same request returns a
validated call, recovered from the text the server's parser could not read. The demo
model is not trained on the router prompt, so the proxy runs with `router="always"`, and it
writes its calls well only in its own markup (under a grammar-forced call it copies
arguments badly), so the proxy's call runs with `call_tool_choice="auto"`.

The agent frameworks (openai-agents, LangChain, pydantic-ai) are in test_frameworks_live.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import cast

import openai
import pytest
from openai._legacy_response import LegacyAPIResponse
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCall,
)

from toolcall_sdk.launcher import Server
from toolcall_sdk.proxy import create_app, serve_in_thread
from toolcall_sdk_demo import SERVED_MODEL_NAME
from toolcall_sdk_demo.tools import get_weather

WEATHER = "What's the weather in Paris?"
# The definition an openai-client user writes by hand: plain JSON Schema, no strict flag.
WEATHER_TOOL = cast(ChatCompletionFunctionToolParam, get_weather.openai_schema(strict=False))


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="EMPTY", max_retries=0, timeout=300)


@pytest.fixture
def proxy_to() -> Iterator[Callable[[Server], str]]:
    """Start a proxy in front of a server; every proxy stops at the end of the test."""
    with contextlib.ExitStack() as stack:

        def start(server: Server) -> str:
            app = create_app(server.base_url, router="always", call_tool_choice="auto")
            return stack.enter_context(serve_in_thread(app))

        yield start


def ask(base_url: str) -> LegacyAPIResponse[ChatCompletion]:
    return client(base_url).chat.completions.with_raw_response.create(
        model=SERVED_MODEL_NAME,
        messages=[{"role": "user", "content": WEATHER}],
        tools=[WEATHER_TOOL],
        temperature=0,
        max_tokens=200,
    )


def test_wrong_parser_pair(wrong_parser_server: Server, proxy_to: Callable[[Server], str]) -> None:
    direct = ask(wrong_parser_server.base_url).parse()
    assert not direct.choices[0].message.tool_calls
    assert "<tool_call>" in (direct.choices[0].message.content or "")

    raw = ask(proxy_to(wrong_parser_server))
    through = raw.parse()

    [call] = through.choices[0].message.tool_calls or []
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert call.function.name == "get_weather"
    arguments = json.loads(call.function.arguments)
    assert arguments["city"] == "Paris"
    assert arguments["unit"] in ("celsius", "fahrenheit")
    assert through.choices[0].finish_reason == "tool_calls"
    assert raw.headers["x-toolcall-route"] == "call"
    assert int(raw.headers["x-toolcall-attempts"]) >= 1


def test_stream_through_the_proxy(demo_server: Server, proxy_to: Callable[[Server], str]) -> None:
    base_url = proxy_to(demo_server)

    chunks = list(
        client(base_url).chat.completions.create(
            model=SERVED_MODEL_NAME,
            messages=[{"role": "user", "content": WEATHER}],
            tools=[WEATHER_TOOL],
            temperature=0,
            max_tokens=200,
            stream=True,
        )
    )

    calls = [
        c for chunk in chunks if chunk.choices for c in chunk.choices[0].delta.tool_calls or []
    ]
    [call] = calls
    assert call.function is not None
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments or "")["city"] == "Paris"


def test_requests_without_tools_pass_through(
    demo_server: Server, proxy_to: Callable[[Server], str]
) -> None:
    base_url = proxy_to(demo_server)

    models = client(base_url).models.list()
    answer = client(base_url).chat.completions.create(
        model=SERVED_MODEL_NAME,
        messages=[{"role": "user", "content": "Hello"}],
        max_tokens=16,
    )

    assert [m.id for m in models.data] == [SERVED_MODEL_NAME]
    assert answer.choices[0].message.tool_calls is None
