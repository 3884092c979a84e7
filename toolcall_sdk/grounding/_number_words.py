"""Numbers a text spells out, in English and Vietnamese.

`two thousand`, `one million`, `a million`, `half a million`, `twenty-five`, `one and a
half million`, `a dozen`, ordinals (`third`); `một triệu`, `hai mươi lăm`, `năm trăm nghìn`,
`một triệu rưỡi`, `một trăm linh năm`. A run of number words is read as one number; where
the run cannot be one number (`one two`), it is read as several.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal

from toolcall_sdk.grounding._mentions import NumberMention
from toolcall_sdk.grounding._numbers import quote_of

__all__ = ["word_numbers"]

_UNITS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "single": 1, "twice": 2, "double": 2, "pair": 2, "couple": 2,
    "thrice": 3, "triple": 3, "decade": 10, "century": 100,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    # Vietnamese: `mốt`, `tư`, `lăm` are 1, 4, 5 after a ten (`hai mươi mốt` is 21).
    "không": 0, "một": 1, "mốt": 1, "hai": 2, "ba": 3, "bốn": 4, "tư": 4, "năm": 5,
    "lăm": 5, "nhăm": 5, "sáu": 6, "bảy": 7, "bẩy": 7, "tám": 8, "chín": 9, "mười": 10,
}  # fmt: skip
_TENS: dict[str, int] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
# Multiply what came before within the group: `hai mươi` (20), `ba chục` (30), `two dozen`,
# `five hundred`; alone they count one (`a dozen`).
_MULTIPLIERS: dict[str, int] = {
    "mươi": 10, "chục": 10, "dozen": 12, "dozens": 12, "hundred": 100, "trăm": 100,
}  # fmt: skip
# Close a group: what came before times the scale is added to the total.
_SCALES: dict[str, int] = {
    "thousand": 10**3, "nghìn": 10**3, "ngàn": 10**3,
    "million": 10**6, "triệu": 10**6,
    "billion": 10**9, "tỷ": 10**9, "tỉ": 10**9,
    "trillion": 10**12,
}  # fmt: skip
# Joining words that keep a number going only between number words.
_JOINERS = frozenset({"and", "linh", "lẻ", "a", "an"})
_HALF = frozenset({"half", "rưỡi", "rưởi"})
_WORDS = frozenset(_UNITS) | set(_TENS) | set(_MULTIPLIERS) | set(_SCALES) | _HALF | _JOINERS
_WORD = re.compile(r"[^\W\d_]+")


# A run of number words, found by the regex engine: most of a text is never looked at.
_ONE = "|".join(re.escape(word) for word in sorted(_WORDS, key=len, reverse=True))
_FIRST = "[" + "".join(sorted({re.escape(word[0]) for word in _WORDS})) + "]"
_RUN = re.compile(rf"(?={_FIRST})(?<![^\W\d_])(?:{_ONE})(?:[\s-]+(?:{_ONE}))*(?![^\W\d_])")


def word_numbers(text: str) -> Iterator[NumberMention]:
    """Every number `text` spells out, in order."""
    text = unicodedata.normalize("NFC", text)
    lowered = text.lower()
    if _COUNTING.isdisjoint(_WORD.findall(lowered)):  # no number word: most texts
        return
    for run in _RUN.finditer(lowered):
        if run.group() in _JOINERS:  # `a`, `and` alone: the common case, no number
            continue
        yield from _read_run(text, list(_WORD.finditer(lowered, run.start(), run.end())))


def _read_run(text: str, run: list[re.Match[str]]) -> Iterator[NumberMention]:
    # Joiners at either end are not part of the number (`a` in `a room`, `and` in `and two`).
    while run and run[0].group() in _JOINERS - {"a", "an"}:
        run = run[1:]
    while run and run[-1].group() in _JOINERS:
        run = run[:-1]
    # A scale word alone is not a number: `million` in `12.5 million` belongs to the digits.
    if not run or not any(_counts(match.group()) for match in run):
        return
    for first, last, value in _values(run):
        quote, start = quote_of(text, run[first].start(), run[last].end())
        yield NumberMention(quote=quote, shown=value, values=frozenset({value}), start=start)


def _counts(word: str) -> bool:
    """Whether a word gives a number of its own (`two`, `a`, `half`; not `million`)."""
    return word in _UNITS or word in _TENS or word in _HALF or word in ("a", "an", "dozen")


def _values(run: list[re.Match[str]]) -> Iterator[tuple[int, int, Decimal]]:
    """The numbers in a run of number words: (first word, last word, value)."""
    reader = _Reader()
    for index, match in enumerate(run):
        done = reader.read(match.group(), index)
        if done is not None:
            yield done
    if reader.seen and reader.began is not None:
        yield reader.began, len(run) - 1, reader.value


class _Reader:
    """Reads number words one by one: the closed groups in `total`, the open one in `group`."""

    def __init__(self) -> None:
        self.total = Decimal(0)
        self.group = Decimal(0)
        self.last_scale = 1
        self.began: int | None = None
        self.seen = False
        self.previous = ""

    @property
    def value(self) -> Decimal:
        return self.total + self.group

    def read(self, word: str, index: int) -> tuple[int, int, Decimal] | None:
        """Take one word; a number that ended before it, if it starts a new one."""
        done = None
        if word in _JOINERS:
            if word in ("a", "an") and self.began is None:
                self.began = index
        else:
            if self.began is None:
                self.began = index
            if word in _UNITS or word in _TENS:
                done = self._unit(word, index)
            elif word in _MULTIPLIERS:
                self.group = (self.group or Decimal(1)) * _MULTIPLIERS[word]
            elif word in _SCALES:
                self._scale(_SCALES[word])
            else:
                self._half()
            self.seen = True
        self.previous = word
        return done

    def _unit(self, word: str, index: int) -> tuple[int, int, Decimal] | None:
        done = None
        # A unit after a unit, or a ten after a ten or a unit, starts a new number
        # (`one two`); `twenty five`, `mười lăm`, `hai mươi lăm` go on.
        if self.group % 10 != 0 or (word in _TENS and self.group % 100 != 0):
            if self.seen and self.began is not None:
                done = (self.began, index - 1, self.value)
            self.total, self.group, self.last_scale, self.began = Decimal(0), Decimal(0), 1, index
        self.group += _UNITS.get(word, _TENS.get(word, 0))
        return done

    def _scale(self, scale: int) -> None:
        if self.total and scale >= self.last_scale and not self.group:
            self.total *= scale  # `nghìn tỷ`: a thousand billion
        else:
            self.total += (self.group or Decimal(1)) * scale
        self.group, self.last_scale = Decimal(0), scale

    def _half(self) -> None:
        previous = self.previous
        if previous in _SCALES:
            self.total += Decimal(self.last_scale) / 2  # `một triệu rưỡi`: 1.5 million
        elif previous in _MULTIPLIERS:
            self.group += Decimal(_MULTIPLIERS[previous]) / 2  # `trăm rưỡi`: 150
        elif previous in ("a", "an") and self.group:
            self.group += Decimal("0.5")  # `two and a half`
        else:
            self.group = Decimal("0.5")  # `half a million`


_COUNTING = frozenset(word for word in _WORDS if _counts(word))
"""The words that give a number of their own: a text with none of them spells out none."""
