"""`--limit N`: N cases taken in turns from each category, spread over the file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk.evals import parse_case
from toolcall_sdk.evals._cli import gather_cases
from toolcall_sdk.evals._spread import spread

REPO = Path(__file__).resolve().parents[3]
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def cases(categories: str) -> list[Any]:
    """One case per letter, its category the letter: `aab` is a1 a2 b1."""
    seen: Counter[str] = Counter()
    out = []
    for letter in categories:
        seen[letter] += 1
        raw = {"id": f"{letter}{seen[letter]}", "category": letter, "messages": "hi"}
        out.append(parse_case({**raw, "tools": [TOOL], "expected": []}))
    return out


def ids(picked: list[Any]) -> list[str]:
    return [case.id for case in picked]


def test_categories_take_turns_in_file_order_and_the_pick_keeps_file_order() -> None:
    every = cases("aaaaabbccc")
    assert ids(spread(every, 3)) == ["a1", "b1", "c1"]
    # A fourth case: a second turn, which not every category can take: the first does.
    assert ids(spread(every, 4)) == ["a1", "a3", "b1", "c1"]
    assert ids(spread(every, 6)) == ["a1", "a3", "b1", "b2", "c1", "c2"]
    # b has given its two; the turns go on without it.
    assert ids(spread(every, 8)) == ["a1", "a2", "a4", "b1", "b2", "c1", "c2", "c3"]


def test_a_turn_that_cannot_go_round_is_spread_over_the_categories() -> None:
    every = cases("abcdefghij")
    assert ids(spread(every, 3)) == ["a1", "d1", "g1"]


def test_within_one_category_the_cases_are_spaced_over_it() -> None:
    every = cases("a" * 12)
    assert ids(spread(every, 3)) == ["a1", "a5", "a9"]


def test_no_limit_or_a_large_one_keeps_every_case_and_zero_is_refused() -> None:
    every = cases("aab")
    assert ids(spread(every, None)) == ["a1", "a2", "b1"]
    assert ids(spread(every, 3)) == ids(spread(every, 99)) == ["a1", "a2", "b1"]
    assert ids(spread(every, 2)) == ["a1", "b1"]
    with pytest.raises(ValueError, match="--limit must be at least 1"):
        spread(every, 0)


def test_limit_on_the_bundled_set_takes_one_case_of_each_category() -> None:
    path = str(REPO / "evals" / "invoices.jsonl")
    every = gather_cases([path], None, allow_code=True)
    categories = list(dict.fromkeys(case.category for case in every))
    assert len(categories) == 15

    picked = gather_cases([path], None, limit=15, allow_code=True)

    assert [case.category for case in picked] == categories
    again = gather_cases([path], None, limit=15, allow_code=True)
    assert ids(again) == ids(picked)  # deterministic
    fifty = Counter(case.category for case in gather_cases([path], None, limit=50, allow_code=True))
    assert sorted(fifty.values()) == [3] * 10 + [4] * 5
