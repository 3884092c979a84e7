"""After its tools ran, a run's next step lets the model answer (`force="first_step"`)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from toolcall_sdk import ApprovalRequired, MaxStepsExceeded, tool
from toolcall_sdk._pipeline import ANSWER_NOW_TEXT
from toolcall_sdk.errors import InvalidArgumentError
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import OSLO_RESULT_HISTORY, ClientFactory, Ledger

NAMED = {"type": "function", "function": {"name": "get_weather"}}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_forced_run_ends_with_the_text_the_model_writes_after_its_call(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger, stream: bool
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), text("It is 18 degrees in Oslo.")]
    )
    client = make_client(model, [get_weather], router="always")

    result = client.run("Weather in Oslo?", max_steps=5, stream=stream)

    assert result.content == "It is 18 degrees in Oslo."
    assert ledger.count("get_weather") == 1
    assert [(s.number, s.called) for s in result.steps] == [(1, True), (2, False)]
    assert [c.output for c in result.calls] == ["18 degrees celsius in Oslo"]
    first, second = model.chat_requests
    assert (first.stage, first.tool_choice, first.temperature) == ("call", NAMED, 0.0)
    assert first.messages == [{"role": "user", "content": "Weather in Oslo?"}]
    assert (second.stage, second.tool_choice, second.temperature) == ("call", "auto", 0.0)
    assert [t["function"]["name"] for t in second.tools or []] == ["get_weather"]
    assert second.messages == OSLO_RESULT_HISTORY
    assert result.messages == [
        *second.messages,
        {"role": "assistant", "content": "It is 18 degrees in Oslo."},
    ]
    # The answering step made one stage-2 attempt: it asked, and the model answered.
    assert [len(s.attempts) for s in result.steps] == [1, 1]
    assert result.steps[1].attempts[0].problems == []


def test_force_every_step_keeps_forcing_until_max_steps(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    cities = itertools.count(1)
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": f"C{next(cities)}"}))
    client = make_client(model, [get_weather], router="always", force="every_step")

    with pytest.raises(MaxStepsExceeded) as stopped:
        client.run("weather everywhere", max_steps=3)

    assert [r.tool_choice for r in model.chat_requests] == [NAMED, NAMED, NAMED]
    assert ledger.count("get_weather") == 3
    assert "force='every_step'" in str(stopped.value)


def test_force_every_step_feeds_back_a_text_answer_as_before(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}),
            text("It is 18 degrees in Oslo."),
            tool_call("get_weather", {"city": "Hue"}),
        ]
    )
    client = make_client(model, [get_weather], router="always", max_retries=1)

    with pytest.raises(MaxStepsExceeded):
        client.run("weather", max_steps=2, force="every_step")  # the run's own choice

    second, third = model.chat_requests[1:]
    assert second.tool_choice == third.tool_choice == NAMED
    assert third.messages[-1]["role"] == "user"
    assert "a tool call is required" in third.messages[-1]["content"]
    assert ledger.count("get_weather") == 2


def test_a_runs_force_overrides_the_clients(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}), text("18 degrees.")])
    client = make_client(model, [get_weather], force="every_step")

    result = client.run("weather", max_steps=3, force="first_step")

    assert result.content == "18 degrees."
    assert [r.tool_choice for r in model.chat_requests] == [NAMED, "auto"]


def test_a_call_left_in_the_text_of_an_answering_step_is_still_read_and_run(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    leaked = '<tool_call>{"name": "get_weather", "arguments": {"city": "Hue"}}</tool_call>'
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), text(leaked), text("Oslo 18, Hue 18.")]
    )
    # The first answer is taken as it is (the default would continue it with a Hue call
    # in step 1, since the request lists Hue beside Oslo): Hue comes in the answering step.
    client = make_client(
        model, [get_weather], model_id="Qwen/Qwen2.5-7B-Instruct", listed_values="off"
    )

    result = client.run("Weather in Oslo and Hue?", max_steps=4)

    assert result.content == "Oslo 18, Hue 18."
    assert [c.arguments.model_dump()["city"] for c in result.calls] == ["Oslo", "Hue"]
    assert result.steps[1].attempts[0].parser_miss is True
    assert [r.tool_choice for r in model.chat_requests] == [NAMED, "auto", "auto"]


def test_an_object_naming_an_unoffered_tool_in_an_answering_step_is_the_answer(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    # What Qwen2.5-Coder writes after a tool result: an object naming a tool nobody offered.
    invented = '{"name": "summarize_weather", "arguments": {"city": "Oslo"}}'
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}), text(invented)])
    client = make_client(model, [get_weather], model_id="Qwen/Qwen2.5-Coder-0.5B-Instruct")

    result = client.run("Weather in Oslo?", max_steps=4)

    assert result.content == invented  # the text, as the server's own parser leaves it
    assert len(model.chat_requests) == 2  # no feedback round on a tool nobody offered
    assert result.steps[1].attempts[0].parser_miss is False
    assert [c.name for c in result.calls] == ["get_weather"]


def test_an_invalid_call_of_an_answering_step_gets_feedback_and_a_forced_retry(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger
) -> None:
    # The model called: its retry is forced like a first step's, so the grammar holds the
    # arguments to the schema (under `auto` the 0.5B demo model sent the same unknown field
    # three times over), and a text reply cannot dodge the feedback.
    good = {"customer_id": "CUS-000042", "amount_vnd": 10, "due_date": "2030-12-31"}
    second = {**good, "customer_id": "CUS-000043"}
    model = ScriptedModel(
        [
            tool_call("create_invoice", good),
            tool_call("create_invoice", {**good, "customer_id": "CUS-42"}),
            tool_call("create_invoice", second),
            text("Invoices INV-1 and INV-1 are created."),
        ]
    )
    client = make_client(model, [create_invoice])

    result = client.run("invoice", max_steps=4)

    assert result.content == "Invoices INV-1 and INV-1 are created."
    assert ledger.count("create_invoice") == 2
    assert [len(s.attempts) for s in result.steps] == [1, 2, 1]
    assert result.steps[1].attempts[0].error_kinds == ["invalid_arguments"]
    choices = [r.tool_choice for r in model.chat_requests]
    named = {"type": "function", "function": {"name": "create_invoice"}}
    assert choices == [named, "auto", named, "auto"]
    assert (
        model.chat_requests[2]
        .messages[-1]["content"]
        .startswith("VALIDATION_ERROR in create_invoice")
    )


def test_a_paused_run_keeps_its_force_across_resume(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool(requires_approval=True)
    def send_payment(account: str) -> str:
        """Send a payment."""
        ledger.calls.append(("send_payment", {"account": account}))
        return "PAY-1"

    model = ScriptedModel(
        [tool_call("send_payment", {"account": "A-1"}), tool_call("send_payment", {"account": "B"})]
    )
    client = make_client(model, [send_payment])
    with pytest.raises(ApprovalRequired) as paused:
        client.run("pay", max_steps=2, force="every_step")
    assert json.loads(paused.value.state)["limits"]["force"] == "every_step"

    with pytest.raises(ApprovalRequired):  # step 2 forced again, and pauses in turn
        client.resume(paused.value.state, approvals={"call_1": True})

    assert [r.tool_choice for r in model.chat_requests][1]["function"]["name"] == "send_payment"
    assert ledger.count("send_payment") == 1


@pytest.mark.parametrize("where", ["client", "run"])
def test_an_unknown_force_is_refused(
    make_client: ClientFactory, get_weather: Any, where: str
) -> None:
    model = ScriptedModel([])
    force: Any = "always"

    def attempt() -> Any:
        if where == "client":
            return make_client(model, [get_weather], force=force)
        return make_client(model, [get_weather]).run("weather", force=force)

    with pytest.raises(InvalidArgumentError, match="force must be one of 'first_step'"):
        attempt()
    assert model.chat_requests == []


def test_a_later_step_that_only_repeats_a_call_is_asked_to_answer_without_tools(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    # What Qwen2.5-Coder-0.5B does after a tool result: the same call again.
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}),
            tool_call("get_weather", {"city": "Oslo"}),
            text("It is 18 degrees in Oslo."),
        ]
    )
    client = make_client(model, [get_weather], router="always")

    result = client.run("Weather in Oslo?", max_steps=5)

    assert ledger.count("get_weather") == 1  # the repeat did not run
    assert result.content == "It is 18 degrees in Oslo."
    _, second, third = model.chat_requests
    assert second.tool_choice == "auto"
    assert (third.stage, third.tools, third.tool_choice) == ("answer", None, None)
    assert third.messages[-1] == {"role": "user", "content": ANSWER_NOW_TEXT}
    assert third.messages[-2]["role"] == "tool"
    assert result.messages[-1] == {"role": "assistant", "content": "It is 18 degrees in Oslo."}
    assert [s.called for s in result.steps] == [True, False]


def test_a_later_step_with_a_new_call_still_runs_it(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}),
            tool_call("get_weather", {"city": "Hue"}),
            text("Oslo 18, Hue 18."),
        ]
    )
    client = make_client(model, [get_weather], router="always")

    result = client.run("Weather in Oslo and Hue?", max_steps=5)

    assert ledger.count("get_weather") == 2
    assert result.content == "Oslo 18, Hue 18."
    assert [r.tool_choice for r in model.chat_requests][1:] == ["auto", "auto"]


CALL_AS_TEXT = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'


def test_a_plain_answer_after_results_that_writes_the_call_again_is_asked_once_more(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(CALL_AS_TEXT), text("It is 18 degrees in Oslo.")])
    client = make_client(model, [get_weather], router="never")

    result = client.call(OSLO_RESULT_HISTORY)

    first, second = model.chat_requests
    assert first.messages == OSLO_RESULT_HISTORY
    assert second.tools is None
    assert second.messages == [*OSLO_RESULT_HISTORY, {"role": "user", "content": ANSWER_NOW_TEXT}]
    assert result.content == "It is 18 degrees in Oslo."


def test_a_plain_answer_is_asked_again_at_most_once(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(CALL_AS_TEXT), text(CALL_AS_TEXT), text("unused")])
    client = make_client(model, [get_weather], router="never")

    result = client.call(OSLO_RESULT_HISTORY)

    assert len(model.chat_requests) == 2
    assert result.content == CALL_AS_TEXT


def test_a_plain_answer_without_tool_results_is_never_asked_again(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text(CALL_AS_TEXT), text("unused")])
    client = make_client(model, [get_weather], router="never")

    result = client.call("Weather in Oslo?")

    assert len(model.chat_requests) == 1
    assert result.content == CALL_AS_TEXT
