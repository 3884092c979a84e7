"""`benchmarks/next_call_probe.py` against a scripted server: the continued request it sends
and how it sorts the second call."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from benchmarks.next_call_probe import probe
from toolcall_sdk import tool
from toolcall_sdk.evals._cases import EvalCase, ExpectedCall
from toolcall_sdk.testing import ScriptedModel, text, tool_call


@tool
def game_save_progress(stage: int, mode: str) -> str:
    """Save the game."""
    return "saved"


CASE = EvalCase(
    id="parallel_50",
    messages=({"role": "user", "content": "Save stage 7 on easy and stage 3 on hard."},),
    tools=(game_save_progress,),
    expected=(
        ExpectedCall("game_save_progress", {"stage": [7], "mode": ["easy"]}),
        ExpectedCall("game_save_progress", {"stage": [3], "mode": ["hard"]}),
    ),
)
FIRST = {"stage": 7, "mode": "easy"}


@pytest.mark.parametrize(
    ("written", "verdict"),
    [
        (' {"stage": 3, "mode": "hard"}', "right"),
        (' {"stage": 7, "mode": "easy"}', "repeat"),
        (' {"stage": 7, "mode": "hard"}', "other"),
        (' {"stage": 3, "mode": ', "unreadable"),
        (' 15,\n  "mode": "hard"', "unreadable"),
    ],
)
def test_the_second_call_is_sorted_against_the_expected_ones(written: str, verdict: str) -> None:
    model = ScriptedModel([tool_call("game_save_progress", FIRST), text(written)])

    with model.serve() as base_url:
        record = probe(openai.OpenAI(base_url=base_url, api_key="k"), "m", CASE)

    assert record.pop("text") == written
    assert record == {"id": "parallel_50", "calls": 1, "first_right": True, "second": verdict}
    first, continued = model.requests
    assert first.json is not None
    assert continued.json is not None
    assert continued.json["continue_final_message"] is True
    assert continued.json["add_generation_prompt"] is False
    assert continued.json["tool_choice"] == "none"
    last: dict[str, Any] = continued.json["messages"][-1]
    assert last["role"] == "assistant"
    assert last["content"].startswith('```json\n{\n  "name": "game_save_progress",')
    # The lever's opening: cut before the space the model writes with its brace.
    assert last["content"].endswith(
        '```\n```json\n{\n  "name": "game_save_progress",\n  "arguments":'
    )


def test_an_answer_without_exactly_one_call_is_not_continued() -> None:
    model = ScriptedModel([text("I cannot do that.")])

    with model.serve() as base_url:
        record = probe(openai.OpenAI(base_url=base_url, api_key="k"), "m", CASE)

    assert record == {"id": "parallel_50", "calls": 0}
    assert len(model.requests) == 1
