"""`samples=k`: a forced request asks for k answers (`n`), and the step goes on with the
valid, grounded calls most of them make; only that answer's calls run, once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk import InvalidArgumentError, ToolCallClient, ToolCallFailed
from toolcall_sdk.events import StreamCompleted
from toolcall_sdk.testing import ScriptedModel, choices, malformed, text, tool_call, tool_calls

from ..conftest import ClientFactory, Ledger

REQUEST = "Invoice CUS-000042 for 12.5 million VND."


def _call(amount: Any) -> Any:
    return tool_call("create_invoice", {"customer_id": "CUS-000042", "amount_vnd": amount})


def _amounts(result: Any) -> list[int]:
    return [call.arguments.amount_vnd for call in result.calls]


def test_the_calls_most_answers_make_run_once(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([choices(_call(125000000), _call(12500000), _call(12500000))])
    client = make_client(model, [invoice], samples=3)

    result = client.run(REQUEST)

    [request] = model.calls_for("call")
    assert request.json is not None
    assert request.json["n"] == 3
    # The client's temperature 0 would give the same answer three times.
    assert request.json["temperature"] == 0.7
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]
    assert _amounts(result) == [12500000]
    [attempt] = result.attempts
    assert attempt.request.samples == 3
    assert attempt.raw_message["tool_calls"][0]["id"] == "call_2"  # the second choice's call
    # The history holds the answer kept, not the first choice.
    assert result.messages[1]["tool_calls"][0]["id"] == "call_2"


def test_a_valid_answer_is_kept_over_invalid_ones_that_agree(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([choices(_call("ten"), _call("ten"), _call(12500000))])
    client = make_client(model, [invoice], samples=3)

    result = client.run(REQUEST)

    assert len(model.calls_for("call")) == 1
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]
    assert result.attempts[0].problems == []


def test_grounding_decides_which_answers_vote(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    # Two answers write the amount ten times over; only the one the user stated counts.
    model = ScriptedModel([choices(_call(125000000), _call(125000000), _call(12500000))])
    client = make_client(model, [invoice], samples=3, grounding=True)

    result = client.run(REQUEST)

    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]
    assert _amounts(result) == [12500000]


def test_with_no_valid_answer_the_nearest_miss_gets_the_feedback_and_the_retry_samples_too(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    two_wrong = tool_calls([_call("ten"), _call("eleven")])
    model = ScriptedModel(
        [
            choices(two_wrong, _call("ten"), text("I cannot.")),
            choices(_call(12500000), _call(12500000)),
        ]
    )
    client = make_client(model, [invoice], samples=2, max_retries=1)

    result = client.run(REQUEST)

    first, retry = model.calls_for("call")
    assert first.json is not None
    assert retry.json is not None
    assert (first.json["n"], retry.json["n"]) == (2, 2)
    # The answer with one problem went back, not the one with two (the text comes after).
    assert [p.kind for p in result.attempts[0].problems] == ["invalid_arguments"]
    assert retry.json["messages"][-2]["tool_calls"][0]["id"] == "call_3"
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]


def test_every_answer_failing_escalates_with_the_kept_ones(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([choices(_call("ten"), _call("x")), choices(_call("y"), _call("z"))])
    client = make_client(model, [invoice], samples=2, max_retries=1)

    with pytest.raises(ToolCallFailed) as failed:
        client.run(REQUEST)

    assert ledger.calls == []
    assert [a.raw_message["tool_calls"][0]["id"] for a in failed.value.attempts] == [
        "call_1",
        "call_3",
    ]


def test_a_streamed_call_keeps_the_same_answer(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([choices(_call(125000000), _call(12500000), _call(12500000))])
    client = make_client(model, [invoice], samples=3)

    events = list(client.stream(REQUEST))

    last = events[-1]
    assert isinstance(last, StreamCompleted)
    assert _amounts(last.result) == [12500000]
    assert model.calls_for("call")[0].stream


def test_a_temperature_the_client_sets_is_kept(make_client: ClientFactory, invoice: Any) -> None:
    model = ScriptedModel([choices(_call(12500000), _call(12500000))])
    client = make_client(model, [invoice], samples=2, temperature=0.3)

    client.call(REQUEST)

    assert model.calls_for("call")[0].temperature == 0.3


def test_one_answer_is_asked_for_by_default(make_client: ClientFactory, invoice: Any) -> None:
    model = ScriptedModel([_call(12500000)])
    client = make_client(model, [invoice])

    result = client.call(REQUEST)

    [request] = model.calls_for("call")
    assert request.json is not None
    assert "n" not in request.json
    assert request.temperature == 0.0
    assert result.attempts[0].request.samples == 1


@pytest.mark.parametrize(
    ("answers", "called"),
    [
        pytest.param([text("Which customer?"), _call(12500000), text("Who?")], False, id="text"),
        pytest.param([text("Which customer?"), _call(12500000), _call(12500000)], True, id="call"),
    ],
)
def test_where_the_answer_decides_more_texts_than_calls_answer_in_text(
    make_client: ClientFactory, invoice: Any, ledger: Ledger, answers: list[Any], called: bool
) -> None:
    model = ScriptedModel([choices(*answers)])
    client = make_client(model, [invoice], samples=3, router="llm")

    result = client.run(REQUEST)

    [request] = model.calls_for("call")
    assert request.tool_choice == "auto"
    assert request.json is not None
    assert request.json["n"] == 3
    assert result.called is called
    if called:
        assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]
    else:
        assert ledger.calls == []
        assert result.content == "Which customer?"  # the first text answer


@pytest.mark.parametrize("samples", [0, 17, "3", True, 2.0])
def test_a_bad_samples_value_is_refused_with_its_bounds(samples: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="samples must be"):
        ToolCallClient(base_url="http://127.0.0.1:1/v1", model="m", samples=samples)


def test_a_tie_goes_to_the_earlier_answer_and_calls_in_any_order_agree(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    pair = [_call(1000), _call(2000)]
    model = ScriptedModel(
        [choices(_call(5), tool_calls(pair), _call(7), tool_calls(pair[::-1]), _call(5))]
    )
    client = make_client(model, [invoice], samples=5)

    client.run(REQUEST)

    # Two votes each for [5] and the pair (in either order): [5] was written first.
    assert ledger.calls == [("create_invoice", {"amount_vnd": 5})]


def _body(*choices: dict[str, Any]) -> str:
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "model": "m",
            "choices": list(choices),
            "usage": {"prompt_tokens": 50, "completion_tokens": 30},
        }
    )


def _choice(index: int, amount: int) -> dict[str, Any]:
    arguments = json.dumps({"customer_id": "CUS-000042", "amount_vnd": amount})
    function = {"name": "create_invoice", "arguments": arguments}
    call = {"id": f"c{index}", "type": "function", "function": function}
    return {
        "index": index,
        "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": [call]},
    }


def test_choices_are_read_in_index_order_and_one_without_a_message_is_left_out(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    # Sent out of order, with a choice that holds no message: choice 0 is the first answer,
    # the broken one does not vote, and 12500000 (choices 0 and 2) wins over 5 (choice 1).
    body = _body(
        _choice(2, 12500000),
        {"index": 3, "finish_reason": "stop"},
        _choice(1, 5),
        _choice(0, 12500000),
    )
    model = ScriptedModel([malformed(body)])
    client = make_client(model, [invoice], samples=4)

    result = client.run(REQUEST)

    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]
    assert result.attempts[0].raw_message["tool_calls"][0]["id"] == "c0"
    assert result.attempts[0].usage.completion_tokens == 30
