"""The non-live development set the bundled router calibration is fitted on (benchmark-side)."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("bfcl_eval")

from benchmarks._routing_set import RoutingExample, routing_dev_set
from toolcall_sdk.bfcl import LIVE_CATEGORIES


@pytest.fixture(scope="module")
def examples() -> list[RoutingExample]:
    return routing_dev_set(seed=0)


def test_no_example_comes_from_a_live_category(examples: list[RoutingExample]) -> None:
    live_prefixes = tuple(f"{category}_" for category in LIVE_CATEGORIES)
    assert not [e.group for e in examples if e.group.startswith(live_prefixes)]


def test_the_set_is_deterministic_for_a_seed(examples: list[RoutingExample]) -> None:
    again = routing_dev_set(seed=0)
    assert [(e.id, e.should_call) for e in again] == [(e.id, e.should_call) for e in examples]


def test_every_kind_has_its_label(examples: list[RoutingExample]) -> None:
    labels: dict[str, set[bool]] = {}
    for example in examples:
        labels.setdefault(example.kind, set()).add(example.should_call)
    calls = ["chatty", "multilingual", "follow_up", "lowercase", "non_english"]
    calls += ["wrapper_tools", "chat_history"]
    skips = ["smalltalk", "chatty_smalltalk", "missing_args", "vague", "foreign_tools"]
    skips += ["after_result", "thanks_after"]
    for kind in calls:
        assert labels[kind] == {True}, kind
    for kind in skips:
        assert labels[kind] == {False}, kind
    assert labels["base"] == labels["system"] == {True, False}
    assert min(Counter(e.kind for e in examples).values()) >= 100


def test_variants_keep_what_an_english_model_can_read(examples: list[RoutingExample]) -> None:
    by_id = {e.id: e for e in examples}
    for example in examples:
        base = by_id[f"{example.group}/base"]
        request = str(base.messages[-1]["content"])
        text = str(example.messages[-1]["content"])
        if example.kind == "lowercase":
            assert text == request.lower().rstrip(" .")
        elif example.kind == "non_english":
            assert any(ord(c) > 0x2FF for c in text)
        elif example.kind == "wrapper_tools":
            assert example.tools[: len(base.tools)] == base.tools
            assert len(example.tools) > len(base.tools)
        elif example.kind == "chat_history":
            assert example.messages[-1] == base.messages[-1]
            assert [m["role"] for m in example.messages[:4]] == ["user", "assistant"] * 2
