"""What `_listed_values` reads as listed beside a value, and what it leaves alone."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from toolcall_sdk._listed_values import listed_problems, missing_items, request_text, siblings
from toolcall_sdk._results import ToolCall


@pytest.mark.parametrize(
    ("text", "value", "listed"),
    [
        ("What is the factorial of 5, 10 and 15?", 5, [10, 15]),
        ("Play songs from Taylor Swift and Maroon 5", "Taylor Swift", ["Maroon 5"]),
        ("Density of copper and aluminum in the lab", "copper", ["aluminum"]),
        ("Invoices INV-1 and INV-2 please", "INV-1", ["INV-2"]),
        ("Split bills of $30.45, $52.33 and $11.23", 30.45, [52.33, 11.23]),
        ("A 20 minutes walk or 15 minutes by bus", 20, [15]),
        ("6 feet and 80 kg, also 5.6 feet and 60 kg", 6, [5.6]),
        ("Weather in Hanoi or Da Nang?", "Hanoi", ["Da Nang"]),
        ("Total of 1,500 and 2,000 units", 1500, [2000]),
    ],
)
def test_values_listed_beside_a_value(text: str, value: Any, listed: list[Any]) -> None:
    assert siblings(text, value) == listed


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Create an invoice due 2026-12-20 and send it", "2026-12-20"),
        ("Find restaurants in hanoi and book a table", "hanoi"),
        ("Show me invoice INV-20417.", "INV-20417"),
        ("Bill CUS-148717 12.5 million VND", 12500000),
        ("Invoice INV-7 and then email it", "INV-7"),
        ("Call Alice and tell her", "Alice"),
        ("A triangle with a base of 10 units and height of 5 units", "units"),
        ("Is it true?", True),
    ],
)
def test_a_sentence_that_goes_on_lists_nothing(text: str, value: Any) -> None:
    assert siblings(text, value) == []


class _Factorial(BaseModel):
    number: int


def _call(number: int, id: str) -> ToolCall:
    arguments = _Factorial(number=number)
    return ToolCall(
        id=id, name="math_factorial", arguments=arguments, raw_arguments=arguments.model_dump_json()
    )


def test_values_some_call_used_are_not_missing() -> None:
    text = "What is the factorial of 5, 10 and 15?"
    [problem] = listed_problems([_call(5, "a"), _call(10, "b")], text)
    assert problem.call_id == "a"
    assert [(f.field, f.message) for f in problem.fields] == [
        ("number", "the request also lists 15 beside 5")
    ]
    calls = [_call(5, "a"), _call(10, "b"), _call(15, "c")]
    assert listed_problems(calls, text) == []


def test_only_a_request_the_conversation_ends_with_is_read() -> None:
    assert request_text([{"role": "user", "content": "5 and 10"}]) == "5 and 10"
    parts = [{"type": "text", "text": "5 and"}, {"type": "text", "text": "10"}]
    assert request_text([{"role": "user", "content": parts}]) == "5 and 10"
    later = [{"role": "user", "content": "5 and 10"}, {"role": "assistant", "content": "ok"}]
    assert request_text(later) == ""
    assert request_text([{"role": "system", "content": "5 and 10"}]) == ""


class _Play(BaseModel):
    artist: str
    duration: int


class _Points(BaseModel):
    substance: str
    sea_level: int


class _Invest(BaseModel):
    stock: str
    invested_amount: int
    years: int


def _as_call(arguments: BaseModel) -> ToolCall:
    return ToolCall(
        id="a", name="f", arguments=arguments, raw_arguments=arguments.model_dump_json()
    )


def test_interleaved_lists_pair_up_and_grouped_lists_combine() -> None:
    played = _as_call(_Play(artist="Taylor Swift", duration=20))
    text = "Play Taylor Swift for 20 minutes and Maroon 5 for 15 minutes"
    assert [item.pins for item in missing_items([played], text)] == [{"duration": 15}]
    points = _as_call(_Points(substance="water", sea_level=0))
    text = "Boiling points of water and iron at sea levels 0 and 1000 m"
    assert [item.pins for item in missing_items([points], text)] == [
        {"substance": "water", "sea_level": 1000},
        {"substance": "iron", "sea_level": 0},
        {"substance": "iron", "sea_level": 1000},
    ]


def test_a_left_out_call_with_a_sentence_of_its_own_is_pointed_at_it() -> None:
    text = (
        "I have invested $5000 in Apple (AAPL) for 5 years, and $8000 in Microsoft (MSFT) "
        "for 7 years. Lastly, I invested $10000 in Amazon (AMZN) for 10 years."
    )
    answered = _as_call(_Invest(stock="AAPL", invested_amount=5000, years=5))
    items = missing_items([answered], text)
    assert [(item.pins, item.focus) for item in items] == [
        ({"years": 7}, "$8000 in Microsoft (MSFT) for 7 years."),
        ({"years": 10}, "I invested $10000 in Amazon (AMZN) for 10 years."),
    ]
    # One sentence: the clause that writes the held value and more words besides.
    played = _as_call(_Play(artist="Taylor Swift", duration=20))
    text = "Play songs from Taylor Swift for 20 minutes and Maroon 5 for 15 minutes on Spotify."
    [item] = missing_items([played], text)
    assert (item.pins, item.focus) == ({"duration": 15}, "Maroon 5 for 15 minutes on Spotify.")
    # Nothing but the held value in its clause: the held value says it all.
    factorial = _as_call(_Factorial(number=5))
    items = missing_items([factorial], "What is the factorial of 5, 10 and 15?")
    assert [(item.pins, item.focus) for item in items] == [
        ({"number": 10}, None),
        ({"number": 15}, None),
    ]
