"""`toolcall-sdk proxy` in front of the real demo vLLM, with the plain `openai` client.

The proxy runs with its defaults (the `llm` router: the model's answer under `auto`
decides; validation, retries forced). The
pair against the wrong parser is in test_wrong_parser_live.py; the agent frameworks
(openai-agents, LangChain, pydantic-ai) are in test_frameworks_live.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import cast

import openai
import pytest
from openai.types.chat import (
    ChatCompletionFunctionToolParam,
)

from toolcall_sdk.launcher import Server
from toolcall_sdk.proxy import create_app, serve_in_thread
from toolcall_sdk_demo.tools import get_weather

from .conftest import MODEL

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
            return stack.enter_context(serve_in_thread(create_app(server.base_url)))

        yield start


def test_stream_through_the_proxy(demo_server: Server, proxy_to: Callable[[Server], str]) -> None:
    base_url = proxy_to(demo_server)

    chunks = list(
        client(base_url).chat.completions.create(
            model=MODEL,
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


def test_a_no_tool_question_through_the_proxy_is_answered_in_text(
    demo_server: Server, proxy_to: Callable[[Server], str]
) -> None:
    raw = client(proxy_to(demo_server)).chat.completions.with_raw_response.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Tell me a joke about cats."}],
        tools=[WEATHER_TOOL],
        temperature=0,
        max_tokens=100,
    )
    answer = raw.parse()
    # The default router leaves it to the answer under auto: the model writes a joke.
    assert raw.headers["x-toolcall-route"] == "no_call"
    assert not answer.choices[0].message.tool_calls
    assert "cat" in (answer.choices[0].message.content or "").lower()


def test_requests_without_tools_pass_through(
    demo_server: Server, proxy_to: Callable[[Server], str]
) -> None:
    base_url = proxy_to(demo_server)

    models = client(base_url).models.list()
    answer = client(base_url).chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Hello"}],
        max_tokens=16,
    )

    assert [m.id for m in models.data] == [MODEL]
    assert answer.choices[0].message.tool_calls is None
