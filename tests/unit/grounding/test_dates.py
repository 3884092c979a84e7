"""Dates as people write them, and relative ones given a reference date."""

from __future__ import annotations

from datetime import date

import pytest

from toolcall_sdk.grounding._dates import dates_in, relatives_in, resolve

JAN_31 = date(2028, 1, 31)


@pytest.mark.parametrize(
    "text",
    [
        "due 2028-01-31",
        "due 2028/01/31",
        "due 31/01/2028",
        "due 01/31/2028",
        "due 31.01.2028",
        "due 31-01-28",
        "due January 31, 2028",
        "due Jan 31 2028",
        "due 31 January 2028",
        "due 31st of Jan, 2028",
        "due January.31, 2028",
        "hạn ngày 31 tháng 1 năm 2028",
        "hạn 31 tháng 1, 2028",
        "due 2028-01-31T10:00:00",
    ],
)
def test_a_written_date_matches(text: str) -> None:
    assert any(mention.matches(JAN_31) for mention in dates_in(text))
    assert not any(mention.matches(date(2028, 1, 13)) for mention in dates_in(text))


def test_a_date_without_its_year_matches_that_day_of_any_year() -> None:
    [mention] = dates_in("due March 12")
    assert mention.matches(date(2027, 3, 12))
    assert mention.matches(date(2031, 3, 12))
    assert not mention.matches(date(2027, 3, 21))


def test_a_month_matches_its_days_but_not_inside_a_whole_date() -> None:
    [month] = dates_in("sometime in January 2028")
    assert month.matches(date(2028, 1, 1))
    assert month.matches(JAN_31)
    # `Jan 2028` inside `31st of Jan 2028` would let any day of January pass.
    assert [m.quote for m in dates_in("due 31st of Jan 2028")] == ["31st of Jan 2028"]


def test_a_day_of_the_month_alone() -> None:
    [mention] = dates_in("due on the 15th")
    assert mention.matches(date(2026, 7, 15))
    assert not mention.matches(date(2026, 7, 16))


MONDAY = date(2026, 6, 1)


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("due tomorrow", [date(2026, 6, 2)]),
        ("hạn ngày mai", [date(2026, 6, 2)]),
        ("the day after tomorrow", [date(2026, 6, 3)]),
        ("paid yesterday", [date(2026, 5, 31)]),
        ("in 3 days", [date(2026, 6, 4)]),
        ("5 ngày nữa", [date(2026, 6, 6)]),
        ("2 weeks ago", [date(2026, 5, 18)]),
        ("next Friday", [date(2026, 6, 5), date(2026, 6, 12)]),
        ("on Friday", [date(2026, 6, 5)]),
        ("thứ sáu tuần sau", [date(2026, 6, 5), date(2026, 6, 12)]),
        ("in 2 months", [date(2026, 8, 1)]),
        ("end of the month", [date(2026, 6, 30)]),
    ],
)
def test_a_relative_date_resolves_from_the_reference(text: str, meant: list[date]) -> None:
    found, vague = relatives_in(text)
    assert not vague
    assert sorted(d for phrase in found for d in resolve(phrase, MONDAY)) == meant


def test_a_period_resolves_to_its_days() -> None:
    [phrase], _ = relatives_in("some day next week")
    days = list(resolve(phrase, MONDAY))
    assert days[0] == date(2026, 6, 8)
    assert days[-1] == date(2026, 6, 14)


@pytest.mark.parametrize("text", ["in a few days", "soon", "by the end of the year", "in Q3"])
def test_vague_words_are_flagged(text: str) -> None:
    assert relatives_in(text)[1] is True
