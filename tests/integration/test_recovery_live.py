"""Recovery and `stream()` on real servers.

A server started with the wrong `--tool-call-parser` (pythonic, for a model that writes
Hermes `<tool_call>` tags as ordinary tokens) leaves every call in `content`. The SDK still
yields validated calls, flags them `parser_miss`, and `recover=False` shows that the
recovery is what makes the difference. `stream()` against the correctly configured demo
server ends with the same result as `call(stream=True)`.

The demo model is tiny: the requests are ones it answers reliably at temperature 0, and only
what the SDK guarantees is asserted, not the model's wording.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import (
    ContentDelta,
    StreamCompleted,
    ToolCallClient,
    ToolCallEvent,
    ToolCallFailed,
    ToolCallResult,
    ToolCallStarted,
    ToolCallValidated,
)
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo import SERVED_MODEL_NAME
from toolcall_sdk_demo.tools import DEMO_TOOLS, get_weather

WEATHER = "What's the weather in Paris?"  # the request test_doctor_live sees leak
INVOICE = "Create an invoice for CUS-123456 of 250000 VND due 2031-05-20"


def client_for(server: Server, tools: list[Any], **options: Any) -> ToolCallClient:
    options.setdefault("router", "always")
    options.setdefault("max_tokens", 200)
    return ToolCallClient(base_url=server.base_url, model=SERVED_MODEL_NAME, tools=tools, **options)


def summary(result: ToolCallResult) -> Any:
    # Server-made call ids differ from request to request; everything else must match.
    return (
        result.called,
        [(call.name, call.raw_arguments, call.arguments) for call in result.calls],
        [(a.error_kinds, a.parser_miss, a.repairs, a.finish_reason) for a in result.attempts],
    )


def test_wrong_parser_still_yields_validated_calls(wrong_parser_server: Server) -> None:
    client = client_for(wrong_parser_server, [get_weather], tool_choice="auto")

    result = client.call(WEATHER)

    assert result.called
    assert result.attempts[-1].request.tool_choice == "auto"
    assert result.attempts[-1].parser_miss, [a.raw_message for a in result.attempts]
    assert "<tool_call>" in (result.attempts[-1].raw_message.get("content") or "")
    assert result.attempts[-1].raw_message.get("tool_calls") is None
    assert result.call.name == "get_weather"
    assert result.call.arguments.city  # type: ignore[attr-defined]


def test_without_recovery_the_same_request_gets_no_call(wrong_parser_server: Server) -> None:
    client = client_for(
        wrong_parser_server, [get_weather], tool_choice="auto", recover=False, max_retries=0
    )

    with pytest.raises(ToolCallFailed) as excinfo:
        client.call(WEATHER)

    [attempt] = excinfo.value.attempts
    assert attempt.error_kinds == ["no_tool_call"]
    assert attempt.parser_miss is False
    assert "<tool_call>" in (attempt.raw_message.get("content") or "")


def test_stream_surfaces_the_leaked_call_as_events(wrong_parser_server: Server) -> None:
    client = client_for(wrong_parser_server, [get_weather], tool_choice="auto")

    events = list(client.stream(WEATHER))
    streamed_call = client.call(WEATHER, stream=True)

    text = "".join(e.text for e in events if isinstance(e, ContentDelta))
    # The model's tags arrive split over several tokens; none of it is shown as text.
    assert "<tool" not in text
    assert "tool_call>" not in text
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert started
    assert started[-1].name == "get_weather"
    assert started[-1].id.startswith("r")  # the id recovery gives, announced up front
    last = events[-1]
    assert isinstance(last, StreamCompleted)
    assert last.result.attempts[-1].parser_miss
    assert [e.call for e in events if isinstance(e, ToolCallValidated)] == last.result.calls
    assert summary(last.result) == summary(streamed_call)


def test_stream_matches_call_with_stream_on_the_demo_server(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS)

    streamed = client.call(INVOICE, stream=True)
    events: list[ToolCallEvent] = list(client.stream(INVOICE))

    last = events[-1]
    assert isinstance(last, StreamCompleted)
    assert summary(last.result) == summary(streamed)
    assert last.result.calls, last.result.attempts
    validated = [e.call for e in events if isinstance(e, ToolCallValidated)]
    assert validated == last.result.calls
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    accepted = last.result.attempts[-1].number
    assert [(e.id, e.name) for e in started if e.attempt == accepted] == [
        (call.id, call.name) for call in last.result.calls
    ]
