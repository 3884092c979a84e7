"""`OtelHook`: the span tree of a call, its GenAI attributes, and `traceparent` on the wire."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from toolcall_sdk import ServerConnectionError, install_command
from toolcall_sdk.otel import OtelHook
from toolcall_sdk.testing import ScriptedModel, disconnect, text, tool_call

from ..conftest import ClientFactory

OSLO = {"city": "Oslo", "unit": "celsius"}
LEAKED = f'<tool_call>{{"name": "get_weather", "arguments": {json.dumps(OSLO)}}}</tool_call>'


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider
    provider.shutdown()


Tree = tuple[str, list["Tree"]]


def tree(spans: tuple[ReadableSpan, ...]) -> list[Tree]:
    """The spans as (name, children) trees, children in start order."""
    ids = {span.context.span_id for span in spans if span.context is not None}

    def children(parent: int | None) -> list[Tree]:
        kids = [
            span
            for span in spans
            if (span.parent.span_id if span.parent is not None else None) == parent
            or (parent is None and span.parent is not None and span.parent.span_id not in ids)
        ]
        kids.sort(key=lambda span: span.start_time or 0)
        return [(span.name, children(span.context.span_id)) for span in kids if span.context]

    return children(None)


def named(spans: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return sorted((s for s in spans if s.name == name), key=lambda s: s.start_time or 0)


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return {
        key: tuple(value) if isinstance(value, (list, tuple)) else value
        for key, value in (span.attributes or {}).items()
    }


def test_a_feedback_round_is_a_span_tree(
    make_client: ClientFactory,
    get_weather: Any,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"town": "Oslo"}, usage=(40, 9)),
            tool_call("get_weather", OSLO, usage=(70, 12)),
        ]
    )
    client = make_client(model, [get_weather], hooks=[OtelHook(tracer_provider=provider)])

    result = client.run("Weather in Oslo?")

    spans = exporter.get_finished_spans()
    assert tree(spans) == [
        (
            "invoke_agent toolcall-sdk",
            [
                ("toolcall.attempt", [("chat test-model", [])]),
                (
                    "toolcall.attempt",
                    [("chat test-model", []), ("execute_tool get_weather", [])],
                ),
            ],
        )
    ]
    [call] = named(spans, "invoke_agent toolcall-sdk")
    assert attributes(call) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "vllm",
        "gen_ai.agent.name": "toolcall-sdk",
        "gen_ai.request.model": "test-model",
        "gen_ai.usage.input_tokens": 110,
        "gen_ai.usage.output_tokens": 21,
        "toolcall.operation": "run",
        "toolcall.streamed": False,
        "toolcall.route.decision": True,
        "toolcall.route.score": 1.0,
        "toolcall.route.router": "always",
        "toolcall.steps": 1,
        "toolcall.attempts": 2,
        "toolcall.parser_misses": 0,
        "toolcall.repair_count": 0,
        "toolcall.outcome": "ok",
    }
    assert call.status.status_code is StatusCode.UNSET
    assert call.kind is trace.SpanKind.INTERNAL
    first, second = named(spans, "toolcall.attempt")
    assert attributes(first) == {
        "toolcall.attempt": 1,
        "toolcall.step": 1,
        "toolcall.parser_miss": False,
        "toolcall.problem_kinds": ("invalid_arguments",),
        "toolcall.retrying": True,
        "toolcall.feedback_messages": 1,
    }
    assert first.status.status_code is StatusCode.ERROR
    assert first.status.description == "invalid_arguments"
    assert attributes(second) == {
        "toolcall.attempt": 2,
        "toolcall.step": 1,
        "toolcall.parser_miss": False,
    }
    assert second.status.status_code is StatusCode.UNSET
    chats = named(spans, "chat test-model")
    assert [attributes(chat) for chat in chats] == [
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "vllm",
            "gen_ai.request.model": "test-model",
            "gen_ai.request.temperature": 0.0,
            "gen_ai.usage.input_tokens": tokens_in,
            "gen_ai.usage.output_tokens": tokens_out,
            "gen_ai.response.finish_reasons": ("tool_calls",),
            "toolcall.stage": "call",
            "toolcall.attempt": number,
            "toolcall.tool_calls": 1,
        }
        for number, tokens_in, tokens_out in ((1, 40, 9), (2, 70, 12))
    ]
    assert all(chat.kind is trace.SpanKind.CLIENT for chat in chats)
    [executed] = named(spans, "execute_tool get_weather")
    assert attributes(executed) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": result.call.id,
        "gen_ai.tool.type": "function",
        "toolcall.tool.status": "ok",
    }
    # No prompt text, argument or output unless capture_content=True.
    assert "Oslo" not in repr([span.attributes for span in spans])


def test_each_request_carries_its_span_as_traceparent(
    make_client: ClientFactory,
    get_weather: Any,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", OSLO)]
    )
    client = make_client(
        model, [get_weather], hooks=[OtelHook(tracer_provider=provider)], router="probe"
    )

    client.call("Weather in Oslo?")

    spans = exporter.get_finished_spans()
    chats = named(spans, "chat test-model")
    assert [attributes(chat)["toolcall.stage"] for chat in chats] == ["route", "call", "call"]
    sent = [request.headers["traceparent"] for request in model.chat_requests]
    assert sent == [
        f"00-{trace.format_trace_id(chat.context.trace_id)}-"
        f"{trace.format_span_id(chat.context.span_id)}-{chat.context.trace_flags:02x}"
        for chat in chats
        if chat.context is not None
    ]
    [call] = named(spans, "invoke_agent toolcall-sdk")
    assert all(chat.parent is not None for chat in chats)
    assert chats[0].parent is not None
    assert call.context is not None
    assert chats[0].parent.span_id == call.context.span_id  # the route request: under the call


def test_spans_join_the_callers_trace(
    make_client: ClientFactory,
    get_weather: Any,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], hooks=[OtelHook(tracer_provider=provider)])

    with provider.get_tracer("app").start_as_current_span("handle request") as app:
        client.call("Weather in Oslo?")

    [call] = named(exporter.get_finished_spans(), "invoke_agent toolcall-sdk")
    assert call.parent is not None
    assert call.parent.span_id == app.get_span_context().span_id


def test_content_is_recorded_only_when_asked(
    make_client: ClientFactory,
    get_weather: Any,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO, id="call_1")])
    hook = OtelHook(tracer_provider=provider, capture_content=True)
    make_client(model, [get_weather], hooks=[hook]).run("Weather in Oslo?")

    spans = exporter.get_finished_spans()
    [chat] = named(spans, "chat test-model")
    assert json.loads(str(attributes(chat)["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]}
    ]
    assert json.loads(str(attributes(chat)["gen_ai.output.messages"])) == [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_1",
                    "name": "get_weather",
                    "arguments": json.dumps(OSLO),
                }
            ],
            "finish_reason": "tool_calls",
        }
    ]
    [executed] = named(spans, "execute_tool get_weather")
    assert attributes(executed)["gen_ai.tool.call.arguments"] == json.dumps(OSLO)
    assert attributes(executed)["gen_ai.tool.call.result"] == "18 degrees celsius in Oslo"


def test_recovery_and_repairs_are_attempt_attributes(
    make_client: ClientFactory,
    get_weather: Any,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel([text(LEAKED), tool_call("get_weather", json.dumps(json.dumps(OSLO)))])
    client = make_client(model, [get_weather], hooks=[OtelHook(tracer_provider=provider)])

    client.call("Weather in Oslo?")
    client.call("Weather in Oslo?")

    spans = exporter.get_finished_spans()
    recovered, repaired = named(spans, "toolcall.attempt")
    assert attributes(recovered)["toolcall.parser_miss"] is True
    assert attributes(repaired)["toolcall.repairs"] == ("get_weather:json_string_arguments",)
    calls = named(spans, "invoke_agent toolcall-sdk")
    assert [attributes(c)["toolcall.parser_misses"] for c in calls] == [1, 0]
    assert [attributes(c)["toolcall.repair_count"] for c in calls] == [0, 1]


def test_a_failed_call_is_an_error_span(
    make_client: ClientFactory,
    get_weather: Any,
    provider: TracerProvider,
    exporter: InMemorySpanExporter,
) -> None:
    model = ScriptedModel([disconnect()] * 4)
    client = make_client(model, [get_weather], hooks=[OtelHook(tracer_provider=provider)])

    with pytest.raises(ServerConnectionError):
        client.call("Weather in Oslo?")

    spans = exporter.get_finished_spans()
    assert tree(spans) == [
        (
            "invoke_agent toolcall-sdk",
            [("toolcall.attempt", [("chat test-model", [])])],
        )
    ]
    [call] = named(spans, "invoke_agent toolcall-sdk")
    [chat] = named(spans, "chat test-model")
    for span in (call, chat):
        assert span.status.status_code is StatusCode.ERROR
        assert attributes(span)["error.type"] == "ServerConnectionError"
    assert attributes(call)["toolcall.outcome"] == "error"


def test_without_a_recording_tracer_no_traceparent_is_sent(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    hook = OtelHook(tracer_provider=trace.NoOpTracerProvider())
    make_client(model, [get_weather], hooks=[hook]).call("Weather in Oslo?")

    assert "traceparent" not in model.chat_requests[0].headers


def test_without_the_extra_the_error_names_it() -> None:
    code = (
        "import sys; sys.modules['opentelemetry'] = None\n"
        "try:\n"
        "    import toolcall_sdk.otel\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "MissingDependencyError toolcall_sdk.otel needs 'opentelemetry.trace', which is not "
        f"installed: run `{install_command('otel')}`"
    )
