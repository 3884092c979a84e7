"""The proxy over real sockets: uvicorn in a thread in front of a ScriptedModel server.

Streaming is checked with the real `openai` client parsing the proxy's SSE; concurrency with
200 callers at once, each one's marker echoed by the upstream; a caller hanging up with the
upstream's endless stream, the proxy's requests to it watched at its transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam
from openai.types.chat.chat_completion_chunk import ChoiceDeltaToolCallFunction

from toolcall_sdk import RetryPolicy
from toolcall_sdk.proxy import create_app, serve_in_thread
from toolcall_sdk.testing import (
    RecordedRequest,
    Reply,
    ScriptedModel,
    endless_stream,
    text,
    tool_call,
)

from ._watched import WatchedUpstream

WEATHER: ChatCompletionFunctionToolParam = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "minLength": 2}},
            "required": ["city"],
        },
    },
}
ECHO: ChatCompletionFunctionToolParam = {
    "type": "function",
    "function": {
        "name": "echo",
        "description": "Echo a marker.",
        "parameters": {
            "type": "object",
            "properties": {"marker": {"type": "string"}},
            "required": ["marker"],
        },
    },
}
ASK: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Weather in Oslo?"}]
# How long a test waits for what should take milliseconds before calling it a failure.
PATIENCE_S = 10.0


async def no_sleep(seconds: float) -> None:
    """Backoffs are not waited for."""


@contextlib.contextmanager
def proxy(upstream: str | list[str], **options: Any) -> Iterator[str]:
    options.setdefault("router", "always")
    options.setdefault("retry", RetryPolicy(async_sleep=no_sleep, jitter=0.0))
    with serve_in_thread(create_app(upstream, **options)) as base_url:
        yield base_url


def caller(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="caller-key", max_retries=0)


def test_stream_with_an_invalid_then_valid_call_parses_with_openai() -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "O"}, usage=(100, 10)),
            tool_call("get_weather", {"city": "Oslo"}, usage=(150, 12)),
        ]
    )
    with model.serve() as upstream, proxy(upstream) as base_url:
        stream = caller(base_url).chat.completions.create(
            model="m",
            messages=ASK,
            tools=[WEATHER],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)

    deltas = [c.choices[0] for c in chunks if c.choices]
    assert deltas[0].delta.role == "assistant"
    calls = [call for d in deltas for call in d.delta.tool_calls or []]
    assert [(c.index, c.id, c.function) for c in calls] == [
        (0, "call_2", ChoiceDeltaToolCallFunction(name="get_weather", arguments='{"city": "Oslo"}'))
    ]
    assert deltas[-1].finish_reason == "tool_calls"
    assert chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (250, 22)
    assert len({c.id for c in chunks}) == 1

    first, second = model.chat_requests
    assert second.messages[-1]["role"] == "tool"
    assert second.messages[-1]["tool_call_id"] == "call_1"
    assert "city: String should have at least 2 characters" in second.messages[-1]["content"]
    assert first.stream
    assert second.stream


def test_stream_of_a_plain_answer_comes_as_it_is_written() -> None:
    answer = "It is sunny in Oslo, eighteen degrees."
    model = ScriptedModel([text(answer), text(answer)], chunk_size=4)
    with model.serve() as upstream, proxy(upstream) as base_url:
        with httpx2.stream(
            "POST",
            f"{base_url}/chat/completions",
            json={
                "model": "m",
                "messages": ASK,
                "tools": [WEATHER],
                "tool_choice": "none",
                "stream": True,
            },
        ) as response:
            headers = response.headers
            raw = b"".join(response.iter_bytes())
        parsed = list(
            caller(base_url).chat.completions.create(
                model="m",
                messages=ASK,
                tools=[WEATHER],
                tool_choice="none",
                stream=True,
            )
        )

    assert headers["content-type"].startswith("text/event-stream")
    assert headers["x-toolcall-route"] == "no_call"
    assert raw.endswith(b"data: [DONE]\n\n")
    events = [json.loads(line[6:]) for line in raw.split(b"\n\n") if line.startswith(b"data: {")]
    pieces = [e["choices"][0]["delta"].get("content") for e in events if e["choices"]]
    assert "".join(p for p in pieces if p) == answer
    assert len([p for p in pieces if p]) > 1  # relayed piece by piece, not buffered
    assert events[-1]["choices"][0]["finish_reason"] == "stop"
    assert "".join(c.choices[0].delta.content or "" for c in parsed) == answer
    # The caller's tools are not sent on: a small model with them in the prompt answers with
    # a call as text.
    assert [(r.tools, r.tool_choice) for r in model.chat_requests] == [(None, None)] * 2


def test_stream_retries_exhausted_is_an_http_error() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "O"})] * 2)
    with (
        model.serve() as upstream,
        proxy(upstream, max_retries=1) as base_url,
        pytest.raises(openai.UnprocessableEntityError) as caught,
    ):
        caller(base_url).chat.completions.create(
            model="m",
            messages=ASK,
            tools=[WEATHER],
            stream=True,
        )

    error = caught.value.body
    assert isinstance(error, dict)
    assert error["type"] == "tool_call_failed"
    assert len(error["attempts"]) == 2


def test_stream_without_tools_is_relayed_byte_for_byte() -> None:
    script = [text("Relayed as the upstream wrote it.")]
    direct_model = ScriptedModel(script, chunk_size=3)
    proxied_model = ScriptedModel(script, chunk_size=3)
    body = {"model": "m", "messages": ASK, "stream": True}
    with direct_model.serve() as direct, proxied_model.serve() as upstream:
        with httpx2.stream("POST", f"{direct}/chat/completions", json=body) as response:
            expected = b"".join(response.iter_raw())
        with (
            proxy(upstream) as base_url,
            httpx2.stream("POST", f"{base_url}/chat/completions", json=body) as response,
        ):
            assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
            relayed = b"".join(response.iter_raw())

    assert relayed == expected
    assert relayed.count(b"data: ") > 3


async def test_200_concurrent_callers_get_their_own_answers() -> None:
    def echo(request: RecordedRequest) -> Reply:
        return tool_call("echo", {"marker": request.messages[-1]["content"]})

    model = ScriptedModel(echo)
    with model.serve() as upstream, proxy(upstream) as base_url:
        limits = httpx2.Limits(max_connections=250, max_keepalive_connections=250)
        async with httpx2.AsyncClient(base_url=base_url, limits=limits, timeout=120) as client:

            async def one(number: int) -> tuple[str, str]:
                marker = f"marker-{number:03d}"
                response = await client.post(
                    "/chat/completions",
                    json={
                        "model": "m",
                        "messages": [{"role": "user", "content": marker}],
                        "tools": [ECHO],
                    },
                )
                assert response.status_code == 200, response.text
                [call] = response.json()["choices"][0]["message"]["tool_calls"]
                return marker, json.loads(call["function"]["arguments"])["marker"]

            pairs = await asyncio.gather(*(one(n) for n in range(200)))

    assert len(pairs) == 200
    assert all(sent == echoed for sent, echoed in pairs)
    assert len(model.chat_requests) == 200
    assert sorted(r.messages[-1]["content"] for r in model.chat_requests) == sorted(
        sent for sent, _ in pairs
    )


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_failover_to_the_next_upstream() -> None:
    model = ScriptedModel(
        lambda request: (
            tool_call("get_weather", {"city": "Oslo"})
            if request.json and request.json.get("tools")
            else text("plain")
        )
    )
    with model.serve() as upstream, proxy([closed_port_url(), upstream]) as base_url:
        client = caller(base_url)
        for _ in range(3):  # every start position of the rotation reaches the live one
            called = client.chat.completions.create(
                model="m",
                messages=ASK,
                tools=[WEATHER],
            )
            assert called.choices[0].message.tool_calls
            relayed = client.chat.completions.create(model="m", messages=ASK)
            assert relayed.choices[0].message.content == "plain"


def endless_upstream() -> ScriptedModel:
    """An upstream that streams words forever, as a model stuck in a loop (or a long answer)."""
    return ScriptedModel(lambda request: endless_stream())


def chat_body(**fields: Any) -> dict[str, Any]:
    return {"model": "m", "messages": ASK, "tools": [WEATHER], "stream": True, **fields}


@pytest.mark.parametrize(
    "body",
    [chat_body(tool_choice="none"), {"model": "m", "messages": ASK, "stream": True}],
    ids=["plain-answer", "passthrough"],
)
def test_caller_hanging_up_mid_stream_closes_the_upstream(body: dict[str, Any]) -> None:
    watched = WatchedUpstream()
    with (
        endless_upstream().serve() as upstream,
        proxy(upstream, http_client=watched.client()) as base_url,
    ):
        with httpx2.stream("POST", f"{base_url}/chat/completions", json=body) as response:
            assert response.status_code == 200
            pieces = response.iter_raw()
            for _ in range(3):
                assert next(pieces).startswith(b"data: ")
        # The caller is gone: the upstream must stop generating for nobody.
        assert watched.closed.wait(PATIENCE_S)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_caller_hanging_up_before_the_answer_closes_the_upstream(stream: bool) -> None:
    # A forced call sends nothing until it is validated; the caller gives up first.
    watched = WatchedUpstream()
    payload = json.dumps(chat_body(tool_choice="required", stream=stream)).encode()
    with (
        endless_upstream().serve() as upstream,
        proxy(upstream, http_client=watched.client()) as base_url,
    ):
        host, port = httpx2.URL(base_url).host, httpx2.URL(base_url).port
        assert port is not None
        with socket.create_connection((host, port)) as caller_socket:
            caller_socket.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: proxy\r\n"
                b"Content-Type: application/json\r\n"
                + f"Content-Length: {len(payload)}\r\n\r\n".encode()
                + payload
            )
            assert watched.opened.wait(PATIENCE_S)  # the upstream is generating
        assert watched.closed.wait(PATIENCE_S)


def test_timeout_bounds_the_whole_request() -> None:
    # An answer that never ends is never silent: only a bound on the whole request stops it.
    watched = WatchedUpstream()
    with (
        endless_upstream().serve() as upstream,
        proxy(upstream, timeout=0.5, http_client=watched.client()) as base_url,
    ):
        response = httpx2.post(
            f"{base_url}/chat/completions",
            json=chat_body(tool_choice="required", stream=False),
            timeout=PATIENCE_S * 6,
        )

    assert response.status_code == 504
    error = response.json()["error"]
    assert error["type"] == "upstream_timeout"
    assert "--timeout" in error["message"]
    assert watched.closed.is_set()
