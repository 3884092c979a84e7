"""`client.stream_run()`: a whole agent run as events, ending with the run's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from toolcall_sdk import (
    AlreadyResumed,
    ApprovalRequired,
    ContentDelta,
    StreamCompleted,
    ToolCallResult,
    tool,
)
from toolcall_sdk.events import RunEvent, StepFinished, StepStarted, ToolExecuted
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory, Ledger


def kinds(events: Sequence[RunEvent]) -> list[str]:
    """Event class names, runs of deltas collapsed to one entry."""
    names: list[str] = []
    for event in events:
        name = type(event).__name__
        if name.endswith("Delta") and names and names[-1] == name:
            continue
        names.append(name)
    return names


def final(events: list[RunEvent]) -> ToolCallResult:
    last = events[-1]
    assert isinstance(last, StreamCompleted)
    return last.result


def script() -> list[Any]:
    return [
        tool_call("find_customer", {"name": "Acme"}),
        tool_call("get_weather", {"city": "Hue"}),
        text("Acme is CUS-000042; 18 degrees in Hue."),
    ]


@pytest.fixture
def find_customer(ledger: Ledger) -> Any:
    @tool
    def find_customer(name: str) -> str:
        """Find a customer's id by name."""
        ledger.calls.append(("find_customer", {"name": name}))
        return "CUS-000042"

    return find_customer


def test_each_steps_events_come_in_order_and_the_last_carries_the_runs_result(
    make_client: ClientFactory, find_customer: Any, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(script(), chunk_size=4)
    client = make_client(model, [find_customer, get_weather])

    events = list(client.stream_run("Acme's id, and the weather in Hue?", max_steps=5))

    step = ["ToolCallStarted", "ToolArgumentsDelta", "ToolExecuted", "ToolCallValidated"]
    assert kinds(events) == [
        "StepStarted",
        *step,
        "StepFinished",
        "StepStarted",
        *step,
        "StepFinished",
        "StepStarted",
        "ContentDelta",
        "StepFinished",
        "StreamCompleted",
    ]
    assert [e.step for e in events if isinstance(e, StepStarted)] == [1, 2, 3]
    finished = [e for e in events if isinstance(e, StepFinished)]
    assert [(e.step, e.called, e.tools) for e in finished] == [
        (1, True, ("find_customer",)),
        (2, True, ("get_weather",)),
        (3, False, ()),
    ]
    executed = [e for e in events if isinstance(e, ToolExecuted)]
    assert [(e.step, e.name, e.status, e.call.output) for e in executed] == [
        (1, "find_customer", "ok", "CUS-000042"),
        (2, "get_weather", "ok", "18 degrees celsius in Hue"),
    ]
    answer = "".join(e.text for e in events if isinstance(e, ContentDelta))
    assert answer == "Acme is CUS-000042; 18 degrees in Hue."
    result = final(events)
    assert result.content == answer
    assert [s.number for s in result.steps] == [1, 2, 3]
    assert [c.name for c in result.calls] == ["find_customer", "get_weather"]
    assert (ledger.count("find_customer"), ledger.count("get_weather")) == (1, 1)
    # Every request streamed; the steps after the first let the model answer.
    assert all(r.stream for r in model.chat_requests)
    assert [r.tool_choice for r in model.chat_requests][1:] == ["auto", "auto"]


def test_the_streamed_result_equals_runs(
    make_client: ClientFactory, find_customer: Any, get_weather: Any
) -> None:
    streamed = final(
        list(
            make_client(ScriptedModel(script()), [find_customer, get_weather]).stream_run(
                "go", max_steps=5
            )
        )
    )
    whole = make_client(ScriptedModel(script()), [find_customer, get_weather]).run(
        "go", max_steps=5
    )

    assert streamed.content == whole.content
    assert streamed.messages == whole.messages
    assert [(s.number, s.called, len(s.attempts)) for s in streamed.steps] == [
        (s.number, s.called, len(s.attempts)) for s in whole.steps
    ]
    assert streamed.usage == whole.usage


def test_a_pause_ends_the_stream_and_stream_resume_takes_it_up(
    make_client: ClientFactory, find_customer: Any, ledger: Ledger
) -> None:
    @tool(requires_approval=True)
    def send_invoice(customer_id: str) -> str:
        """Send an invoice."""
        ledger.calls.append(("send_invoice", {"customer_id": customer_id}))
        return "INV-1"

    model = ScriptedModel(
        [
            tool_call("find_customer", {"name": "Acme"}),
            tool_call("send_invoice", {"customer_id": "CUS-000042"}),
            text("Sent INV-1."),
        ]
    )
    client = make_client(model, [find_customer, send_invoice])
    seen: list[RunEvent] = []

    with pytest.raises(ApprovalRequired) as paused:
        seen.extend(client.stream_run("Invoice Acme", max_steps=4))

    assert kinds(seen)[-1] == "ToolArgumentsDelta"  # the paused answer, shown; nothing ran
    assert [e.name for e in seen if isinstance(e, ToolExecuted)] == ["find_customer"]
    resumed = list(client.stream_resume(paused.value.state, approvals={"call_2": True}))

    assert kinds(resumed) == [
        "StepStarted",
        "ToolExecuted",
        "ToolCallValidated",
        "StepFinished",
        "StepStarted",
        "ContentDelta",
        "StepFinished",
        "StreamCompleted",
    ]
    assert final(resumed).content == "Sent INV-1."
    assert ledger.count("send_invoice") == 1
    with pytest.raises(AlreadyResumed):
        list(client.stream_resume(paused.value.state, approvals={"call_2": True}))
    assert ledger.count("send_invoice") == 1


def test_stream_of_one_call_still_shows_no_steps(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])

    events = list(make_client(model, [get_weather]).stream("Weather in Oslo?"))

    assert kinds(events) == [
        "ToolCallStarted",
        "ToolArgumentsDelta",
        "ToolCallValidated",
        "StreamCompleted",
    ]


def test_bad_run_options_are_refused_when_stream_run_is_called(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([])
    client = make_client(model, [get_weather])

    with pytest.raises(TypeError, match="max_step"):
        client.stream_run("weather", max_step=3)  # type: ignore[call-arg]
    assert model.chat_requests == []


def test_hooks_hear_a_streamed_run_as_one_call(
    make_client: ClientFactory, find_customer: Any, get_weather: Any
) -> None:
    heard: list[Any] = []
    model = ScriptedModel(script())
    client = make_client(model, [find_customer, get_weather], hooks=[heard.append])

    list(client.stream_run("go", max_steps=5))

    names = [type(e).__name__ for e in heard]
    assert names[0] == "CallStarted"
    assert heard[0].operation == "stream_run"
    assert names.count("StepStarted") == 3
    assert names[-1] == "CallFinished"
    assert heard[-1].outcome == "ok"
