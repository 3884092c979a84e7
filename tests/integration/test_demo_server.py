"""The SDK against a real vLLM serving the CPU demo model.

The tiny model's accuracy is not the point; the wire format, strict decoding under
`required`/named, the server's parser, streaming, the retry loop and the typed errors are.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import openai
import pytest

from toolcall_sdk import (
    ContextLengthExceededError,
    ModelNotFoundError,
    ToolCallClient,
    ToolCallFailed,
)
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo import SERVED_MODEL_NAME
from toolcall_sdk_demo.tools import DEMO_TOOLS, create_invoice, get_order_status, get_weather


def client_for(server: Server, tools: list[Any], **options: Any) -> ToolCallClient:
    options.setdefault("router", "always")
    options.setdefault("max_tokens", 200)
    return ToolCallClient(base_url=server.base_url, model=SERVED_MODEL_NAME, tools=tools, **options)


def test_required_call_is_schema_valid(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS)

    result = client.call("What is the weather in Oslo in celsius?")

    assert result.called
    assert result.attempts[0].request.tool_choice == "required"
    assert result.calls, result.attempts
    assert result.calls[0].name in {"get_weather", "get_order_status", "create_invoice"}


def test_named_call_respects_the_pattern(demo_server: Server) -> None:
    client = client_for(demo_server, [get_order_status], max_retries=0)

    result = client.call("Where is my order ORD-12345?")

    request = result.attempts[0].request
    assert request.tool_choice == {"type": "function", "function": {"name": "get_order_status"}}
    order_id = result.call.arguments.order_id  # type: ignore[attr-defined]
    assert order_id.startswith("ORD-")
    assert len(order_id) == 9


def test_run_executes_the_business_function(demo_server: Server) -> None:
    client = client_for(demo_server, [get_weather])

    result = client.run("Weather in Hanoi, in fahrenheit please")

    assert result.call.executed
    assert result.call.output["unit"] in ("celsius", "fahrenheit")
    assert result.messages[-1]["role"] == "tool"


def test_streaming_gives_the_same_calls(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS)
    question = "Create an invoice for CUS-123456 of 250000 VND due 2031-05-20"

    plain = client.call(question)
    streamed = client.call(question, stream=True)

    assert [(c.name, c.raw_arguments) for c in streamed.calls] == [
        (c.name, c.raw_arguments) for c in plain.calls
    ]


def test_never_router_gets_text_with_tool_choice_none(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS, router="never")

    result = client.call("Hi! How are you?")

    assert result.called is False
    assert isinstance(result.content, str)
    assert result.calls == []


def test_llm_router_runs_against_the_real_server(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS, router="llm")

    result = client.call("What is the weather in Paris in celsius?")

    assert result.route.router == "llm"
    assert isinstance(result.route.call, bool)


def test_feedback_loop_on_a_real_server(demo_server: Server) -> None:
    """A rule the model cannot know rejects its first answer; the loop must run for real."""
    client = client_for(
        demo_server,
        [create_invoice],
        max_retries=2,
        validation_context={"today": date(2999, 1, 1)},  # every date is in the past
    )

    with pytest.raises(ToolCallFailed) as excinfo:
        client.call("Invoice CUS-123456 for 100000 VND due 2031-01-15")

    attempts = excinfo.value.attempts
    assert len(attempts) == 3
    assert all(a.error_kinds == ["invalid_arguments"] for a in attempts)
    assert attempts[0].problems[0].fields[0].field == "due_date"
    # The server accepted histories that carry the rejected call and the tool feedback.
    assert attempts[2].request.message_count == 5


def test_feedback_loop_corrects_a_past_due_date(demo_server: Server) -> None:
    """The model dates a relative due date in the past; the validator's feedback fixes it."""
    client = client_for(demo_server, [create_invoice], max_retries=2)

    result = client.call("Create an invoice for CUS-123456 for 1500000 VND, due in two weeks.")

    assert len(result.attempts) == 2, [a.raw_message for a in result.attempts]
    first = result.attempts[0]
    assert first.error_kinds == ["invalid_arguments"]
    assert first.problems[0].fields[0].field == "due_date"
    assert "must not be in the past" in first.feedback[0]["content"]
    arguments = result.call.arguments
    assert arguments.due_date >= date.today()  # type: ignore[attr-defined]
    assert arguments.customer_id == "CUS-123456"  # type: ignore[attr-defined]


def test_unknown_model_is_a_typed_error(demo_server: Server) -> None:
    client = ToolCallClient(
        base_url=demo_server.base_url, model="no-such-model", tools=DEMO_TOOLS, router="always"
    )
    with pytest.raises(ModelNotFoundError, match="no-such-model"):
        client.call("Weather in Oslo?")


def test_prompt_over_max_model_len_is_a_typed_error(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS)
    with pytest.raises(ContextLengthExceededError, match="max-model-len"):
        client.call("weather " * 5000)


def test_max_tokens_over_max_model_len_is_a_typed_error(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS, max_tokens=100_000)
    with pytest.raises(ContextLengthExceededError):
        client.call("Weather in Oslo?")


def test_server_parser_handles_auto_calls(demo_server: Server) -> None:
    """With `auto`, the server's hermes parser must turn the model's tags into tool_calls."""
    raw = openai.OpenAI(base_url=demo_server.base_url, api_key="x", max_retries=0)
    response = raw.chat.completions.create(  # type: ignore[call-overload]
        model=SERVED_MODEL_NAME,
        messages=[{"role": "user", "content": "What's the weather in Paris?"}],
        tools=[t.openai_schema() for t in DEMO_TOOLS],
        tool_choice="auto",
        temperature=0,
        max_tokens=200,
    )
    message = response.choices[0].message
    assert message.tool_calls, message.content
    assert "<tool_call>" not in (message.content or "")
