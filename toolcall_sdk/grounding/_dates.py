"""Dates a text states, and the relative ones it implies.

Written dates: `2028-01-31`, `31/01/2028` and `01/31/2028` (either order, when both are
dates), `31.01.28`, `January 31, 2028`, `31st of Jan 2028`, `Jan 31`, `January 2028`,
`ngày 31 tháng 1 năm 2028`, `31 tháng 1`, `tháng 1/2028`. A date written without its year
matches that day in any year; a month matches any day in it.

Relative dates (`today`, `tomorrow`, `in 3 days`, `next Friday`, `next week`, `ngày mai`,
`thứ sáu tuần sau`) mean nothing without the day they were said on: `Relative` keeps what
each says, and `resolve` turns it into dates when a reference date is known. Words that
point at a time without fixing it (`in a few days`, `soon`) make a text `vague`: its dates
cannot be checked at all.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from toolcall_sdk.grounding._mentions import DateMention

__all__ = ["Relative", "dates_in", "relatives_in", "resolve", "stated_today"]

_MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"

_ISO = re.compile(r"(?<![\d/.-])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUMERIC = re.compile(
    r"(?<![\d/.-])(?P<first>\d{1,2})(?P<mark>[/.-])(?P<second>\d{1,2})(?P=mark)"
    r"(?P<year>\d{4}|\d{2})(?![\d/.-]\d|\d)"
)
_DAY_MONTH = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?![\d/])")
_NAMED = (
    # 31 January 2028, 31st of Jan, 31 Jan, 2028
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    # January 31, 2028; Jan 31st; January 31 2028
    re.compile(rf"\b{_MONTH}(?:\s+|(?<=\.)){_DAY}(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    # January 2028
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
)
# `the 15th`, `on the 3rd`: a day of the month the conversation leaves to context.
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_ONLY = re.compile(
    rf"\bthe\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MONTH_NAMES})\b)",
    re.IGNORECASE,
)
_VIETNAMESE = (
    re.compile(
        r"(?:ngày\s*)?(?P<day>\d{1,2})\s*tháng\s*(?P<month>\d{1,2})"
        r"(?:\s*(?:năm|,)?\s*(?P<year>\d{4}))?",
        re.IGNORECASE,
    ),
    re.compile(r"tháng\s*(?P<month>\d{1,2})\s*(?:năm|/|,)\s*(?P<year>\d{4})", re.IGNORECASE),
)


_DIGIT = re.compile(r"\d")


def _iso(match: re.Match[str]) -> Iterator[DateMention]:
    yield from _mention(match, int(match[1]), int(match[2]), int(match[3]))


def _numeric(match: re.Match[str]) -> Iterator[DateMention]:
    year = int(match["year"]) + (2000 if len(match["year"]) == 2 else 0)
    first, second = int(match["first"]), int(match["second"])
    yield from _mention(match, year, second, first)  # 31/01/2028
    if first != second:
        yield from _mention(match, year, first, second)  # 01/31/2028


def _day_month(match: re.Match[str]) -> Iterator[DateMention]:
    first, second = int(match[1]), int(match[2])
    yield from _mention(match, None, second, first)
    if first != second:
        yield from _mention(match, None, first, second)


def _named(match: re.Match[str]) -> Iterator[DateMention]:
    parts = match.groupdict()
    month = _MONTHS[parts["month"].lower()]
    yield from _mention(match, _int(parts.get("year")), month, _int(parts.get("day")))


def _day_only(match: re.Match[str]) -> Iterator[DateMention]:
    day = int(match["day"])
    if 1 <= day <= 31:
        yield DateMention(match.group(), None, None, day, match.start())


def _vietnamese(match: re.Match[str]) -> Iterator[DateMention]:
    parts = match.groupdict()
    yield from _mention(match, _int(parts.get("year")), int(parts["month"]), _int(parts.get("day")))


# The written forms, the most specific first: where two can start at one place, the first
# that matches there is the one read.
_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Iterator[DateMention]]], ...] = (
    (_ISO, _iso),
    (_NUMERIC, _numeric),
    (_NAMED[0], _named),
    (_NAMED[1], _named),
    (_NAMED[2], _named),
    (_VIETNAMESE[0], _vietnamese),
    (_VIETNAMESE[1], _vietnamese),
    (_DAY_MONTH, _day_month),
    (_DAY_ONLY, _day_only),
)


def locator(patterns: Sequence[re.Pattern[str]], first: str) -> re.Pattern[str]:
    """One pattern that finds where any of `patterns` may match, in a single scan of the
    text (a dozen scans cost a dozen times as much); `first` is a class every match starts
    with, tested before anything else at each position. The match at each place found is
    then read with the patterns themselves."""
    branches = "|".join(
        f"(?:{_BACKREFERENCE.sub('.', _NAMED_GROUP.sub('(?:', p.pattern))})" for p in patterns
    )
    return re.compile(f"(?={first})(?:{branches})", re.IGNORECASE)


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_BACKREFERENCE = re.compile(r"\(\?P=\w+\)")
# Dates start with a digit, or at the start of a word (a month, `the`, `ngày`, `tháng`).
_DATE_AT = locator([pattern for pattern, _ in _FORMS], r"\d|\b[fjmasondt]")


# Every written date has one of these: digits joined by a mark (`31/01`, `2028-01-31`), a
# month's name, `tháng`, or an ordinal day (`the 15th`). Most texts have none.
_DATE_SIGN = re.compile(
    r"\d[-/.]\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|tháng|\d(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)


def dates_in(text: str) -> list[DateMention]:
    """Every date `text` writes out, in order. A month inside a whole date (`Jan 2028` in
    `31st of Jan 2028`) is not a mention of its own: it would let any day of it pass."""
    if _DIGIT.search(text) is None or _DATE_SIGN.search(text) is None:
        return []
    found: list[DateMention] = []
    for place in _DATE_AT.finditer(text):
        for pattern, read in _FORMS:
            match = pattern.match(text, place.start())
            if match is not None:
                found.extend(read(match))
                break
    return found


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _mention(
    match: re.Match[str], year: int | None, month: int, day: int | None
) -> Iterator[DateMention]:
    if not 1 <= month <= 12:
        return
    if day is not None:
        # A year-less date must exist in some year: 29 February does (in leap years).
        limit = calendar.monthrange(year if year is not None else 2024, month)[1]
        if not 1 <= day <= limit:
            return
    yield DateMention(match.group().strip(), year, month, day, match.start())


_WEEKDAYS: dict[str, int] = {
    # Not `sun`, `sat`, `wed`, `mon`: ordinary words more often than days.
    "monday": 0, "tuesday": 1, "tues": 1, "wednesday": 2, "thursday": 3, "thurs": 3,
    "friday": 4, "fri": 4, "saturday": 5, "sunday": 6,
    "thứ hai": 0, "thứ ba": 1, "thứ tư": 2, "thứ năm": 3, "thứ sáu": 4, "thứ bảy": 5,
    "chủ nhật": 6,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Relative:
    """One relative date as written, and what it counts from the reference date.

    Attributes:
        quote: The words (`next Friday`).
        days: Offsets in days that it may mean (`tomorrow`: 1).
        weekday: The weekday it names (0 is Monday), if any.
        weeks: For a weekday: which weeks it may fall in, 0 being the coming seven days
            (`next Friday` may be this coming one or the one after: 0 and 1).
        span: `week` or `month` for a whole period (`next week`), with `days` (or
            `weeks`) counting periods instead.
    """

    quote: str
    days: tuple[int, ...] = ()
    weekday: int | None = None
    weeks: tuple[int, ...] = ()
    span: str | None = None
    start: int = 0


_WEEKDAY = "|".join(sorted((re.escape(name) for name in _WEEKDAYS), key=len, reverse=True))
_COUNT = r"(?P<count>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|a)"
_COUNTS = {
    "a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_UNIT = r"(?P<unit>days?|weeks?|months?|ngày|tuần|tháng)"

# (pattern, what it means); the first pattern that matches a stretch of text wins.
_RELATIVE: tuple[tuple[re.Pattern[str], Relative], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), meaning)
    for pattern, meaning in (
        (r"\bday after tomorrow\b|\bngày kia\b|\bngày mốt\b", Relative("", days=(2,))),
        (r"\bday before yesterday\b|\bhôm kia\b", Relative("", days=(-2,))),
        (r"\btomorrow\b|\b(?:ngày|sáng|trưa|chiều|tối) mai\b", Relative("", days=(1,))),
        (r"\byesterday\b|\bhôm qua\b", Relative("", days=(-1,))),
        (r"\btoday\b|\btonight\b|\bhôm nay\b|\bbữa nay\b", Relative("", days=(0,))),
        (r"\b(?:this|next|coming) weekend\b|\bcuối tuần\b", Relative("", days=(), span="weekend")),
        (r"\bnext week\b|\btuần (?:sau|tới)\b", Relative("", weeks=(1,), span="week")),
        (r"\bthis week\b|\btuần này\b", Relative("", weeks=(0,), span="week")),
        (r"\bnext month\b|\btháng (?:sau|tới)\b", Relative("", days=(1,), span="month")),
        (r"\bthis month\b|\btháng này\b", Relative("", days=(0,), span="month")),
        (r"\bend of (?:the |this )?month\b|\bcuối tháng(?: này)?\b", Relative("", span="end")),
    )
)
_WEEKDAY_PHRASE = re.compile(
    rf"(?:\b(?P<which>next|this|coming|last|on)\s+)?(?P<name>{_WEEKDAY})\b"
    r"(?:\s+(?P<vi>tuần (?:sau|tới|này|trước)|tới|này))?",
    re.IGNORECASE,
)
_COUNTED = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b{_COUNT}\s+{_UNIT}\s+(?P<dir>from now|later|ago|nữa|sau|trước)\b",
        rf"\b(?:in|after|within|sau)\s+{_COUNT}\s+{_UNIT}\b",
    )
)
# Words that point at a time without fixing it: dates cannot be checked against them.
_VAGUE = re.compile(
    r"\b(?:in a (?:few|couple of) (?:days|weeks)|a few days|soon|sometime|next year|"
    r"this year|early next|later this|end of (?:the |this |next )?(?:week|quarter|year)|"
    r"q[1-4]|christmas|new year|vài ngày|sắp tới|năm sau|năm tới|cuối năm|tết)\b",
    re.IGNORECASE,
)


# A word every relative or vague phrase above has: a text without one has none of them, and
# a dozen patterns need not look.
_CUES = re.compile(
    r"today|tonight|tomorrow|yesterday|week|month|year|quarter|ago|from now|later|early|"
    r"days?\b|monday|tuesday|tues|wednesday|thursday|thurs|friday|fri\b|saturday|sunday|"
    r"soon|sometime|q[1-4]\b|christmas|hôm|bữa|mai\b|kia\b|mốt\b|tuần|tháng|thứ|chủ nhật|"
    r"nữa|sau\b|trước|cuối|tết|vài|sắp|năm (?:sau|tới)",
    re.IGNORECASE,
)


def _weekday(match: re.Match[str]) -> Relative:
    which = (match["which"] or "").lower()
    vi = (match["vi"] or "").lower()
    weeks: tuple[int, ...]
    if which == "last" or vi == "tuần trước":
        weeks = (-1, -2)
    elif which == "next" or vi in ("tuần sau", "tuần tới"):
        weeks = (0, 1)  # `next Friday`: this coming Friday, or the one after it
    else:
        weeks = (0,)
    name = _WEEKDAYS[match["name"].lower()]
    return Relative(match.group(), weekday=name, weeks=weeks, start=match.start())


def _fixed(meaning: Relative) -> Callable[[re.Match[str]], Relative]:
    def read(match: re.Match[str]) -> Relative:
        return Relative(
            match.group(), meaning.days, meaning.weekday, meaning.weeks, meaning.span, match.start()
        )

    return read


def relatives_in(text: str) -> tuple[list[Relative], bool]:
    """The relative dates of `text`, and whether it also has vague ones."""
    if _CUES.search(text) is None:
        return [], False
    found: list[Relative] = []
    for place in _RELATIVE_AT.finditer(text):
        for pattern, read in _RELATIVE_FORMS:
            match = pattern.match(text, place.start())
            if match is not None:
                found.append(read(match))
                break
    return found, _VAGUE.search(text) is not None


def _counted(match: re.Match[str]) -> Relative:
    """`in 3 days`, `2 weeks ago`, `5 ngày nữa`, `in 2 months`."""
    count = match["count"].lower()
    amount = _COUNTS.get(count) or (int(count) if count.isdigit() else 1)
    unit = match["unit"].lower()
    parts = match.groupdict()
    sign = -1 if (parts.get("dir") or "").lower() in ("ago", "trước") else 1
    if unit.startswith(("month", "tháng")):
        return Relative(match.group(), days=(sign * amount,), span="months", start=match.start())
    size = 7 if unit.startswith(("week", "tuần")) else 1
    return Relative(match.group(), days=(sign * amount * size,), start=match.start())


# The relative phrases, the longest first where two can start at one place (`day after
# tomorrow` before `tomorrow`; `next Friday` before `next week`).
_RELATIVE_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Relative]], ...] = (
    *((pattern, _fixed(meaning)) for pattern, meaning in _RELATIVE[:2]),
    (_WEEKDAY_PHRASE, _weekday),
    *((pattern, _counted) for pattern in _COUNTED),
    *((pattern, _fixed(meaning)) for pattern, meaning in _RELATIVE[2:]),
)
_RELATIVE_AT = locator([pattern for pattern, _ in _RELATIVE_FORMS], r"\b\w")


def resolve(relative: Relative, reference: date) -> Iterator[date]:
    """The dates `relative` may mean when said on `reference`."""
    if relative.weekday is not None:
        ahead = (relative.weekday - reference.weekday()) % 7
        for week in relative.weeks:
            yield reference + timedelta(days=ahead + 7 * week)
        return
    if relative.span == "week":
        monday = reference - timedelta(days=reference.weekday())
        for week in relative.weeks:
            start = monday + timedelta(days=7 * week)
            yield from (start + timedelta(days=offset) for offset in range(7))
        return
    if relative.span == "weekend":
        saturday = reference + timedelta(days=(5 - reference.weekday()) % 7)
        yield from (saturday, saturday + timedelta(days=1))
        return
    if relative.span in ("month", "months"):
        for offset in relative.days:
            year, month = divmod(reference.month - 1 + offset, 12)
            year, month = reference.year + year, month + 1
            days = calendar.monthrange(year, month)[1]
            if relative.span == "months":  # `in 2 months`: the same day, two months on
                yield date(year, month, min(reference.day, days))
            else:
                yield from (date(year, month, day) for day in range(1, days + 1))
        return
    if relative.span == "end":
        days = calendar.monthrange(reference.year, reference.month)[1]
        yield date(reference.year, reference.month, days)
        return
    for offset in relative.days:
        yield reference + timedelta(days=offset)


# `Today is 2026-12-01.`, `Today's date is March 6, 2024`, `Current date: 06/03/2024`,
# `Hôm nay là ngày 1 tháng 12 năm 2026`: the conversation says which day it is.
_TODAY_IS = re.compile(
    r"\b(?:today(?:'s date)? is|the date (?:today )?is|current date(?: is|:)|"
    r"hôm nay là(?: ngày)?)\s*(?:\w+,\s*)?",
    re.IGNORECASE,
)


def stated_today(text: str) -> date | None:
    """The day `text` says today is, if it says so with the year."""
    for match in _TODAY_IS.finditer(text):
        window = text[match.end() : match.end() + 40]
        for mention in dates_in(window):
            year, month, day = mention.year, mention.month, mention.day
            if mention.start == 0 and year is not None and month is not None and day is not None:
                return date(year, month, day)
    return None
