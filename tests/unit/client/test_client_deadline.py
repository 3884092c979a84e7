"""Nothing waits forever: the call's deadline bounds trickling bodies and endless streams;
the size cap bounds memory; a stream that stops before saying it is complete is not an answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk import AsyncToolCallClient, ToolCallClient, ToolCallError, tool
from toolcall_sdk.errors import (
    DeadlineExceededError,
    ResponseTooLargeError,
    ServerConnectionError,
    ServerTimeoutError,
)
from toolcall_sdk.testing import (
    ScriptedModel,
    endless_stream,
    malformed,
    text,
    tool_call,
    trickle,
)

from ..conftest import AsyncTwin, ClientFactory


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def _cut_stream() -> bytes:
    # The first call of two arrived; then the connection closed: no finish reason, no [DONE].
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        }
                    ]
                },
                "finish_reason": None,
            }
        ],
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


def test_an_endless_stream_stops_at_the_deadline(make_client: ClientFactory) -> None:
    model = ScriptedModel([endless_stream()])
    client = make_client(model, [get_weather], deadline=0.3)
    with pytest.raises(DeadlineExceededError, match=r"deadline of 0\.3 s passed") as raised:
        client.call("weather?", stream=True)
    assert isinstance(raised.value, ServerTimeoutError)
    assert len(model.requests) == 1  # a passed deadline is never retried


def test_stream_events_of_an_endless_answer_stop_at_the_deadline(
    make_client: ClientFactory,
) -> None:
    model = ScriptedModel([endless_stream()])
    client = make_client(model, [get_weather], deadline=0.3)
    shown: list[Any] = []
    with pytest.raises(DeadlineExceededError):
        shown.extend(client.stream("weather?"))
    assert shown  # the text was shown as it came, until the deadline


@pytest.mark.parametrize("cls", [ToolCallClient, AsyncToolCallClient])
def test_a_trickling_body_stops_at_the_deadline(cls: Any) -> None:
    # 1 byte every 10 ms: never silent long enough for a read timeout, never done in time.
    model = ScriptedModel([trickle(tool_call("get_weather", {"city": "Oslo"}), interval=0.01)])
    with model.serve() as base_url:
        raw = cls(base_url=base_url, model="m", tools=[get_weather], router="always", deadline=0.5)
        client = AsyncTwin(raw) if cls is AsyncToolCallClient else raw
        with pytest.raises(DeadlineExceededError):
            client.call("weather?")
        client.close()


@pytest.mark.parametrize("cls", [ToolCallClient, AsyncToolCallClient])
def test_a_paced_body_within_the_deadline_is_read_whole(cls: Any) -> None:
    model = ScriptedModel(
        [trickle(tool_call("get_weather", {"city": "Oslo"}), interval=0.001, piece=64)]
    )
    with model.serve() as base_url:
        raw = cls(base_url=base_url, model="m", tools=[get_weather], router="always")
        client = AsyncTwin(raw) if cls is AsyncToolCallClient else raw
        assert client.call("weather?").calls[0].arguments.city == "Oslo"
        client.close()


def test_a_stream_cut_before_it_was_complete_is_retried_not_taken(
    make_client: ClientFactory,
) -> None:
    model = ScriptedModel([malformed(_cut_stream()), tool_call("get_weather", {"city": "Hue"})])
    client = make_client(model, [get_weather])
    result = client.call("weather?", stream=True)
    assert result.calls[0].arguments.city == "Hue"  # type: ignore[attr-defined]
    assert len(model.requests) == 2


def test_a_cut_stream_that_stays_cut_is_a_connection_error_and_runs_nothing(
    make_client: ClientFactory,
) -> None:
    ran: list[str] = []

    @tool
    def charge(city: str) -> str:
        """Charge."""
        ran.append(city)
        return "ok"

    cut = _cut_stream().replace(b"get_weather", b"charge")
    model = ScriptedModel([malformed(cut)] * 4)
    client = make_client(model, [charge])
    with pytest.raises(ServerConnectionError, match="before the server said it was complete"):
        client.run("charge Oslo", stream=True)
    assert ran == []


def test_a_live_stream_cut_mid_answer_is_raised_not_retried(make_client: ClientFactory) -> None:
    model = ScriptedModel([malformed(_cut_stream()), tool_call("get_weather", {"city": "Hue"})])
    client = make_client(model, [get_weather])
    with pytest.raises(ServerConnectionError):
        list(client.stream("weather?"))
    assert len(model.requests) == 1  # its start was shown: a retry could not take it back


def test_an_answer_over_the_size_cap_is_dropped(make_client: ClientFactory) -> None:
    model = ScriptedModel([text("x" * 5000)] * 2)
    client = make_client(model, [get_weather], router="never", max_response_bytes=2048)
    with pytest.raises(ResponseTooLargeError, match="passed 2048 bytes") as raised:
        client.call("hello")
    assert raised.value.limit == 2048
    assert isinstance(raised.value, ToolCallError)
    assert len(model.requests) == 1  # the same request would get the same answer
    with pytest.raises(ResponseTooLargeError):
        client.call("hello", stream=True)


def test_a_stream_without_done_but_with_a_finish_reason_is_complete(
    make_client: ClientFactory,
) -> None:
    finished = _cut_stream().replace(b'"finish_reason": null', b'"finish_reason": "tool_calls"')
    model = ScriptedModel([malformed(finished)])
    client = make_client(model, [get_weather])
    assert client.call("weather?", stream=True).calls[0].arguments.city == "Oslo"  # type: ignore[attr-defined]


# A server that falls silent mid-answer: headers and a first piece at once, the next piece
# 1 s later, then silence, with deadline=1.5 between them and timeout=30. The read that
# waits when the deadline passes must end then, in both twins, streamed or not: the
# message says so ("waiting for the server's next bytes"). A read left to its own timeout
# would end only when the next piece came ("still sending"), or at a read timeout.
# How far past the deadline each twin ends is measured in benchmarks/deadline_overrun.py.
@pytest.mark.parametrize("cls", [ToolCallClient, AsyncToolCallClient])
@pytest.mark.parametrize("how", ["call", "call_streamed", "stream"])
def test_a_read_waiting_when_the_deadline_passes_is_abandoned_then(cls: Any, how: str) -> None:
    model = ScriptedModel(
        [trickle(tool_call("get_weather", {"city": "Oslo"}), interval=1.0, piece=100)]
    )
    with model.serve() as base_url:
        raw = cls(
            base_url=base_url,
            model="m",
            tools=[get_weather],
            router="always",
            deadline=1.5,
            timeout=30.0,
        )
        client = AsyncTwin(raw) if cls is AsyncToolCallClient else raw

        def answer() -> Any:
            if how == "stream":
                return list(client.stream("weather?"))
            return client.call("weather?", stream=how == "call_streamed")

        with pytest.raises(DeadlineExceededError, match="waiting for the server's next bytes"):
            answer()
        client.close()
    assert len(model.requests) == 1  # a passed deadline is never retried
