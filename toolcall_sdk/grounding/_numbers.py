"""Numbers a text writes in digits, in the forms people use.

Digits grouped with `,` `.` `_` `'` or spaces (`1,500,000`, `1.500.000`, `1 500 000`),
decimals with either mark (`12.5`, `4,2`), a scale after them in English or Vietnamese
(`12.5 million`, `4,2 triệu`, `1.5k`, `500 nghìn`, `2 tỷ`, `1tr5`), a percent sign, and
currency marks around them (`$`, `VND`, `đồng`, `₫`), which only widen the quote.

A form that reads two ways gives both values (`1.500` is 1500 or 1.5): see `NumberMention`.
Each digit run inside a longer form is a value too (`2028-01-31` states 2028, 1 and 31),
so a part of what the user wrote, copied on its own, is never taken for an invention.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

from toolcall_sdk.grounding._mentions import NumberMention

__all__ = ["digit_numbers", "quote_of"]

# A number: space-grouped thousands first (`1 500 000`, `12 500 000,50`), else digit runs
# joined by single marks (`1,500,000.50`, `1.500.000`, `4,2`, `1_000`). Not inside a longer
# number (a mark or digit just before means this is its tail), nor inside an identifier
# (`CUS-000042`, `x86`: a letter, or a letter and a hyphen, just before).
_NUMBER = re.compile(
    # The digit test first: the lookbehinds then run only where a number can start.
    r"(?=\d)(?<![\d.,'])(?<![^\W\d_])(?<![^\W\d_]-)(?:"
    r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)(?:[.,]\d+)?"
    r"|\d+(?:\.\d+)?[eE][-+]?\d{1,3}(?![\w.])"
    r"|\d+(?:[.,_']\d+)*"
    r")"
)
_EXPONENT = re.compile(r"\d+(?:\.\d+)?[eE][-+]?\d+")
_RUN = re.compile(r"\d+")
_MARK = re.compile(r"[.,_' \u00a0\u202f]")
_SPACES = " \u00a0\u202f"

# Scale words and their factors. One-letter suffixes only count written against the digits
# (`5m` is five million; `5 m` may be five metres).
_SCALES: dict[str, int] = {
    "hundred": 10**2,
    "trăm": 10**2,
    "tram": 10**2,
    "thousand": 10**3,
    "thousands": 10**3,
    "grand": 10**3,
    "nghìn": 10**3,
    "nghin": 10**3,
    "ngàn": 10**3,
    "ngan": 10**3,
    "million": 10**6,
    "millions": 10**6,
    "mil": 10**6,
    "mio": 10**6,
    "mn": 10**6,
    "triệu": 10**6,
    "trieu": 10**6,
    "tr": 10**6,
    "billion": 10**9,
    "billions": 10**9,
    "bn": 10**9,
    "tỷ": 10**9,
    "tỉ": 10**9,
    "ty": 10**9,
    "trillion": 10**12,
    "trillions": 10**12,
}
_SUFFIXES: dict[str, int] = {"k": 10**3, "m": 10**6, "b": 10**9}
# Vietnamese amounts go on after the scale: `1 triệu 500 nghìn`, `1 triệu 5` (1.5 million),
# `2 tỷ rưỡi` (2.5 billion).
_VIETNAMESE = frozenset(
    {"trăm", "tram", "nghìn", "nghin", "ngàn", "ngan", "triệu", "trieu", "tr", "tỷ", "tỉ", "ty"}
)
_HALF = frozenset({"rưỡi", "rưởi", "ruoi"})

_WORD_AFTER = re.compile(r"[ \u00a0]?([^\W\d_]+)")
_SUFFIX_AFTER = re.compile(r"([kmbKMB])(?![^\W\d_])")
_CONTINUATION = re.compile(r"[ \u00a0]?(\d{1,3})(?![\d.,]\d)")
_PERCENT = re.compile(
    r"[ \u00a0]?(?:%|percent\b|per cent\b|pct\b|phần trăm|phan tram)", re.IGNORECASE
)
_AFTERNOON = re.compile(r"[ \u00a0]?(?:pm|p\.m\.)(?![^\W\d_])", re.IGNORECASE)
_CURRENCY_AFTER = re.compile(
    r"[ \u00a0]?(?:vnd|vnđ|đồng|dong|usd|eur|gbp|jpy|dollars?|euros?|bucks|yen|đ|₫|\$|€|£|¥)"
    r"(?![^\W\d_])",
    re.IGNORECASE,
)
# Whatever `_tail` and the quote look for after a number starts with one of these: a number
# followed by none of them is read without a dozen more pattern tests.
_TAIL = re.compile(
    r"[ \u00a0]?(?:[kmb%$€£¥₫đ]|hundred|thousand|grand|ngh|ng[àa]n|mil|mio|mn|tri|tr|bil|"
    r"bn|t[ỷỉy]|tr[ăa]m|per|pct|ph[ầa]n|p\.?m|vn|[đd]ồng|dong|usd|eur|gbp|jpy|dollar|euro|"
    r"bucks|yen)",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = re.compile(r"(?:us\$|\$|€|£|¥|₫|vnd|vnđ|usd|eur|gbp)[ \u00a0]?$", re.IGNORECASE)
# A quote longer than this is cut: its start says which number was meant.
_MAX_QUOTE = 40


def digit_numbers(text: str) -> Iterator[NumberMention]:
    """Every number `text` writes with digits, in order."""
    for match in _NUMBER.finditer(text):
        token = match.group()
        runs = [Decimal(int(run)) for run in _RUN.findall(token)]
        readings = _readings(token)
        if not readings:  # `1,2,3`: a list, not one number
            yield NumberMention(token, runs[0], frozenset(runs), match.start())
            continue
        values = set(readings)
        if not token.isdigit() and (
            "," in token or _grouped(_RUN.findall(token), _MARK.findall(token)) is None
        ):
            values.update(runs)  # `4,2` and `200,300` may be lists as well as one number
        shown, end = readings[0], match.end()
        if _TAIL.match(text, end) is not None:  # most numbers have no scale, sign or unit
            shown, end = _tail(text, end, token, readings, values)
        quote, start = quote_of(text, match.start(), end)
        yield NumberMention(quote=quote, shown=shown, values=frozenset(values), start=start)


def _tail(
    text: str, end: int, token: str, readings: list[Decimal], values: set[Decimal]
) -> tuple[Decimal, int]:
    """What follows a number: its scale, a percent sign, `PM`. Scales and percent apply
    to the token's readings, never to its digit runs."""
    shown, end = _scaled(text, end, readings, values)
    percent = _PERCENT.match(text, end)
    if percent is not None:
        values.update(reading / 100 for reading in readings)
        end = percent.end()
    clock = _AFTERNOON.match(text, end)
    if clock is not None and token.isdigit() and int(token) < 12:
        values.add(Decimal(int(token) + 12))  # `11 PM` is hour 23
        end = clock.end()
    return shown, end


def quote_of(text: str, start: int, end: int) -> tuple[str, int]:
    """The words of a number from `start` to `end`, with the currency marks around them
    (`12.5 million VND`, `$1,500`), cut to a readable length; and where the quote starts."""
    currency = _CURRENCY_AFTER.match(text, end)
    if currency is not None:
        end = currency.end()
    before = _CURRENCY_BEFORE.search(text, max(0, start - 6), start)
    if before is not None:
        start = before.start()
    quote = text[start:end].strip()
    if len(quote) > _MAX_QUOTE:
        quote = quote[:_MAX_QUOTE] + "..."
    return quote, start


def _readings(token: str) -> list[Decimal]:
    """The values a digit token can mean, the likeliest first."""
    if token.isdigit():
        return [Decimal(int(token))]
    if _EXPONENT.fullmatch(token):
        return [Decimal(token)]  # 1e-9, 8.854e-12
    runs = _RUN.findall(token)
    marks = _MARK.findall(token)
    # `1.500` (a three-digit tail) reads as grouping first, as amounts are written; `4,2`
    # only as a decimal. The first reading is the one feedback shows.
    readings = [
        reading for reading in (_grouped(runs, marks), _decimal(runs, marks)) if reading is not None
    ]
    if "," in marks and "." in marks and not readings:
        # Not one number: a list of decimals written without spaces (`46.603354,1.888334`).
        for piece in token.split(","):
            readings.extend(_readings(piece) if piece else ())
    return readings


def _grouped(runs: list[str], marks: list[str]) -> Decimal | None:
    """`1,500,000`, `1.500.000`, `1 500 000`: one kind of mark, groups of three."""
    if not marks or not 1 <= len(runs[0]) <= 3 or any(len(run) != 3 for run in runs[1:]):
        return None
    if len({" " if mark in _SPACES else mark for mark in marks}) != 1:
        return None
    return Decimal(int("".join(runs)))


def _decimal(runs: list[str], marks: list[str]) -> Decimal | None:
    """`12.5`, `4,2`, `1,500,000.50`, `1.500.000,50`: the last mark is the decimal point."""
    point = marks[-1]
    if point not in ".,":
        return None
    head_runs, head_marks = runs[:-1], marks[:-1]
    if head_marks and (point in head_marks or _grouped(head_runs, head_marks) is None):
        return None
    return Decimal(f"{''.join(head_runs)}.{runs[-1]}")


def _scaled(
    text: str, end: int, readings: list[Decimal], values: set[Decimal]
) -> tuple[Decimal, int]:
    """Apply the scale after a number: the value shown, and where the words end. Each
    scaled reading joins `values`; the unscaled ones stay (a field may count in millions)."""
    suffix = _SUFFIX_AFTER.match(text, end)
    if suffix is not None:
        factor = _SUFFIXES[suffix.group(1).lower()]
        values.update(reading * factor for reading in readings)
        return readings[0] * factor, suffix.end()
    factor, last = 1, ""
    while (word := _WORD_AFTER.match(text, end)) is not None:
        name = word.group(1).lower()
        step = _SCALES.get(name)
        # `hundred thousand`, `trăm nghìn`, `nghìn tỷ` multiply; a smaller scale starts
        # the next part of the amount.
        if step is None or step <= factor:
            break
        factor *= step
        last, end = name, word.end()
    if factor == 1:
        return readings[0], end
    scaled = [reading * factor for reading in readings]
    if last in _VIETNAMESE:
        shown, end, plain = _vietnamese_rest(text, end, scaled[0], factor, values)
        if plain:
            values.update(scaled)
        return shown, end
    values.update(scaled)
    return scaled[0], end


def _vietnamese_rest(
    text: str, end: int, scaled: Decimal, factor: int, values: set[Decimal]
) -> tuple[Decimal, int, bool]:
    """`1 triệu 500 nghìn`, `1 triệu 5`, `2 tỷ rưỡi`: what may follow a Vietnamese scale.

    Returns the value shown, where the words end, and whether the scaled number alone
    (`1 triệu`) is still a reading: not when the amount plainly goes on.
    """
    word = _WORD_AFTER.match(text, end)
    if word is not None and word.group(1).lower() in _HALF:
        half = scaled + Decimal(factor) / 2
        values.add(half)
        return half, word.end(), False
    more = _CONTINUATION.match(text, end)
    if more is None:
        return scaled, end, True
    digits = more.group(1)
    after = _WORD_AFTER.match(text, more.end())
    smaller = _SCALES.get(after.group(1).lower()) if after is not None else None
    if after is not None and smaller is not None and smaller < factor:
        total = scaled + int(digits) * smaller
        values.add(total)
        return total, after.end(), False
    # A bare number after the scale gives its next digits (1 triệu 5 is 1.5 triệu), or the
    # amount ended at the scale (`5 triệu 3 ngày`): both readings stay.
    values.add(scaled + Decimal(int(digits)) / 10 ** len(digits) * factor)
    return scaled, end, True
