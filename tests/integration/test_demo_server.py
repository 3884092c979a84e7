"""The SDK against a real vLLM serving the real demo model, Qwen2.5-Coder-0.5B-Instruct.

What each test asserts is what this model does at temperature 0 with its pinned weights (a
validated call, the value the user gave, the request the server got), or the SDK's plumbing
around whatever it does (every attempt recorded, the loop bounded), never a rate.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Literal

import openai
import pytest

from toolcall_sdk import (
    ContextLengthExceededError,
    ModelNotFoundError,
    ToolCallClient,
    ToolCallFailed,
    tool,
)
from toolcall_sdk._pipeline import ANSWER_NOW_TEXT
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo.tools import DEMO_TOOLS, create_invoice, get_order_status, get_weather

from .conftest import MODEL

TOOL_PROMPTS = [
    ("What is the weather in Oslo in celsius?", "get_weather", {"city": "Oslo"}),
    ("Where is my order ORD-12345?", "get_order_status", {"order_id": "ORD-12345"}),
    (
        "Invoice customer CUS-000042 for 1500000 VND, due 2030-12-31.",
        "create_invoice",
        {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"},
    ),
]


def client_for(server: Server, tools: list[Any], **options: Any) -> ToolCallClient:
    options.setdefault("router", "always")
    options.setdefault("max_tokens", 200)
    return ToolCallClient(base_url=server.base_url, model=MODEL, tools=tools, **options)


def test_required_call_is_validated_with_the_users_values(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS)

    result = client.call("What is the weather in Oslo in celsius?")

    assert result.called
    assert result.attempts[0].request.tool_choice == "required"
    assert len(result.attempts) == 1
    assert result.call.name == "get_weather"
    assert result.call.arguments.model_dump() == {"city": "Oslo", "unit": "celsius"}


def test_named_call_respects_the_pattern(demo_server: Server) -> None:
    client = client_for(demo_server, [get_order_status], max_retries=0)

    result = client.call("Where is my order ORD-12345?")

    request = result.attempts[0].request
    assert request.tool_choice == {"type": "function", "function": {"name": "get_order_status"}}
    assert result.call.arguments.order_id == "ORD-12345"  # type: ignore[attr-defined]


def test_run_executes_the_business_function_once(demo_server: Server) -> None:
    client = client_for(demo_server, [create_invoice])

    result = client.run("Invoice customer CUS-000042 for 1500000 VND, due 2030-12-31.")

    assert result.call.executed
    assert result.call.output == {
        "invoice_id": "INV-000042",
        "customer_id": "CUS-000042",
        "amount_vnd": 1500000,
        "due_date": "2030-12-31",
    }
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    assert len(tool_messages) == 1


def test_streaming_gives_the_same_calls(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS)
    question = "Create an invoice for CUS-123456 of 250000 VND due 2031-05-20"

    plain = client.call(question)
    streamed = client.call(question, stream=True)

    assert [(c.name, c.arguments) for c in streamed.calls] == [
        (c.name, c.arguments) for c in plain.calls
    ]
    assert plain.call.arguments.model_dump() == {
        "customer_id": "CUS-123456",
        "amount_vnd": 250000,
        "due_date": date(2031, 5, 20),
    }


def test_stream_events_end_with_the_calls_result(demo_server: Server) -> None:
    from toolcall_sdk import StreamCompleted, ToolCallStarted

    client = client_for(demo_server, [get_weather])
    events = list(client.stream("Weather in Hanoi, in fahrenheit please"))

    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [e.name for e in started] == ["get_weather"]
    assert isinstance(events[-1], StreamCompleted)
    final = events[-1].result
    assert final.call.arguments.model_dump() == {"city": "Hanoi", "unit": "fahrenheit"}


def test_the_llm_router_answers_a_no_tool_prompt_in_text(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS, router="llm")

    result = client.call("Tell me a joke about cats.")

    # The default router leaves it to the answer: offered the tools under auto, the model
    # writes a joke, not a call.
    assert result.route.answer_decides
    assert result.called is False
    assert result.calls == []
    assert [a.request.tool_choice for a in result.attempts] == ["auto"]
    assert isinstance(result.content, str)
    assert "cat" in result.content.lower()


def test_the_both_router_keeps_a_general_question_from_a_tool(demo_server: Server) -> None:
    # Offered get_weather under auto, the 0.5B answers "capital of France?" with
    # get_weather(Paris); the routing question of router="both" says no first.
    client = client_for(demo_server, DEMO_TOOLS, router="both")

    result = client.call("What is the capital of France?")

    assert result.route.router == "llm"
    assert result.called is False
    assert result.attempts == []  # no stage-2 request: a plain answer without tools
    assert isinstance(result.content, str)
    assert "Paris" in result.content


def test_the_llm_router_sends_a_tool_prompt_on(demo_server: Server) -> None:
    client = client_for(demo_server, DEMO_TOOLS, router="llm")

    result = client.call("What is the weather in Paris in celsius?")

    assert result.route.call is True
    assert result.call.arguments.model_dump() == {"city": "Paris", "unit": "celsius"}


def test_a_two_step_run_executes_once_then_ends(demo_server: Server) -> None:
    ran: list[str] = []

    @tool
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"]) -> dict[str, Any]:
        """Get the current weather for a city.

        Args:
            city: City name, e.g. Paris.
            unit: Temperature unit.
        """
        ran.append(city)
        return {"city": city, "temperature": 21, "unit": unit}

    client = client_for(demo_server, [get_weather], router="llm")
    result = client.run("What's the weather in Hanoi in celsius?", max_steps=3)

    assert ran == ["Hanoi"]  # executed exactly once
    assert len(result.steps) == 2
    assert result.steps[0].calls[0].name == "get_weather"
    assert result.steps[-1].called is False  # it ended on an answer, not on the step limit
    # After the result the 0.5B calls get_weather(Hanoi) again; the repeat does not run,
    # and asked to answer from the result it has, it does.
    assert result.messages[-2] == {"role": "user", "content": ANSWER_NOW_TEXT}
    assert isinstance(result.content, str)
    assert "21" in result.content


def test_feedback_loop_runs_for_real_and_escalates(demo_server: Server) -> None:
    """A rule the model cannot know rejects every answer; the loop must run, then escalate."""
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
    assert "must not be in the past" in attempts[0].feedback[0]["content"]
    # The server accepted histories that carry the rejected call and the tool feedback.
    assert attempts[2].request.message_count == 5


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


@pytest.mark.parametrize(("prompt", "name", "expected"), TOOL_PROMPTS)
def test_a_plain_openai_client_gets_tool_calls_under_auto(
    demo_server: Server, prompt: str, name: str, expected: dict[str, Any]
) -> None:
    """No SDK on the client: the server's Qwen2.5-Coder parser turns the model's fenced or
    bare JSON into `tool_calls` (vLLM's hermes parser leaves all of them in `content`)."""
    raw = openai.OpenAI(base_url=demo_server.base_url, api_key="x", max_retries=0)
    response = raw.chat.completions.create(  # type: ignore[call-overload]
        model=MODEL,
        messages=[{"role": "user", "content": prompt}],
        tools=[t.openai_schema() for t in DEMO_TOOLS],
        tool_choice="auto",
        temperature=0,
        max_tokens=200,
    )
    message = response.choices[0].message
    assert message.tool_calls, message.content
    [call] = message.tool_calls
    assert call.function.name == name
    arguments = json.loads(call.function.arguments)
    assert {key: arguments.get(key) for key in expected} == expected
    assert not (message.content or "").strip()
