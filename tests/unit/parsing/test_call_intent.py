"""A call read from the text runs only when it is the answer (toolcall_sdk._call_intent).

Shown, asked about, refused, postponed or drafted while thinking, it stays text: under the
default router that text is the answer, and no business function runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import tool
from toolcall_sdk._call_intent import MAX_PROSE_CHARS, prose_withholds_call
from toolcall_sdk._recovery import recover_calls
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

from ..conftest import ClientFactory, Ledger

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "call_intent.jsonl").read_text().splitlines()
]
SCHEMAS = {"cancel_order": {"type": "object", "properties": {"order_id": {"type": "string"}}}}


@pytest.fixture
def cancel_order(ledger: Ledger) -> Any:
    @tool
    def cancel_order(order_id: str) -> str:
        """Cancel an order."""
        ledger.calls.append(("cancel_order", {"order_id": order_id}))
        return "cancelled"

    return cancel_order


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if "reasoning_content" not in c],
    ids=lambda c: str(c["id"]),
)
def test_the_default_client_runs_a_call_in_the_text_only_when_it_is_the_answer(
    make_client: ClientFactory, cancel_order: Any, ledger: Ledger, case: dict[str, Any]
) -> None:
    model = ScriptedModel([text(case["content"]), text("Cancelled.")])
    client = make_client(model, [cancel_order], router="llm")

    result = client.run([{"role": "user", "content": "Cancel A1, but not yet."}], max_steps=2)

    if case["runs"]:
        assert ledger.calls == [("cancel_order", {"order_id": "A1"})]
        assert result.content == "Cancelled."
    else:
        assert ledger.calls == []
        assert not result.called
        assert result.content == case["content"]  # the model's text is the answer


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c["id"]))
def test_recovery_reads_the_call_only_when_it_is_the_answer(case: dict[str, Any]) -> None:
    message = {"role": "assistant", "content": case["content"]}
    if "reasoning_content" in case:
        message["reasoning_content"] = case["reasoning_content"]

    judged = recover_calls(message, hint=None, attempt=1, tools=SCHEMAS)
    every = recover_calls(message, hint=None, attempt=1, tools=SCHEMAS, judge=False)

    assert (judged is not None) is case["runs"]
    if case["id"] != "think-block-draft":  # a draft in a think block is read when asked to
        assert every is not None


def test_small_talk_questions_around_a_call_do_not_withhold_it() -> None:
    assert prose_withholds_call("Hello, world! What's up?") is None
    assert prose_withholds_call("Is that OK?") is not None


def test_a_call_lost_in_long_prose_is_text() -> None:
    lead_in = "Here is some context. " * (MAX_PROSE_CHARS // 20)
    assert "prose" in str(prose_withholds_call(lead_in))
    assert prose_withholds_call("Sure, cancelling order A1 now:") is None


def test_a_forced_call_in_questioning_prose_is_fed_back_as_no_tool_call(
    make_client: ClientFactory, cancel_order: Any, ledger: Ledger
) -> None:
    withheld = next(c for c in CASES if c["id"] == "do-you-want")
    plain = next(c for c in CASES if c["id"] == "hermes-alone")
    model = ScriptedModel([text(withheld["content"]), text(plain["content"])])
    client = make_client(model, [cancel_order], router="always")

    result = client.run("Cancel A1 now.")

    assert ledger.calls == [("cancel_order", {"order_id": "A1"})]
    assert [p.kind for p in result.attempts[0].problems] == ["no_tool_call"]


def test_calls_a_server_parsed_out_of_withholding_prose_do_not_run(
    make_client: ClientFactory, cancel_order: Any, ledger: Ledger
) -> None:
    # vLLM's hermes parser takes the tagged call out and leaves the prose around it.
    answer = parallel(
        text("I will NOT call  until you confirm."),
        tool_call("cancel_order", {"order_id": "A1"}),
    )
    model = ScriptedModel([answer])
    client = make_client(model, [cancel_order], router="llm")

    result = client.run("Cancel A1, but not yet.", max_steps=2)

    assert ledger.calls == []
    assert result.content == "I will NOT call  until you confirm."
    assert result.attempts[0].repairs == ["cancel_order:withheld_by_text"]


def test_calls_a_server_parsed_next_to_a_plain_lead_in_run(
    make_client: ClientFactory, cancel_order: Any, ledger: Ledger
) -> None:
    answer = parallel(
        text("Cancelling order A1 now."), tool_call("cancel_order", {"order_id": "A1"})
    )
    model = ScriptedModel([answer, text("Cancelled.")])
    client = make_client(model, [cancel_order], router="llm")

    result = client.run("Cancel A1.", max_steps=2)

    assert ledger.calls == [("cancel_order", {"order_id": "A1"})]
    assert result.content == "Cancelled."
