"""`ExampleBank`: which cases become demonstrations, how they are ranked, what it says it uses."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import ExampleBank, InvalidArgumentError, MissingDependencyError

from .._router_extra import MISSING

ROOT = Path(__file__).parents[3]


def case(asked: str, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": asked}],
        "expected": {"calls": [{"name": name, "arguments": arguments}]},
        **extra,
    }


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def shown(bank: ExampleBank, messages: list[dict[str, Any]], *tools: str) -> list[str]:
    """The user turns of the demonstrations chosen, in the order sent."""
    turns = bank.demonstrations(messages, tools)
    return [t["content"] for t in turns if t["role"] == "user"]


WEATHER = case("Weather in Hanoi today?", "get_weather", {"city": "Hanoi"})
INVOICE = case(
    "Bill CUS-148717 1.500.000 đồng, due 2027-01-11.",
    "create_invoice",
    {"customer_id": "CUS-148717", "amount_vnd": 1500000, "due_date": "2027-01-11"},
)


def test_only_cases_with_a_call_answering_a_user_turn_are_demonstrations() -> None:
    cases = [
        WEATHER,
        {"messages": "Hi!", "expected": {"calls": []}},  # no call is right: nothing to show
        {**WEATHER, "agent": {"max_steps": 3}},  # a chain of calls, not one answer
        {  # the call answered a tool result, not the user
            "messages": [*user("Weather?"), {"role": "tool", "tool_call_id": "x", "content": "?"}],
            "expected": {"calls": [{"name": "get_weather", "arguments": {"city": "Hue"}}]},
        },
        dict(WEATHER),  # the same request and call again
    ]

    bank = ExampleBank(cases, similarity="tfidf")

    assert len(bank) == 1
    assert shown(bank, user("Weather in Hue?"), "get_weather") == ["Weather in Hanoi today?"]


def test_accept_gives_the_first_value_and_an_omittable_field_is_left_out() -> None:
    reviewed = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather in Hue?"}]}],
        "expected": {
            "calls": [
                {
                    "name": "get_weather",
                    "arguments": {"city": "Hue"},
                    "accept": {"unit": [None, ""], "days": [3, 4]},
                }
            ]
        },
    }

    turns = ExampleBank([reviewed], similarity="tfidf").demonstrations(
        user("Weather in Hue?"), ["get_weather"]
    )

    assert turns[0] == {"role": "user", "content": "Weather in Hue?"}
    assert json.loads(turns[1]["tool_calls"][0]["function"]["arguments"]) == {
        "city": "Hue",
        "days": 3,
    }


def test_the_sdks_own_notes_are_not_the_request() -> None:
    bank = ExampleBank([WEATHER, INVOICE], k=1, similarity="tfidf")
    messages = [
        *user("Bill CUS-000001 2.000.000 đồng, due 2027-02-01."),
        {"role": "assistant", "content": "Sure."},
        *user("ERROR: you answered with text, but a tool call is required. Weather today?"),
    ]

    assert shown(bank, messages, "get_weather", "create_invoice") == [
        INVOICE["messages"][0]["content"]
    ]


def test_tfidf_reads_ids_and_amounts_by_their_shape() -> None:
    # Digits read as 0 and accents folded: another customer, amount and date look alike.
    bank = ExampleBank([WEATHER, INVOICE], k=1, similarity="tfidf")

    chosen = shown(
        bank,
        user("Bill CUS-990011 2.750.000 dong, due 2028-12-31."),
        "get_weather",
        "create_invoice",
    )

    assert chosen == ["Bill CUS-148717 1.500.000 đồng, due 2027-01-11."]


def test_nothing_alike_nothing_shown() -> None:
    bank = ExampleBank([WEATHER], similarity="tfidf")

    assert shown(bank, user("xyz"), "get_weather") == []
    assert (
        shown(bank, [{"role": "system", "content": "Weather in Hanoi today?"}], "get_weather") == []
    )


def test_the_bundled_invoices_file_reads_without_importing_its_tools() -> None:
    bank = ExampleBank(ROOT / "evals" / "invoices.jsonl", similarity="tfidf")

    assert len(bank) > 100
    assert repr(bank) == (
        f"ExampleBank({str(ROOT / 'evals' / 'invoices.jsonl')!r}: {len(bank)} demonstrations, "
        "k=3, max_tokens=600, similarity='tfidf')"
    )
    turns = bank.demonstrations(
        user("Cancel invoice INV-004512, it was a mistake."), ["cancel_invoice"]
    )
    assert {t["tool_calls"][0]["function"]["name"] for t in turns if t.get("tool_calls")} == {
        "cancel_invoice"
    }
    assert sum(t["role"] == "user" for t in turns) == 3


def test_auto_uses_the_encoder_when_the_router_extra_is_installed() -> None:
    bank = ExampleBank([WEATHER])

    assert bank.similarity == ("tfidf" if MISSING else "encoder")
    assert ExampleBank([WEATHER], similarity="tfidf").similarity == "tfidf"


@pytest.mark.skipif(not MISSING, reason="the router extra is installed here")
def test_asking_for_the_encoder_without_the_extra_names_it() -> None:
    with pytest.raises(MissingDependencyError, match="router"):
        ExampleBank([WEATHER], similarity="encoder")


@pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="needs numpy")
def test_an_encoder_function_ranks_by_its_embeddings() -> None:
    import numpy as np

    def by_topic(texts: list[str]) -> Any:
        # Invoices one way, everything else the other: "money" meets "Bill".
        rows = [[1.0, 0.0] if ("Bill" in t or "money" in t) else [0.0, 1.0] for t in texts]
        return np.asarray(rows, dtype=np.float32)

    bank = ExampleBank([WEATHER, INVOICE], k=1, encoder=by_topic)

    assert bank.similarity == "encoder"
    assert shown(bank, user("Ask for the money"), "get_weather", "create_invoice") == [
        INVOICE["messages"][0]["content"]
    ]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"k": 0}, "k must be an int of 1 or more"),
        ({"max_tokens": True}, "max_tokens must be an int of 1 or more"),
        ({"similarity": "bm25"}, "similarity must be one of"),
        ({"similarity": "tfidf", "encoder": lambda texts: texts}, "uses no encoder"),
    ],
)
def test_options_out_of_range_are_refused(options: dict[str, Any], said: str) -> None:
    with pytest.raises(InvalidArgumentError, match=said):
        ExampleBank([WEATHER], **options)


def test_a_single_case_dict_is_not_a_list_of_cases() -> None:
    with pytest.raises(InvalidArgumentError, match="a list of case dicts"):
        ExampleBank(WEATHER)  # type: ignore[arg-type]
