"""Numbers as people write them: digits, separators, scales, words, currency, percent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_sdk.grounding._number_words import word_numbers
from toolcall_sdk.grounding._numbers import digit_numbers
from toolcall_sdk.grounding._sources import TextFacts


def values(text: str) -> set[Decimal]:
    return set(TextFacts(text).number_values())


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Invoice 12.5 million VND", 12_500_000),
        ("4,2 triệu", 4_200_000),
        ("4.2 million dong", 4_200_000),
        ("1.500.000 đồng", 1_500_000),
        ("1,500,000 VND", 1_500_000),
        ("12 500 000 ₫", 12_500_000),
        ("1_000_000", 1_000_000),
        ("1'000'000 CHF", 1_000_000),
        ("1.5k", 1500),
        ("500K", 500_000),
        ("2M", 2_000_000),
        ("3bn", 3_000_000_000),
        ("500 nghìn", 500_000),
        ("500 ngàn", 500_000),
        ("2 tỷ", 2_000_000_000),
        ("5tr", 5_000_000),
        ("1tr5", 1_500_000),
        ("1 triệu 5", 1_500_000),
        ("1 triệu 500 nghìn", 1_500_000),
        ("2 tỷ rưỡi", 2_500_000_000),
        ("five hundred thousand", 500_000),
        ("two thousand", 2000),
        ("one million VND", 1_000_000),
        ("a million", 1_000_000),
        ("half a million", 500_000),
        ("one and a half million", 1_500_000),
        ("twenty-five", 25),
        ("two dozen", 24),
        ("một triệu đồng", 1_000_000),
        ("hai mươi lăm", 25),
        ("năm trăm nghìn", 500_000),
        ("một triệu rưỡi", 1_500_000),
        ("một trăm linh năm", 105),
        ("hai tỷ ba trăm triệu", 2_300_000_000),
        ("$1,234.56", Decimal("1234.56")),
        ("1.500.000,50 €", Decimal("1500000.5")),
        ("15%", 15),
        ("15%", Decimal("0.15")),
        ("12.5 percent", Decimal("0.125")),
        ("1e-9 coulombs", Decimal("1e-9")),
        ("at 46.603354,1.888334", Decimal("46.603354")),
        ("at 46.603354,1.888334", Decimal("1.888334")),
        ("until 11 PM", 23),
    ],
)
def test_a_written_number_reads_as_its_value(text: str, value: int | Decimal) -> None:
    assert Decimal(value) in values(text)


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("12.5 million VND", 125_000_000),  # the 0.5B model's answer
        ("4.2 million dong", 42_000_000),
        ("4.2 million dong", 4_000_000),  # a digit run of the number is not scaled
        ("one million VND", 100_000_000),
        ("1 triệu 500 nghìn", 1_000_000),  # the amount goes on after the scale
        ("wait 5ms", 5_000_000),  # `m` is a suffix only at the end of a word
        ("1.500.000 đồng", Decimal("1.5")),  # two dots: grouping, never a decimal
        ("CUS-000042", 42),  # digits inside an identifier are not a number
    ],
)
def test_a_different_value_is_not_a_reading(text: str, wrong: int | Decimal) -> None:
    assert Decimal(wrong) not in values(text)


def test_a_form_that_reads_two_ways_gives_both() -> None:
    assert {Decimal(1500), Decimal("1.5")} <= values("1.500")
    assert {Decimal(4_200_000), Decimal("4.2")} <= values("4,2 triệu")


@pytest.mark.parametrize(
    ("text", "quote", "shown"),
    [
        ("Bill 12.5 million VND today", "12.5 million VND", 12_500_000),
        ("Pay $1,500 now", "$1,500", 1500),
        ("trả 1.500.000 đồng nhé", "1.500.000 đồng", 1_500_000),
        ("about 4,2 triệu", "4,2 triệu", 4_200_000),
    ],
)
def test_a_quote_keeps_the_scale_and_currency(text: str, quote: str, shown: int) -> None:
    [mention] = digit_numbers(text)
    assert (mention.quote, mention.shown) == (quote, Decimal(shown))


def test_spelled_out_numbers_keep_their_words() -> None:
    assert [(m.quote, m.shown) for m in word_numbers("bill one million VND, not two")] == [
        ("one million VND", Decimal(1_000_000)),
        ("two", Decimal(2)),
    ]
    assert list(word_numbers("book a room")) == []  # `a` alone is no number
    assert list(word_numbers("12.5 million")) == []  # the scale belongs to the digits


_GROUPINGS = {",": ",", ".": ".", " ": " ", "_": "_"}


@given(st.integers(min_value=1000, max_value=10**12), st.sampled_from(sorted(_GROUPINGS)))
def test_any_grouped_integer_reads_as_itself(number: int, mark: str) -> None:
    written = f"{number:,}".replace(",", mark)
    assert Decimal(number) in values(f"total {written} VND")


@given(
    st.decimals(min_value=1, max_value=999, places=1),
    st.sampled_from([("million", 10**6), ("triệu", 10**6), ("k", 10**3), ("tỷ", 10**9)]),
    st.sampled_from([".", ","]),
)
def test_any_scaled_decimal_reads_as_its_value(
    number: Decimal, scale: tuple[str, int], point: str
) -> None:
    word, factor = scale
    gap = "" if len(word) == 1 else " "
    written = f"{number}".replace(".", point)
    assert number * factor in values(f"about {written}{gap}{word} please")
