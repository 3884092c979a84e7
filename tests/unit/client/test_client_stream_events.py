"""`client.stream()`: typed events for UIs, and a final result equal to `call()`'s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    AttemptFailed,
    ContentDelta,
    MalformedResponseError,
    RetryPolicy,
    StreamCompleted,
    ToolArgumentsDelta,
    ToolCallClient,
    ToolCallEvent,
    ToolCallFailed,
    ToolCallResult,
    ToolCallStarted,
    ToolCallValidated,
)
from toolcall_sdk.testing import (
    ScriptedModel,
    http_error,
    malformed,
    parallel,
    text,
    tool_call,
)

from ..conftest import ClientFactory

OSLO = {"city": "Oslo", "unit": "celsius"}
HANOI = {"city": "Hanoi", "unit": "fahrenheit"}
CALL_TEXT = f'<tool_call>\n{{"name": "get_weather", "arguments": {json.dumps(OSLO)}}}\n</tool_call>'
# Text on both sides of the leaked call, and a `<` that never becomes a tag.
BEFORE = "Since 1 < 2, checking.\n"
AFTER = "\nDone <3"
LEAKED = BEFORE + CALL_TEXT + AFTER

AsyncFactory = Callable[..., AsyncToolCallClient]


def kinds(events: list[ToolCallEvent]) -> list[str]:
    """Event class names, runs of deltas collapsed to one entry."""
    names: list[str] = []
    for event in events:
        name = type(event).__name__
        if name.endswith("Delta") and names and names[-1] == name:
            continue
        names.append(name)
    return names


def joined_text(events: list[ToolCallEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


def joined_arguments(events: list[ToolCallEvent], index: int) -> str:
    return "".join(e.text for e in events if isinstance(e, ToolArgumentsDelta) and e.index == index)


def final(events: list[ToolCallEvent]) -> ToolCallResult:
    last = events[-1]
    assert isinstance(last, StreamCompleted)
    return last.result


def without_timing(result: ToolCallResult) -> ToolCallResult:
    for attempt in result.attempts:
        attempt.latency_s = 0.0
    return result


def test_plain_answer_streams_its_text(make_client: ClientFactory, get_weather: Any) -> None:
    # The user asked for text: markup in it is theirs, passed through, never read as a call.
    answer = "Hello! Write <tool_call> to call a tool."
    model = ScriptedModel([text(answer)], chunk_size=3)
    client = make_client(model, [get_weather], router="never")

    events = list(client.stream("Hi"))

    assert kinds(events) == ["ContentDelta", "StreamCompleted"]
    assert joined_text(events) == answer
    assert len([e for e in events if isinstance(e, ContentDelta)]) == len(answer) // 3 + 1
    assert {e.attempt for e in events if isinstance(e, ContentDelta)} == {0}
    result = final(events)
    assert result.called is False
    assert result.content == answer
    [request] = model.chat_requests
    assert request.stage == "answer"
    assert request.stream is True
    assert (request.tools, request.tool_choice) == (None, None)


def test_one_call(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)], chunk_size=4)
    client = make_client(model, [get_weather])

    events = list(client.stream("Weather in Oslo?"))

    assert kinds(events) == [
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ToolCallValidated",
        "StreamCompleted",
    ]
    assert events[0] == ToolCallStarted(index=0, id="call_1", name="get_weather", attempt=1)
    assert joined_arguments(events, 0) == json.dumps(OSLO)
    deltas = [e for e in events if isinstance(e, ToolArgumentsDelta)]
    assert len(deltas) == -(-len(json.dumps(OSLO)) // 4)  # one per streamed chunk
    validated = events[-2]
    assert isinstance(validated, ToolCallValidated)
    assert validated.attempt == 1
    assert validated.call.arguments.model_dump() == OSLO
    assert final(events).calls == [validated.call]
    [request] = model.calls_for("call")
    assert request.stream is True
    assert request.json is not None
    assert request.json["stream_options"] == {"include_usage": True}
    assert final(events).usage.total_tokens > 0


def test_parallel_calls_with_text(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel(
        [
            parallel(
                text("Checking both."),
                tool_call("get_weather", OSLO),
                tool_call("get_weather", HANOI),
            )
        ],
        chunk_size=5,
    )
    client = make_client(model, [get_weather])

    events = list(client.stream("Oslo and Hanoi?"))

    assert kinds(events) == [
        "ContentDelta",
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ToolCallValidated",
        "ToolCallValidated",
        "StreamCompleted",
    ]
    assert joined_text(events) == "Checking both."
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.index, e.id, e.name) for e in started] == [
        (0, "call_1", "get_weather"),
        (1, "call_2", "get_weather"),
    ]
    assert joined_arguments(events, 0) == json.dumps(OSLO)
    assert joined_arguments(events, 1) == json.dumps(HANOI)
    validated = [e.call for e in events if isinstance(e, ToolCallValidated)]
    assert [c.arguments.city for c in validated] == ["Oslo", "Hanoi"]  # type: ignore[attr-defined]
    assert final(events).content == "Checking both."


def test_failed_attempt_then_valid(make_client: ClientFactory, create_invoice: Any) -> None:
    good = {"customer_id": "CUS-123456", "amount_vnd": 150000, "due_date": "2026-07-01"}
    model = ScriptedModel(
        [
            tool_call("create_invoice", {**good, "customer_id": "CUS-12"}),
            tool_call("create_invoice", good),
        ]
    )
    client = make_client(model, [create_invoice])

    events = list(client.stream("Invoice CUS-123456"))

    assert kinds(events) == [
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "AttemptFailed",
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ToolCallValidated",
        "StreamCompleted",
    ]
    failed = next(e for e in events if isinstance(e, AttemptFailed))
    assert failed.retrying is True
    assert failed.attempt.number == 1
    assert failed.attempt.error_kinds == ["invalid_arguments"]
    # The feedback the event shows is exactly what the server received next.
    retry = model.calls_for("call")[1]
    assert retry.messages[-1] == failed.attempt.feedback[0]
    assert failed.attempt.feedback[0]["tool_call_id"] == "call_1"
    assert "customer_id" in failed.attempt.feedback[0]["content"]
    assert "CUS-12" in failed.attempt.feedback[0]["content"]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.id, e.attempt) for e in started] == [("call_1", 1), ("call_2", 2)]
    assert final(events).attempts[0] is failed.attempt


def test_exhaustion_raises_after_the_last_attempt_failed(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"unit": "celsius"})] * 2)
    client = make_client(model, [get_weather], max_retries=1)
    events: list[ToolCallEvent] = []

    with pytest.raises(ToolCallFailed) as excinfo:
        events.extend(client.stream("Weather?"))

    failures = [e for e in events if isinstance(e, AttemptFailed)]
    assert [f.retrying for f in failures] == [True, False]
    assert [f.attempt for f in failures] == excinfo.value.attempts
    assert isinstance(events[-1], AttemptFailed)
    assert len(model.calls_for("call")) == 2


def test_escalation_result_completes_the_stream(
    make_client: ClientFactory, get_weather: Any
) -> None:
    fallback = ToolCallResult(called=False, content="A person will answer.")
    model = ScriptedModel([tool_call("get_weather", {})])
    client = make_client(model, [get_weather], max_retries=0, on_escalate=lambda _: fallback)

    events = list(client.stream("Weather?"))

    assert kinds(events)[-2:] == ["AttemptFailed", "StreamCompleted"]
    assert final(events) is fallback


@pytest.mark.parametrize("chunk_size", range(1, 14))
def test_leaked_call_split_anywhere_never_leaks_markup(
    make_client: ClientFactory, get_weather: Any, chunk_size: int
) -> None:
    # Sizes 1..13 cut `<tool_call>` and `</tool_call>` at every character boundary.
    model = ScriptedModel([text(LEAKED)], chunk_size=chunk_size)
    client = make_client(model, [get_weather])

    events = list(client.stream("Weather in Oslo?"))

    assert joined_text(events) == BEFORE + AFTER  # exactly: no partial tag, nothing lost
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert started == [ToolCallStarted(index=0, id="r00100000", name="get_weather", attempt=1)]
    assert json.loads(joined_arguments(events, 0)) == OSLO
    result = final(events)
    assert result.attempts[0].parser_miss is True
    validated = [e.call for e in events if isinstance(e, ToolCallValidated)]
    assert validated == result.calls
    assert result.call.id == "r00100000"
    assert result.call.arguments.model_dump() == OSLO


QWEN25_CODER_CALL = (
    f'```json\n{{\n  "name": "get_weather",\n  "arguments": {json.dumps(OSLO, indent=2)}\n}}\n```'
)


@pytest.mark.parametrize("chunk_size", [1, 3, 7])
@pytest.mark.parametrize(
    "leaked", [QWEN25_CODER_CALL, json.dumps({"name": "get_weather", "arguments": OSLO})]
)
def test_qwen25_coder_call_objects_stream_as_a_call_never_as_text(
    get_weather: Any, chunk_size: int, leaked: str
) -> None:
    # Qwen2.5-Coder writes no tags: the call object is read for the offered tools only, so
    # the client must hand the request's tools to its stream reader.
    model = ScriptedModel([text(leaked)], chunk_size=chunk_size)
    client = ToolCallClient(
        base_url=model.base_url,
        model="Qwen/Qwen2.5-Coder-0.5B-Instruct",
        tools=[get_weather],
        router="always",
        tool_choice="auto",
        http_client=model.http_client(),
    )

    events = list(client.stream("Weather in Oslo?"))

    assert joined_text(events) == ""
    assert [e.name for e in events if isinstance(e, ToolCallStarted)] == ["get_weather"]
    result = final(events)
    assert result.attempts[0].parser_miss is True
    assert result.call.arguments.model_dump() == OSLO


def test_leaked_call_over_real_sse(get_weather: Any) -> None:
    model = ScriptedModel([text(LEAKED)], chunk_size=2)
    with model.serve() as base_url:
        client = ToolCallClient(base_url=base_url, model="m", tools=[get_weather], router="always")
        events = list(client.stream("Weather in Oslo?"))
        client.close()

    assert joined_text(events) == BEFORE + AFTER
    assert kinds(events) == [
        "ContentDelta",
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ContentDelta",
        "ToolCallValidated",
        "StreamCompleted",
    ]
    assert final(events).attempts[0].parser_miss


def test_recover_false_streams_the_markup_as_text(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(LEAKED)], chunk_size=1)
    client = make_client(model, [get_weather], recover=False, max_retries=0)
    events: list[ToolCallEvent] = []

    with pytest.raises(ToolCallFailed) as excinfo:
        events.extend(client.stream("Weather in Oslo?"))

    assert joined_text(events) == LEAKED
    assert not any(isinstance(e, ToolCallStarted | ToolCallValidated) for e in events)
    [attempt] = excinfo.value.attempts
    assert attempt.parser_miss is False
    assert attempt.error_kinds == ["no_tool_call"]


def _scripts() -> list[list[Any]]:
    good = {"city": "Oslo", "unit": "celsius"}
    return [
        [tool_call("get_weather", good)],
        [parallel(text("Both."), tool_call("get_weather", good), tool_call("get_weather", HANOI))],
        [tool_call("get_weather", {"unit": "kelvin"}), text(LEAKED)],
        [
            text("no call"),
            tool_call("get_weather", '{"city": "Oslo"', finish_reason="stop"),
        ],  # repaired: closed
    ]


@pytest.mark.parametrize("script", range(4))
@pytest.mark.parametrize("tool_choice", ["required", "auto"])
def test_final_result_equals_call(
    make_client: ClientFactory, get_weather: Any, script: int, tool_choice: str
) -> None:
    plain_model = ScriptedModel(_scripts()[script])
    plain = make_client(plain_model, [get_weather], tool_choice=tool_choice).call("Weather?")
    streamed_model = ScriptedModel(_scripts()[script], chunk_size=3)
    client = make_client(streamed_model, [get_weather], tool_choice=tool_choice)

    events = list(client.stream("Weather?"))

    assert without_timing(final(events)) == without_timing(plain)
    sent = [r.json for r in streamed_model.chat_requests]
    assert [
        {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        for body in sent
        if body
    ] == [r.json for r in plain_model.chat_requests]


def test_llm_router_is_asked_without_streaming(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], router="probe")

    events = list(client.stream("Weather in Oslo?"))

    assert final(events).route.router == "llm"
    assert [(r.stage, r.stream) for r in model.chat_requests] == [("route", False), ("call", True)]


def test_transport_error_before_the_stream_is_retried(
    make_client: ClientFactory, get_weather: Any, sleeps: list[float]
) -> None:
    model = ScriptedModel([http_error(503), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    events = list(client.stream("Weather in Oslo?"))

    assert sleeps == [0.5]
    assert kinds(events) == [
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ToolCallValidated",
        "StreamCompleted",
    ]


def test_stopping_early_sends_nothing_more(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", {}), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    for event in client.stream("Weather?"):
        if isinstance(event, AttemptFailed):
            break

    assert len(model.calls_for("call")) == 1
    assert model.remaining == 1


async def test_async_stream_over_real_sse(get_weather: Any) -> None:
    script = [tool_call("get_weather", {"unit": "celsius"}), text(LEAKED)]
    plain_model = ScriptedModel(list(script))
    plain = ToolCallClient(
        base_url=plain_model.base_url,
        model="m",
        tools=[get_weather],
        router="always",
        http_client=plain_model.http_client(),
    ).call("Weather?")
    model = ScriptedModel(list(script), chunk_size=1)
    with model.serve() as base_url:
        client = AsyncToolCallClient(
            base_url=base_url,
            model="m",
            tools=[get_weather],
            router="always",
            retry=RetryPolicy(attempts=1),
        )
        events = [event async for event in client.stream("Weather?")]
        await client.close()

    assert kinds(events) == [
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "AttemptFailed",
        "ContentDelta",
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ContentDelta",
        "ToolCallValidated",
        "StreamCompleted",
    ]
    assert joined_text(events) == BEFORE + AFTER
    assert [e.attempt for e in events if isinstance(e, ToolCallStarted)] == [1, 2]
    assert without_timing(final(events)) == without_timing(plain)


async def test_async_stream_in_process(make_async_client: AsyncFactory, get_weather: Any) -> None:
    model = ScriptedModel([text(LEAKED)], chunk_size=1)
    client = make_async_client(model, [get_weather])

    events = [event async for event in client.stream("Weather in Oslo?")]

    assert joined_text(events) == BEFORE + AFTER
    assert final(events).call.id == "r00100000"


def test_the_example_shows_the_leaked_call_as_events() -> None:
    path = Path(__file__).parents[3] / "examples" / "stream_events.py"
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_BASE_URL"}
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, check=True, env=env
    ).stdout

    assert "<tool" not in out
    assert "[attempt 1: create_invoice, id r00100000] {" in out
    assert "[attempt 1 rejected: ['due_date: must not be in the past']]" in out
    assert "[done after 2 attempt(s); parser_miss in [1, 2]]" in out


@pytest.mark.parametrize(
    "markup",
    [
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}]',
        "<function=get_weather><parameter=city>Oslo</parameter><parameter=unit>celsius"
        "</parameter></function>",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}'
        "</tool_call>",
    ],
    ids=["mistral", "qwen3-xml", "hermes"],
)
@pytest.mark.parametrize("chunk_size", [1, 2, 5])
def test_every_leaked_format_streams_as_a_call(
    make_client: ClientFactory, get_weather: Any, markup: str, chunk_size: int
) -> None:
    model = ScriptedModel([text("Checking. " + markup)], chunk_size=chunk_size)
    client = make_client(model, [get_weather])

    events = list(client.stream("Weather in Oslo?"))

    assert joined_text(events) == "Checking. "
    assert [(e.id, e.name) for e in events if isinstance(e, ToolCallStarted)] == [
        ("r00100000", "get_weather")
    ]
    assert final(events).call.arguments.model_dump() == OSLO
    assert final(events).attempts[0].parser_miss


def test_unreadable_stream_is_a_typed_error(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([malformed("data: {not json\n\n")])
    client = make_client(model, [get_weather])

    with pytest.raises(MalformedResponseError):
        list(client.stream("Weather in Oslo?"))

    assert len(model.calls_for("call")) == 1  # not resent


def _chunk(tool_call: dict[str, Any]) -> dict[str, Any]:
    # A chunk as the server sends it: the client reads the JSON, not openai's models.
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"tool_calls": [tool_call]}}],
    }


def test_call_started_carries_the_id_sent_before_the_name() -> None:
    # Some servers send a call's id, its name and its arguments in separate fragments: the
    # announced call must carry the same id and arguments as the final message.
    from toolcall_sdk._streaming import AnswerEvents

    answer = AnswerEvents(attempt=1, content_format=None)
    events = [
        *answer.add(_chunk({"index": 0, "id": "abc", "type": "function"})),
        *answer.add(_chunk({"index": 0, "function": {"arguments": '{"city": '}})),
        *answer.add(_chunk({"index": 0, "function": {"name": "get_weather"}})),
        *answer.add(_chunk({"index": 0, "function": {"arguments": '"Oslo"}'}})),
        *answer.close(),
    ]
    assert events == [
        ToolCallStarted(0, "abc", "get_weather", 1),
        ToolArgumentsDelta(0, '{"city": ', 1),
        ToolArgumentsDelta(0, '"Oslo"}', 1),
    ]
    assert answer.accumulator.message()["tool_calls"][0]["id"] == "abc"


def test_a_call_whose_name_never_came_is_announced_at_the_end() -> None:
    from toolcall_sdk._streaming import AnswerEvents

    answer = AnswerEvents(attempt=1, content_format=None)
    assert answer.add(_chunk({"index": 0, "id": "x1", "function": {"arguments": "{}"}})) == []
    assert answer.close() == [ToolCallStarted(0, "x1", "", 1), ToolArgumentsDelta(0, "{}", 1)]
