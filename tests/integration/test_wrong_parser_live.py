"""The real model behind the wrong parser: vLLM's own `hermes`, as most users first serve it.

Qwen2.5-Coder writes its calls as fenced or bare JSON, never in `<tool_call>` tags, so vLLM's
hermes parser leaves every `auto` call in `content` (vLLM issue #32926): the seed's failure,
live. This module shows what the SDK does about it from the client side, with the server's
fix (the plugin parser) switched off: recovery through the client, the proxy for a plain
`openai` client, the doctor naming the cause, and the plugin beside vLLM's parser.

The server (`hermes_server`, session-scoped) is first asked for by the agent frameworks'
module just before this one, so it runs beside the demo server only for these two modules.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any, cast

import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam

from toolcall_sdk import (
    ContentDelta,
    StreamCompleted,
    ToolCallClient,
    ToolCallFailed,
    ToolCallResult,
    ToolCallStarted,
    ToolCallValidated,
)
from toolcall_sdk.doctor import run_doctor
from toolcall_sdk.launcher import Server
from toolcall_sdk.launcher._demo import DEMO_TOOL_CALL_PARSER
from toolcall_sdk.parsing import parse_any
from toolcall_sdk.proxy import create_app, serve_in_thread
from toolcall_sdk_demo.tools import DEMO_TOOLS, create_invoice, get_weather

from .conftest import MODEL

WEATHER = "What's the weather in Hanoi in celsius?"
INVOICE = "Invoice customer CUS-000042 for 1500000 VND, due 2030-12-31."
# The definition an openai-client user writes by hand: plain JSON Schema, no strict flag.
WEATHER_TOOL = cast(ChatCompletionFunctionToolParam, get_weather.openai_schema(strict=False))


def client_for(server: Server, tools: list[Any], **options: Any) -> ToolCallClient:
    options.setdefault("router", "always")
    options.setdefault("max_tokens", 200)
    return ToolCallClient(base_url=server.base_url, model=MODEL, tools=tools, **options)


def raw_auto(server: Server, prompt: str, **options: Any) -> Any:
    raw = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=300)
    return raw.chat.completions.create(  # type: ignore[call-overload]
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        tools=[t.openai_schema() for t in DEMO_TOOLS],
        tool_choice="auto",
        temperature=0,
        max_tokens=200,
        **options,
    )


def summary(result: ToolCallResult) -> Any:
    # Call ids differ from request to request; everything else must match.
    return (
        result.called,
        [(call.name, call.arguments) for call in result.calls],
        [(a.error_kinds, a.parser_miss, a.finish_reason) for a in result.attempts],
    )


def test_vllms_parser_leaves_the_call_in_content(hermes_server: Server) -> None:
    message = raw_auto(hermes_server, WEATHER).choices[0].message

    assert message.tool_calls in (None, [])
    content = message.content or ""
    assert '"name": "get_weather"' in content
    assert "<tool_call>" not in content  # the model writes no tags at all


def test_the_client_recovers_the_call_from_content(hermes_server: Server) -> None:
    client = client_for(hermes_server, [get_weather], tool_choice="auto")

    result = client.call(WEATHER)

    [attempt] = result.attempts
    assert attempt.request.tool_choice == "auto"
    assert attempt.parser_miss, attempt.raw_message
    assert not attempt.raw_message.get("tool_calls")
    assert result.call.name == "get_weather"
    assert result.call.arguments.model_dump() == {"city": "Hanoi", "unit": "celsius"}


def test_without_recovery_the_same_request_gets_no_call(hermes_server: Server) -> None:
    client = client_for(
        hermes_server, [get_weather], tool_choice="auto", recover=False, max_retries=0
    )

    with pytest.raises(ToolCallFailed) as excinfo:
        client.call(WEATHER)

    [attempt] = excinfo.value.attempts
    assert attempt.error_kinds == ["no_tool_call"]
    assert attempt.parser_miss is False
    assert '"get_weather"' in (attempt.raw_message.get("content") or "")


def test_stream_surfaces_the_leaked_call_as_events(hermes_server: Server) -> None:
    client = client_for(hermes_server, [create_invoice], tool_choice="auto")

    events = list(client.stream(INVOICE))
    streamed_call = client.call(INVOICE, stream=True)

    text = "".join(e.text for e in events if isinstance(e, ContentDelta))
    assert '"name"' not in text  # the call is never shown as text
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [e.name for e in started] == ["create_invoice"]
    last = events[-1]
    assert isinstance(last, StreamCompleted)
    assert last.result.attempts[-1].parser_miss
    assert [e.call for e in events if isinstance(e, ToolCallValidated)] == last.result.calls
    assert last.result.call.arguments.customer_id == "CUS-000042"  # type: ignore[attr-defined]
    assert summary(last.result) == summary(streamed_call)


def test_forced_calls_do_not_depend_on_the_parser(hermes_server: Server) -> None:
    # `required` is decoded under vLLM's structural tag, whatever parser reads `auto` answers.
    result = client_for(hermes_server, DEMO_TOOLS).call(WEATHER)

    assert result.attempts[0].request.tool_choice == "required"
    assert not result.attempts[0].parser_miss
    assert result.call.arguments.model_dump() == {"city": "Hanoi", "unit": "celsius"}


def test_doctor_names_the_wrong_parser_and_the_fix(hermes_server: Server) -> None:
    report = run_doctor(hermes_server.base_url, model=MODEL)

    finding = next(f for f in report.findings if f.check == "tool-call parser")
    assert finding.status == "fail", report.findings
    assert DEMO_TOOL_CALL_PARSER in finding.fix
    assert report.exit_code == 1
    # The server left the call in the text; the SDK's parsers read it back.
    leaked = raw_auto(hermes_server, WEATHER).choices[0].message
    recovered = parse_any(leaked.content or "", MODEL, tools=["get_weather"])
    assert [call.name for call in recovered.calls] == ["get_weather"]


@pytest.fixture
def proxy_to() -> Iterator[Callable[[Server], str]]:
    """Start a proxy in front of a server; every proxy stops at the end of the test."""
    with contextlib.ExitStack() as stack:

        def start(server: Server) -> str:
            return stack.enter_context(serve_in_thread(create_app(server.base_url)))

        yield start


def test_the_proxy_gives_a_plain_openai_client_validated_calls(
    hermes_server: Server, proxy_to: Callable[[Server], str]
) -> None:
    def ask(base_url: str) -> Any:
        client = openai.OpenAI(base_url=base_url, api_key="EMPTY", max_retries=0, timeout=300)
        return client.chat.completions.with_raw_response.create(
            model=MODEL,
            messages=[{"role": "user", "content": WEATHER}],
            tools=[WEATHER_TOOL],
            temperature=0,
            max_tokens=200,
        )

    direct = ask(hermes_server.base_url).parse()
    assert not direct.choices[0].message.tool_calls

    raw = ask(proxy_to(hermes_server))
    through = raw.parse()

    [call] = through.choices[0].message.tool_calls or []
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Hanoi", "unit": "celsius"}
    assert through.choices[0].finish_reason == "tool_calls"
    assert raw.headers["x-toolcall-route"] == "call"
    assert int(raw.headers["x-toolcall-attempts"]) >= 1
