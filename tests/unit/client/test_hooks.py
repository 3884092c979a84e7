"""Hooks: a typed event for every stage of a call, delivered to sync and async hooks."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    InvalidArgumentError,
    ServerConnectionError,
    ToolCallClient,
    ToolCallFailed,
    ToolCallResult,
)
from toolcall_sdk.events import (
    AnswerReceived,
    ArgumentsRepaired,
    AttemptFailed,
    CallFinished,
    CallsRecovered,
    CallStarted,
    ContentDelta,
    Escalated,
    FeedbackSent,
    Hook,
    HookEvent,
    RequestSent,
    RouteDecided,
    StepFinished,
    StepStarted,
    StreamCompleted,
    ToolCallValidated,
    ToolExecuted,
)
from toolcall_sdk.testing import ScriptedModel, disconnect, text, tool_call

from ..conftest import ClientFactory, Ledger

OSLO = {"city": "Oslo", "unit": "celsius"}
LEAKED = f'<tool_call>\n{{"name": "get_weather", "arguments": {json.dumps(OSLO)}}}\n</tool_call>'


# Each event's salient fields (no timings, no token counts: those are checked apart).
FIELDS: dict[type[Any], Callable[[Any], tuple[Any, ...]]] = {
    CallStarted: lambda e: (e.operation, e.model, e.tools, e.streamed),
    StepStarted: lambda e: (e.step,),
    RouteDecided: lambda e: (e.step, e.call, e.score, e.router, e.tools),
    RequestSent: lambda e: (
        e.step,
        e.attempt,
        e.request.stage,
        e.request.tool_choice,
        e.request.tools,
        e.request.message_count,
        e.streamed,
    ),
    AnswerReceived: lambda e: (e.step, e.attempt, e.stage, e.finish_reason, e.tool_calls),
    CallsRecovered: lambda e: (e.step, e.attempt, e.tools),
    ArgumentsRepaired: lambda e: (e.step, e.attempt, e.repairs),
    AttemptFailed: lambda e: (e.attempt.number, e.retrying, e.attempt.error_kinds),
    FeedbackSent: lambda e: (e.step, e.attempt, e.messages, e.problem_kinds),
    ToolExecuted: lambda e: (e.step, e.attempt, e.name, e.status),
    ToolCallValidated: lambda e: (e.attempt, e.call.name),
    Escalated: lambda e: (e.step, e.attempts, e.problem_kinds),
    StepFinished: lambda e: (e.step, e.called, e.tools, e.attempts),
    CallFinished: lambda e: (
        e.operation,
        e.outcome,
        e.error_type,
        e.attempts,
        e.parser_misses,
        e.repairs,
    ),
}


def shape(event: HookEvent) -> tuple[Any, ...]:
    return (type(event).__name__, *FIELDS[type(event)](event))


class Recorder:
    """A plain hook: records every event it is given."""

    def __init__(self) -> None:
        self.events: list[HookEvent] = []

    def __call__(self, event: HookEvent) -> None:
        self.events.append(event)

    def shapes(self) -> list[tuple[Any, ...]]:
        return [shape(event) for event in self.events]

    def of(self, kind: type[Any]) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]


NAMED = {"type": "function", "function": {"name": "get_weather"}}


def test_a_feedback_round_is_told_stage_by_stage(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", OSLO)]
    )
    hook = Recorder()
    client = make_client(model, [get_weather], hooks=[hook])

    result = client.run("Weather in Oslo?")

    assert hook.shapes() == [
        ("CallStarted", "run", "test-model", ("get_weather",), False),
        ("StepStarted", 1),
        ("RouteDecided", 1, True, 1.0, "always", ()),
        ("RequestSent", 1, 1, "call", NAMED, ("get_weather",), 1, False),
        ("AnswerReceived", 1, 1, "call", "tool_calls", 1),
        ("AttemptFailed", 1, True, ["invalid_arguments"]),
        ("FeedbackSent", 1, 1, 1, ("invalid_arguments",)),
        ("RequestSent", 1, 2, "call", NAMED, ("get_weather",), 3, False),
        ("AnswerReceived", 1, 2, "call", "tool_calls", 1),
        ("ToolExecuted", 1, 2, "get_weather", "ok"),
        ("ToolCallValidated", 2, "get_weather"),
        ("StepFinished", 1, True, ("get_weather",), 2),
        ("CallFinished", "run", "ok", None, 2, 0, 0),
    ]
    answers = hook.of(AnswerReceived)
    assert [answer.usage for answer in answers] == [a.usage for a in result.attempts]
    assert all(answer.latency_s >= 0 for answer in answers)
    [executed] = hook.of(ToolExecuted)
    assert executed.call is result.call  # the result's own record, output included
    assert executed.call.output == "18 degrees celsius in Oslo"
    assert executed.started_at > 0
    assert executed.duration_s >= 0
    [finished] = hook.of(CallFinished)
    assert finished.usage == result.usage
    assert ledger.count("get_weather") == 1
    # The feedback went out in the request that followed FeedbackSent.
    assert "city: Field required" in model.calls_for("call")[1].messages[-1]["content"]


def test_events_carry_no_message_text_unless_a_hook_asks(
    make_client: ClientFactory, get_weather: Any
) -> None:
    class Capturing(Recorder):
        capture_content = True

    plain, capturing = Recorder(), Capturing()
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    make_client(model, [get_weather], hooks=[plain]).call("Weather in Oslo?")
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    make_client(model, [get_weather], hooks=[capturing]).call("Weather in Oslo?")

    assert [sent.messages for sent in plain.of(RequestSent)] == [None]
    assert [answer.message for answer in plain.of(AnswerReceived)] == [None]
    assert "Oslo" not in repr(plain.of(RequestSent) + plain.of(AnswerReceived))
    [sent] = capturing.of(RequestSent)
    assert sent.messages == [{"role": "user", "content": "Weather in Oslo?"}]
    [answer] = capturing.of(AnswerReceived)
    assert answer.message is not None
    assert json.loads(answer.message["tool_calls"][0]["function"]["arguments"]) == OSLO


def test_route_request_recovery_and_repairs_are_told(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel(
        [text(LEAKED), tool_call("get_weather", json.dumps(json.dumps(OSLO)))],
        route_answer=True,
    )
    hook = Recorder()
    client = make_client(model, [get_weather], hooks=[hook], router="probe")

    client.call("Weather in Oslo?")
    client.call("Weather in Oslo?")

    shapes = hook.shapes()
    first, second = shapes[: len(shapes) // 2], shapes[len(shapes) // 2 :]
    assert first[1][:4] == ("RequestSent", 1, 0, "route")
    assert first[2] == ("AnswerReceived", 1, 0, "route", "stop", 0)
    assert first[3][:3] == ("RouteDecided", 1, True)
    assert ("AnswerReceived", 1, 1, "call", "stop", 0) in first
    assert ("CallsRecovered", 1, 1, ("get_weather",)) in first
    assert first[-1] == ("CallFinished", "call", "ok", None, 1, 1, 0)
    assert ("ArgumentsRepaired", 1, 1, ("get_weather:json_string_arguments",)) in second
    assert second[-1] == ("CallFinished", "call", "ok", None, 1, 0, 1)


def test_exhausted_retries_are_escalated(make_client: ClientFactory, get_weather: Any) -> None:
    bad = tool_call("get_weather", {"town": "Oslo"})
    hook = Recorder()
    client = make_client(ScriptedModel([bad, bad]), [get_weather], hooks=[hook], max_retries=1)

    with pytest.raises(ToolCallFailed):
        client.call("Weather in Oslo?")

    assert hook.shapes()[-3:] == [
        ("AttemptFailed", 2, False, ["invalid_arguments"]),
        ("Escalated", 1, 2, ("invalid_arguments",)),
        ("CallFinished", "call", "failed", "ToolCallFailed", 2, 0, 0),
    ]
    assert not hook.of(FeedbackSent)[1:]  # feedback only before the second attempt

    fallback = Recorder()
    client = make_client(
        ScriptedModel([bad, bad]),
        [get_weather],
        hooks=[fallback],
        max_retries=1,
        on_escalate=lambda failed: ToolCallResult(called=False, attempts=failed.attempts),
    )
    client.call("Weather in Oslo?")
    assert fallback.shapes()[-1][:3] == ("CallFinished", "call", "escalated")


def test_a_transport_failure_ends_the_call_with_its_error(
    make_client: ClientFactory, get_weather: Any
) -> None:
    hook = Recorder()
    model = ScriptedModel([disconnect()] * 4)
    client = make_client(model, [get_weather], hooks=[hook])

    with pytest.raises(ServerConnectionError):
        client.call("Weather in Oslo?")

    assert hook.shapes()[-1] == (
        "CallFinished",
        "call",
        "error",
        "ServerConnectionError",
        0,
        0,
        0,
    )
    assert not hook.of(AnswerReceived)


def test_a_hook_that_raises_is_logged_and_the_call_goes_on(
    make_client: ClientFactory,
    get_weather: Any,
    ledger: Ledger,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(event: HookEvent) -> None:
        raise RuntimeError("hook bug")

    class BrokenStart:
        def start_call(self, event: CallStarted) -> Hook | None:
            raise RuntimeError("start bug")

    after = Recorder()
    model = ScriptedModel(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", OSLO)]
    )
    client = make_client(model, [get_weather], hooks=[broken, BrokenStart(), after])

    with caplog.at_level(logging.WARNING, logger="toolcall_sdk"):
        result = client.run("Weather in Oslo?")

    assert result.call.output == "18 degrees celsius in Oslo"
    assert ledger.count("get_weather") == 1
    assert len(after.events) == 13  # the hooks after a broken one hear everything
    failures = [r for r in caplog.records if "raised on" in r.getMessage()]
    assert (
        failures[0]
        .getMessage()
        .endswith("<locals>.BrokenStart raised on CallStarted; the call goes on")
    )
    assert failures[1].getMessage().endswith("raised on CallStarted; the call goes on")
    assert "test_a_hook_that_raises_is_logged_and_the_call_goes_on.<locals>.broken" in (
        failures[1].getMessage()
    )
    assert len(failures) == 1 + 13
    assert all(record.exc_info is not None for record in failures)


def test_async_hooks_are_awaited_in_order(make_client: ClientFactory, get_weather: Any) -> None:
    seen: list[str] = []

    async def slow(event: HookEvent) -> None:
        await asyncio.sleep(0)
        seen.append(type(event).__name__)

    def fast(event: HookEvent) -> None:
        seen.append("fast")

    model = ScriptedModel([tool_call("get_weather", OSLO)])
    make_client(model, [get_weather], hooks=[slow, fast]).call("Weather in Oslo?")

    assert seen == [
        name
        for kind in (
            "CallStarted",
            "RouteDecided",
            "RequestSent",
            "AnswerReceived",
            "ToolCallValidated",
            "CallFinished",
        )
        for name in (kind, "fast")
    ]


class PerCall:
    """A hook with per-call state: each call gets its own list."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def start_call(self, event: CallStarted) -> Hook | None:
        if event.operation == "stream":
            return None  # skips streams
        mine: list[str] = [event.operation]
        self.calls.append(mine)
        return lambda e: mine.append(type(e).__name__)


def test_a_hook_object_gets_a_receiver_per_call(
    make_client: ClientFactory, get_weather: Any
) -> None:
    hook = PerCall()
    model = ScriptedModel([tool_call("get_weather", OSLO)] * 3)
    client = make_client(model, [get_weather], hooks=[hook])

    client.call("Weather in Oslo?")
    list(client.stream("Weather in Oslo?"))
    client.run("Weather in Oslo?")

    assert [calls[0] for calls in hook.calls] == ["call", "run"]
    assert hook.calls[0][1:] == [
        "RouteDecided",
        "RequestSent",
        "AnswerReceived",
        "ToolCallValidated",
        "CallFinished",
    ]
    assert hook.calls[1][-1] == "CallFinished"


def test_hooks_add_headers_but_not_the_stage(make_client: ClientFactory, get_weather: Any) -> None:
    def tag(event: HookEvent) -> None:
        if isinstance(event, RequestSent):
            event.headers["x-request-tag"] = f"attempt-{event.attempt}"
            event.headers["x-toolcall-stage"] = "forged"

    model = ScriptedModel(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", OSLO)]
    )
    make_client(model, [get_weather], hooks=[tag]).call("Weather in Oslo?")

    sent = model.calls_for("call")
    assert [request.headers["x-request-tag"] for request in sent] == ["attempt-1", "attempt-2"]


def test_stream_yields_its_own_events_only(make_client: ClientFactory, get_weather: Any) -> None:
    hook = Recorder()
    model = ScriptedModel(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", OSLO)]
    )
    watched = list(make_client(model, [get_weather], hooks=[hook]).stream("Weather in Oslo?"))
    model = ScriptedModel(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", OSLO)]
    )
    plain = list(make_client(model, [get_weather]).stream("Weather in Oslo?"))

    assert [type(event) for event in watched] == [type(event) for event in plain]
    assert [s[0] for s in hook.shapes()] == [
        "CallStarted",
        "RouteDecided",
        "RequestSent",
        "AnswerReceived",
        "AttemptFailed",
        "FeedbackSent",
        "RequestSent",
        "AnswerReceived",
        "ToolCallValidated",
        "CallFinished",
    ]
    assert hook.shapes()[0][-1] is True  # streamed
    assert all(sent.streamed for sent in hook.of(RequestSent))
    assert not [
        event for event in hook.events if isinstance(event, (ContentDelta, StreamCompleted))
    ]


def test_a_stream_left_early_is_cancelled(
    make_sync_client: ClientFactory, get_weather: Any
) -> None:
    hook = Recorder()
    model = ScriptedModel([text("a long answer")])
    client = make_sync_client(model, [get_weather], hooks=[hook], router="never")

    events = client.stream("Hello")
    next(events)
    events.close()  # type: ignore[attr-defined]

    assert hook.shapes()[-1] == ("CallFinished", "stream", "cancelled", None, 0, 0, 0)
    assert client.metrics.outcomes == {"cancelled": 1}


async def test_an_async_stream_left_early_is_cancelled(
    make_async_client: Callable[..., AsyncToolCallClient], get_weather: Any
) -> None:
    hook = Recorder()
    model = ScriptedModel([text("a long answer")])
    client = make_async_client(model, [get_weather], hooks=[hook], router="never")

    events = client.stream("Hello")
    await anext(events)
    await events.aclose()  # type: ignore[attr-defined]

    assert hook.shapes()[-1] == ("CallFinished", "stream", "cancelled", None, 0, 0, 0)
    assert client.metrics.outcomes == {"cancelled": 1}
    await client.close()


@pytest.mark.parametrize("hooks", [print, ["not a hook"], "print"])
def test_hooks_must_be_a_list_of_hooks(get_weather: Any, hooks: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="hook"):
        ToolCallClient(base_url="http://localhost:1/v1", model="m", hooks=hooks)
