"""`flow()` as a table: canned answers in, the effects it yields and what it ends with out.

One row per rule of `_pipeline._step_flow` (retry, feedback, approval, exactly-once, the loop
guard). Each row scripts everything the pipeline is given (the route verdict, each answer,
each business function's outcome) and names every effect it must yield, in order:
`route` (a router consulted), `call1`, `call2`... (stage-2 requests by attempt number),
`run f(...)` (the business functions of one answer), and the names of the decided events.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import pytest

from toolcall_sdk import ToolCall, ToolCallFailed, ToolCallResult, Usage, tool
from toolcall_sdk._loop_guard import LoopGuard, Seen
from toolcall_sdk._pipeline import (
    Answer,
    ChatRequest,
    Config,
    Effect,
    ExecuteMany,
    LoopStop,
    Notify,
    Outcome,
    ResumePoint,
    RouteQuery,
    StepControl,
    StepPaused,
    flow,
)
from toolcall_sdk._results import Attempt, RequestSummary
from toolcall_sdk.routing import RouteDecision, resolve_router


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


@tool(requires_approval=True)
def book_trip(city: str) -> str:
    """Book a trip to a city."""
    return f"booked {city}"


TOOLS = {"get_weather": get_weather, "book_trip": book_trip}
USER = [{"role": "user", "content": "Weather in Oslo? Then book it."}]


def _answer(*calls: tuple[str, Any], content: str | None = None) -> Answer:
    """An assistant answer with these calls (`(name, arguments)`: a dict or raw text)."""
    tool_calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls, start=1)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    finish = "tool_calls" if tool_calls else "stop"
    return Answer(message=message, finish_reason=finish, usage=Usage(10, 5), latency_s=0.0)


OSLO = ("get_weather", {"city": "Oslo"})
HUE = ("get_weather", {"city": "Hue"})
BOOK = ("book_trip", {"city": "Oslo"})
SUNNY = Outcome(output="sunny")
RETRY = Outcome(retry_message="ask for the city in English")


@dataclass
class Row:
    id: str
    replies: list[Any]  # what each non-Notify effect is answered with, in order
    effects: list[str]
    raises: type[BaseException] | None = None
    max_retries: int = 2
    execute: bool = True
    control: Callable[[], StepControl] = StepControl
    # Checks on the result (or the exception) and the requests sent.
    check: Callable[[Any, list[ChatRequest]], None] = field(default=lambda _r, _q: None)


def _label(effect: Effect) -> str:
    match effect:
        case RouteQuery():
            return "route"
        case ChatRequest(stage="call", attempt=number):
            return f"call{number}"
        case ChatRequest(stage=stage):
            return stage
        case ExecuteMany(calls=calls):
            runs = (f"{e.tool.name}({e.arguments.model_dump_json()})" for e in calls)
            return "run " + ", ".join(runs)
        case Notify(event=event):
            return type(event).__name__
    raise AssertionError(effect)


def _drive(steps: Generator[Effect, Any, ToolCallResult], replies: list[Any]) -> Any:
    """Answer each effect with the next reply (None for `Notify`); return the labels seen,
    the requests, and the result or the exception it ended with."""
    labels: list[str] = []
    requests: list[ChatRequest] = []
    queue = list(replies)
    try:
        effect = next(steps)
        while True:
            labels.append(_label(effect))
            if isinstance(effect, ChatRequest):
                requests.append(effect)
            effect = steps.send(None if isinstance(effect, Notify) else queue.pop(0))
    except StopIteration as done:
        ended: Any = done.value
    except (ToolCallFailed, StepPaused, LoopStop) as exc:
        ended = exc
    assert not queue, f"replies left over: {queue}"
    return labels, requests, ended


def _config(max_retries: int) -> Config:
    return Config(
        model="m",
        tools=TOOLS,
        schemas={name: t.openai_schema() for name, t in TOOLS.items()},
        router=resolve_router("always"),
        max_retries=max_retries,
        temperature=0.0,
        max_tokens=None,
        parallel_tool_calls=None,
        extra_body=None,
        validation_context=None,
    )


def _last_tool_message(requests: list[ChatRequest]) -> dict[str, Any]:
    message: dict[str, Any] = requests[-1].params["messages"][-1]
    assert message["role"] == "tool"
    return message


def _guard_that_saw(call: tuple[str, Any], count: int, *, limit: int = 3) -> LoopGuard:
    name, args = call
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"))
    return LoopGuard(limit, [Seen(name, canonical, count, "sunny")])


def _paused_at(approvals: dict[str, bool], *calls: tuple[str, Any]) -> StepControl:
    """A step taken up again after a pause: attempt 1 answered `calls`."""
    answer = _answer(*calls)
    attempt = Attempt(
        number=1,
        request=RequestSummary(
            "call", "required", ("book_trip",), temperature=0.0, message_count=1
        ),
        raw_message=answer.message,
        finish_reason=answer.finish_reason,
        usage=answer.usage,
    )
    resume = ResumePoint(
        route=RouteDecision(call=True, router="always"),
        offered=tuple(name for name, _ in calls),
        attempt=attempt,
        message=answer.message,
        approvals=approvals,
    )
    return StepControl(resume=resume)


# --- the checks of the rows -----------------------------------------------------------------


def _problems(*kinds: list[str]) -> Callable[[Any, list[ChatRequest]], None]:
    def check(ended: Any, _requests: list[ChatRequest]) -> None:
        assert [a.error_kinds for a in ended.attempts] == list(kinds)

    return check


def _feedback_says(*words: str) -> Callable[[Any, list[ChatRequest]], None]:
    def check(_ended: Any, requests: list[ChatRequest]) -> None:
        content = _last_tool_message(requests)["content"]
        for word in words:
            assert word in content, (word, content)

    return check


def _result_calls(**expected: Any) -> Callable[[Any, list[ChatRequest]], None]:
    def check(ended: Any, _requests: list[ChatRequest]) -> None:
        assert isinstance(ended, ToolCallResult)
        got = {
            "names": [c.name for c in ended.calls],
            "executed": [c.executed for c in ended.calls],
            "skipped": [c.skipped for c in ended.calls],
            "reused": [c.reused_from for c in ended.calls],
        }
        for key, value in expected.items():
            assert got[key] == value, (key, got[key])

    return check


def _paused(pending: list[str], executed: int) -> Callable[[Any, list[ChatRequest]], None]:
    def check(ended: Any, _requests: list[ChatRequest]) -> None:
        assert [c.name for c in ended.pending] == pending
        assert len(ended.executed) == executed

    return check


ROWS = [
    # Retry: the bound is max_retries + 1 stage-2 requests; each rejected answer is one.
    Row(
        "retry: valid at once, one request",
        [True, _answer(OSLO), [SUNNY]],
        ["route", "call1", 'run get_weather({"city":"Oslo"})', "ToolCallValidated"],
    ),
    Row(
        "retry: a missing field, then valid",
        [True, _answer(("get_weather", {})), _answer(OSLO), [SUNNY]],
        [
            "route",
            "call1",
            "AttemptFailed",
            "call2",
            'run get_weather({"city":"Oslo"})',
            "ToolCallValidated",
        ],
        check=_problems(["invalid_arguments"], []),
    ),
    Row(
        "retry: exhausted after max_retries + 1, nothing run",
        [True, _answer(("nope", {})), _answer(("nope", {}))],
        ["route", "call1", "AttemptFailed", "call2", "AttemptFailed"],
        raises=ToolCallFailed,
        max_retries=1,
        check=_problems(["unknown_tool"], ["unknown_tool"]),
    ),
    Row(
        "retry: max_retries=0 sends one request",
        [True, _answer(content="I think it is sunny.")],
        ["route", "call1", "AttemptFailed"],
        raises=ToolCallFailed,
        max_retries=0,
        check=_problems(["no_tool_call"]),
    ),
    Row(
        "retry: call() validates without running",
        [True, _answer(OSLO)],
        ["route", "call1", "ToolCallValidated"],
        execute=False,
        check=_result_calls(names=["get_weather"], executed=[False]),
    ),
    # Feedback: what the next request carries after a rejected answer.
    Row(
        "feedback: names the field and the call id",
        [True, _answer(("get_weather", {})), _answer(OSLO)],
        ["route", "call1", "AttemptFailed", "call2", "ToolCallValidated"],
        execute=False,
        check=_feedback_says("city", "Field required"),
    ),
    Row(
        # (A name of get_weather's own words, `weather`, would be read as it: `_meant_tool`.)
        "feedback: an unknown tool lists the offered ones",
        [True, _answer(("forecast", {"city": "Oslo"})), _answer(OSLO)],
        ["route", "call1", "AttemptFailed", "call2", "ToolCallValidated"],
        execute=False,
        check=_feedback_says("forecast", "get_weather"),
    ),
    Row(
        "feedback: a tool's ModelRetry message goes back to the model",
        [True, _answer(OSLO), [RETRY], _answer(HUE), [SUNNY]],
        [
            "route",
            "call1",
            'run get_weather({"city":"Oslo"})',
            "AttemptFailed",
            "call2",
            'run get_weather({"city":"Hue"})',
            "ToolCallValidated",
        ],
        check=_feedback_says("ask for the city in English"),
    ),
    # Approval: nothing of an answer runs while one of its calls waits.
    Row(
        "approval: a call that needs it pauses the step before anything runs",
        [True, _answer(OSLO, BOOK)],
        ["route", "call1"],
        raises=StepPaused,
        check=_paused(["book_trip"], executed=0),
    ),
    Row(
        "approval: approved on resume, it runs without a new request",
        [[Outcome(output="booked")]],
        ['run book_trip({"city":"Oslo"})', "ToolCallValidated"],
        control=lambda: _paused_at({"call_1": True}, BOOK),
        check=_result_calls(names=["book_trip"], executed=[True]),
    ),
    Row(
        "approval: denied on resume, answered with a note, never run",
        [],
        ["ToolCallValidated"],
        control=lambda: _paused_at({"call_1": False}, BOOK),
        check=_result_calls(names=["book_trip"], executed=[False], skipped=["denied"]),
    ),
    Row(
        "approval: resumed with a decision, the others of the answer run too",
        [[SUNNY, Outcome(output="booked")]],
        [
            'run get_weather({"city":"Oslo"}), book_trip({"city":"Oslo"})',
            "ToolCallValidated",
            "ToolCallValidated",
        ],
        control=lambda: _paused_at({"call_2": True}, OSLO, BOOK),
        check=_result_calls(names=["get_weather", "book_trip"], executed=[True, True]),
    ),
    # Exactly once: a side effect never happens twice in a step.
    Row(
        "exactly once: equal calls in one answer run once",
        [True, _answer(OSLO, OSLO), [SUNNY]],
        [
            "route",
            "call1",
            'run get_weather({"city":"Oslo"})',
            "ToolCallValidated",
            "ToolCallValidated",
        ],
        check=_result_calls(executed=[True, True], reused=[None, "call_1"]),
    ),
    Row(
        "exactly once: a call that ran before a retry is not run again",
        [True, _answer(OSLO, HUE), [SUNNY, RETRY], _answer(OSLO, HUE), [SUNNY]],
        [
            "route",
            "call1",
            'run get_weather({"city":"Oslo"}), get_weather({"city":"Hue"})',
            "AttemptFailed",
            "call2",
            'run get_weather({"city":"Hue"})',
            "ToolCallValidated",
            "ToolCallValidated",
        ],
        check=_result_calls(
            names=["get_weather", "get_weather", "get_weather"],
            executed=[True, True, True],
            reused=[None, "call_1", None],
        ),
    ),
    Row(
        "exactly once: an invalid answer runs nothing, even its valid calls",
        [True, _answer(OSLO, ("get_weather", {})), _answer(OSLO), [SUNNY]],
        [
            "route",
            "call1",
            "AttemptFailed",
            "call2",
            'run get_weather({"city":"Oslo"})',
            "ToolCallValidated",
        ],
    ),
    # The loop guard: across steps, a repeated call is answered from memory, then stops.
    Row(
        "loop guard: below the limit the call runs",
        [True, _answer(OSLO), [SUNNY]],
        ["route", "call1", 'run get_weather({"city":"Oslo"})', "ToolCallValidated"],
        control=lambda: StepControl(guard=_guard_that_saw(OSLO, 1)),
    ),
    Row(
        "loop guard: at the limit the call is answered without running",
        [True, _answer(OSLO)],
        ["route", "call1", "ToolCallValidated"],
        control=lambda: StepControl(guard=_guard_that_saw(OSLO, 2)),
        check=_result_calls(executed=[False], skipped=["repeated"]),
    ),
    Row(
        "loop guard: past the limit the step stops before anything runs",
        [True, _answer(HUE, OSLO)],
        ["route", "call1"],
        raises=LoopStop,
        control=lambda: StepControl(guard=_guard_that_saw(OSLO, 3)),
    ),
    Row(
        "loop guard: a repeat is screened before approval, so it never waits",
        [],
        ["ToolCallValidated"],
        control=lambda: StepControl(
            guard=_guard_that_saw(BOOK, 2), resume=_paused_at({}, BOOK).resume
        ),
        check=_result_calls(executed=[False], skipped=["repeated"]),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_flow(row: Row) -> None:
    steps = flow(_config(row.max_retries), USER, execute=row.execute, control=row.control())
    labels, requests, ended = _drive(steps, row.replies)
    assert labels == row.effects
    if row.raises is None:
        assert isinstance(ended, ToolCallResult), ended
    else:
        assert isinstance(ended, row.raises), ended
    row.check(ended, requests)


def test_the_guard_records_what_ran_for_the_next_step() -> None:
    guard = LoopGuard(3)
    steps = flow(_config(2), USER, execute=True, control=StepControl(guard=guard))
    _drive(steps, [True, _answer(OSLO), [SUNNY]])
    [seen] = guard.entries()
    assert (seen.name, seen.arguments, seen.count, seen.result) == (
        "get_weather",
        '{"city":"Oslo"}',
        1,
        "sunny",
    )
    args_model = _config(2).tools["get_weather"].args_model
    ran = ToolCall("c1", "get_weather", args_model(city="Oslo"), '{"city": "Oslo"}')
    other = ToolCall("c2", "get_weather", args_model(city="Lima"), '{"city": "Lima"}')
    assert guard.seen(ran)
    assert not guard.seen(other)
