"""A step ends in an answer or a typed error, never in nothing and never in half a call."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import (
    ApprovalRequired,
    LoopDetected,
    ModelRetry,
    NoAnswerError,
    ToolCallFailed,
    tool,
)
from toolcall_sdk._pipeline import ANSWER_IN_TEXT, ANSWER_NOW_TEXT
from toolcall_sdk.events import StreamCompleted
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

from ..conftest import ClientFactory, Ledger

CUT_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Os'


def test_a_model_that_repeats_one_call_forever_ends_in_loop_detected(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    # Every answer is the same call, the answer-now request (no tools) included.
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": "Oslo"}))
    client = make_client(model, [get_weather])

    with pytest.raises(LoopDetected) as stopped:
        client.run("Weather in Oslo?", max_steps=6)

    assert ledger.count("get_weather") == 1
    assert stopped.value.tool_name == "get_weather"
    assert [step.number for step in stopped.value.steps] == [1]
    assert [call.name for call in stopped.value.executed] == ["get_weather"]
    answer_requests = model.calls_for("answer")
    assert len(answer_requests) == 1
    assert answer_requests[0].messages[-1] == {"role": "user", "content": ANSWER_NOW_TEXT}


@pytest.mark.parametrize("method", ["call", "run"])
def test_a_structured_call_where_no_tool_may_be_called_is_no_answer(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger, method: str
) -> None:
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": "Oslo"}))
    client = make_client(model, [get_weather], router="never")

    with pytest.raises(NoAnswerError) as raised:
        getattr(client, method)("Weather in Oslo?")

    assert ledger.calls == []
    assert raised.value.message["tool_calls"][0]["function"]["name"] == "get_weather"
    assert "only tool call(s) (get_weather)" in str(raised.value)
    # Asked twice without tools: the second time told to answer in text.
    requests = model.calls_for("answer")
    assert [(r.json or {}).get("tools") for r in requests] == [None, None]
    assert requests[1].messages[-1] == {"role": "user", "content": ANSWER_IN_TEXT}


def test_an_empty_first_answer_is_asked_again_and_a_text_answer_returned(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(""), text("Hello! How can I help?")])
    client = make_client(model, [get_weather], router="never")

    result = client.call("hi")

    assert result.content == "Hello! How can I help?"
    assert model.calls_for("answer")[1].messages[-1] == {
        "role": "user",
        "content": ANSWER_IN_TEXT,
    }


def test_a_later_step_that_answers_with_empty_text_is_asked_again_without_tools(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), text("  "), text("18 degrees in Oslo.")]
    )
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?", max_steps=3)

    assert result.content == "18 degrees in Oslo."
    assert ledger.count("get_weather") == 1
    assert [r.stage for r in model.chat_requests] == ["call", "call", "answer"]
    assert "tools" not in (model.chat_requests[-1].json or {})


def test_a_later_step_that_never_answers_in_text_raises_no_answer(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}), *[text("")] * 3])
    client = make_client(model, [get_weather])

    with pytest.raises(NoAnswerError) as raised:
        client.run("Weather in Oslo?", max_steps=3)

    assert [call.name for call in raised.value.executed] == ["get_weather"]
    assert [step.number for step in raised.value.steps] == [1]
    assert ledger.count("get_weather") == 1


def test_a_call_cut_off_at_max_tokens_is_never_the_answer(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel(
        [text(CUT_CALL, finish_reason="length"), tool_call("get_weather", {"city": "Oslo"})]
    )
    # The default router leaves the decision to the answer: text may end the step.
    client = make_client(model, [get_weather], router="llm")

    result = client.call("Weather in Oslo?")

    assert result.called
    assert [(c.name, c.arguments.model_dump()["city"]) for c in result.calls] == [
        ("get_weather", "Oslo")
    ]
    first = result.attempts[0]
    assert first.finish_reason == "length"
    assert [p.kind for p in first.problems] == ["no_tool_call"]
    assert "cut off" in first.feedback[0]["content"]
    # The retry is forced: the model is not free to answer with half a tag again.
    assert (model.calls_for("call")[1].json or {})["tool_choice"] != "auto"


def test_a_call_cut_off_in_a_later_step_is_asked_for_again(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}),
            text(CUT_CALL, finish_reason="length"),
            tool_call("get_weather", {"city": "Bergen"}),
            text("Oslo 18, Bergen 18."),
        ]
    )
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo and Bergen?", max_steps=4)

    assert result.content == "Oslo 18, Bergen 18."
    assert ledger.calls == [
        ("get_weather", {"city": "Oslo", "unit": "celsius"}),
        ("get_weather", {"city": "Bergen", "unit": "celsius"}),
    ]
    assert [p.kind for p in result.steps[1].attempts[0].problems] == ["no_tool_call"]


def test_a_streamed_cut_off_call_completes_with_the_retried_call(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel(
        [text(CUT_CALL, finish_reason="length"), tool_call("get_weather", {"city": "Oslo"})]
    )
    client = make_client(model, [get_weather], router="llm")

    events = list(client.stream("Weather in Oslo?"))

    done = events[-1]
    assert isinstance(done, StreamCompleted)
    assert done.result.called
    assert done.result.content is None
    assert [c.name for c in done.result.calls] == ["get_weather"]


def test_resume_takes_up_the_paused_answer_whatever_the_clients_max_retries(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool(requires_approval=True)
    def refund(amount: int) -> str:
        """Refund an amount."""
        ledger.calls.append(("refund", {"amount": amount}))
        return f"refunded {amount}"

    # The first answer is invalid; the retry (attempt 2) pauses.
    model = ScriptedModel(
        [tool_call("refund", {"amount": "five"}), tool_call("refund", {"amount": 5}), text("ok")]
    )
    client = make_client(model, [refund], max_retries=2)
    with pytest.raises(ApprovalRequired) as paused:
        client.run("refund 5", max_steps=2)
    assert paused.value.steps[-1].attempts[-1].number == 2

    stricter = make_client(model, [refund], max_retries=0)
    result = stricter.resume(paused.value.state, approvals={paused.value.pending[0].id: True})

    assert ledger.calls == [("refund", {"amount": 5})]
    assert result.content == "ok"


def test_resume_with_fewer_retries_still_bounds_the_retries_after_the_paused_answer(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool(requires_approval=True)
    def refund(amount: int) -> str:
        """Refund an amount."""
        ledger.calls.append(("refund", {"amount": amount}))
        if amount > 3:
            raise ModelRetry("at most 3")
        return "ok"

    model = ScriptedModel(
        [
            tool_call("refund", {"amount": "five"}),
            parallel(tool_call("refund", {"amount": 5})),
            tool_call("refund", {"amount": 3}),
        ]
    )
    client = make_client(model, [refund], max_retries=2)
    with pytest.raises(ApprovalRequired) as paused:
        client.run("refund 5", max_steps=2)

    stricter = make_client(model, [refund], max_retries=0)
    with pytest.raises(ToolCallFailed) as failed:
        stricter.resume(paused.value.state, approvals={paused.value.pending[0].id: True})
    # The approved call ran (and asked for a retry); no retry followed under max_retries=0.
    # The resumed step's attempts start at the paused one.
    assert ledger.calls == [("refund", {"amount": 5})]
    assert [a.number for a in failed.value.attempts] == [2]
    assert [p.kind for p in failed.value.attempts[0].problems] == ["tool_retry"]
