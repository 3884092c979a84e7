"""The demo model's synthetic training data: deterministic, well-formed, and honest splits."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

pytest.importorskip(
    "toolcall_sdk_demo",
    reason="the demo model package is not installed (pip install -e ./demo-model)",
)

from toolcall_sdk_demo import _data
from toolcall_sdk_demo._data import FUTURE_YEAR, Example, generate
from toolcall_sdk_demo._toolbox import CUSTOMER_ID_PATTERN, ORDER_ID_PATTERN, TOOL_NAMES


def _dump(examples: list[Example]) -> str:
    return json.dumps([(e.kind, e.messages, e.tools) for e in examples], ensure_ascii=False)


def test_same_seed_gives_the_same_chats() -> None:
    assert _dump(generate(300, seed=7)) == _dump(generate(300, seed=7))


def test_other_seed_or_split_gives_other_chats() -> None:
    assert _dump(generate(50, seed=7)) != _dump(generate(50, seed=8))
    assert _dump(generate(50, seed=7)) != _dump(generate(50, seed=7, split="heldout"))


@pytest.mark.parametrize("table", ["_WEATHER", "_ORDER", "_INVOICE", "_PARALLEL", "_CHAT"])
def test_heldout_phrasings_never_appear_in_training(table: str) -> None:
    phrasings = getattr(_data, table)
    assert phrasings["heldout"]
    assert not set(phrasings["train"]) & set(phrasings["heldout"])


def test_unseen_cities_are_only_in_the_heldout_split() -> None:
    train_cities, unseen = _data.city_pools()
    assert not set(train_cities) & set(unseen)
    text = _dump(generate(2000, seed=3))
    assert not [city for city in unseen if city in text]
    heldout = generate(400, split="heldout", seed=3, mix={"call": 1.0})
    assert any(e.unseen_city for e in heldout)


def test_expected_calls_are_the_last_assistant_turn() -> None:
    for example in generate(400, seed=1):
        last = example.messages[-1]
        assert last["role"] == "assistant"
        calls = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in last.get("tool_calls") or []
        ]
        assert calls == [(c.name, c.arguments) for c in example.expected]
        if not example.expected:
            assert last["content"] == example.answer


def test_called_tools_are_offered_in_the_prompt() -> None:
    for example in generate(400, seed=2):
        offered = {t["function"]["name"] for t in example.tools}
        assert {c.name for c in example.expected} <= offered
        assert offered <= set(TOOL_NAMES)


def test_first_turn_values_are_copied_from_the_request() -> None:
    for example in generate(400, seed=4, mix={"call": 1.0, "parallel": 0.3}):
        request = example.prompt[-1]["content"]
        for call in example.expected:
            for key in ("city", "order_id", "customer_id"):
                if key in call.arguments:
                    assert call.arguments[key] in request
            if "amount_vnd" in call.arguments:
                assert str(call.arguments["amount_vnd"]) in request.replace(",", "")


def test_first_turn_ids_match_their_patterns_and_dates_are_future() -> None:
    for example in generate(400, seed=5, mix={"call": 1.0}):
        for call in example.expected:
            args = call.arguments
            if "order_id" in args:
                assert re.fullmatch(ORDER_ID_PATTERN, args["order_id"])
            if "customer_id" in args:
                assert re.fullmatch(CUSTOMER_ID_PATTERN, args["customer_id"])
                assert args["amount_vnd"] > 0
                assert dt.date.fromisoformat(args["due_date"]) > dt.date(2026, 12, 31)


def test_mistakes_are_the_ones_validation_catches() -> None:
    for example in generate(200, seed=6, mix={"mistake": 1.0}):
        (call,) = example.expected
        if call.name == "create_invoice":
            assert dt.date.fromisoformat(call.arguments["due_date"]) < dt.date(2026, 1, 1)
        else:
            assert not re.fullmatch(ORDER_ID_PATTERN, call.arguments["order_id"])


def test_feedback_turn_names_the_field_and_the_correction_fixes_it() -> None:
    examples = generate(200, seed=8, mix={"feedback": 1.0})
    for example in examples:
        first, feedback, fixed = example.messages[-3:]
        bad = json.loads(first["tool_calls"][0]["function"]["arguments"])
        (good,) = example.expected
        assert feedback["role"] in ("tool", "user")
        changed = [key for key in bad if bad[key] != good.arguments[key]]
        assert len(changed) == 1
        assert changed[0] in feedback["content"]
        assert str(bad[changed[0]]) in feedback["content"]
        if changed[0] == "due_date":
            assert good.arguments["due_date"].startswith(f"{FUTURE_YEAR}-")
            assert good.arguments["due_date"][4:] == bad["due_date"][4:]
        else:
            assert good.arguments["order_id"] == bad["order_id"].upper()
        assert fixed["tool_calls"][0]["function"]["name"] == good.name
    # The SDK's own feedback wording is among the styles the model learns.
    assert any(
        m["content"].startswith("VALIDATION_ERROR in ") for e in examples for m in e.messages[-2:-1]
    )


def test_tool_messages_answer_the_call_they_follow() -> None:
    for example in generate(300, seed=9, mix={"feedback": 1.0, "result": 1.0}):
        for previous, message in zip(example.messages, example.messages[1:], strict=False):
            if message["role"] == "tool":
                ids = [c["id"] for c in previous["tool_calls"]]
                assert message["tool_call_id"] in ids


def test_chit_chat_has_no_calls() -> None:
    for example in generate(100, seed=10, mix={"chat": 1.0}):
        assert example.kind == "chat"
        assert not example.expected
        assert "tool_calls" not in example.messages[-1]


def test_every_kind_appears_in_the_training_mix() -> None:
    kinds = {e.kind for e in generate(500, seed=0)}
    assert kinds == set(_data.TRAIN_MIX)
