"""Folding text for comparison, and finding a value's letters and digits in it.

People and models write the same identifier in several ways: `CUS-000042`, `cus 000042`,
`CUS000042`; the same city as `Huế` and `Hue`. Folding (lower case, accents and the
Vietnamese `đ` taken off) and matching across separators let those agree, while a value
whose letters or digits differ (`CUS-000024`) still does not. A match must start and end
at a word boundary, so `INV-2024-7` is not found inside `INV-2024-77`.

A text is kept as its runs of letters and digits squeezed together (`cus000042`), with
where each run starts and ends: a value is then found with plain string search, with no
pattern to build for each value (every call brings new values).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from itertools import accumulate

__all__ = ["Letters", "fold", "squeeze", "words_of"]

# `đ` has no decomposition in Unicode: NFKD leaves it whole.
_EXTRA = str.maketrans({"đ": "d", "Đ": "d", "ð": "d", "ł": "l", "ø": "o", "ß": "ss"})
_TOKEN = re.compile(r"[a-z0-9]+")


def fold(text: str) -> str:
    """`text` in lower case, without accents; every other character kept."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_EXTRA))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def squeeze(value: str) -> str:
    """The letters and digits of `value`, folded, without what separates them."""
    return "".join(_TOKEN.findall(fold(value)))


def words_of(value: str) -> list[str]:
    """The folded words (runs of letters and digits) of `value`."""
    return _TOKEN.findall(fold(value))


class Letters:
    """A folded text's letters and digits, squeezed, and where its words start and end."""

    __slots__ = ("_ends", "_starts", "squeezed")

    def __init__(self, folded: str) -> None:
        tokens = _TOKEN.findall(folded)
        self.squeezed = "".join(tokens)
        ends = list(accumulate(len(token) for token in tokens))
        self._ends = frozenset(ends)
        self._starts = frozenset([0, *ends[:-1]]) if ends else frozenset()

    def has_chars(self, wanted: str) -> bool:
        """Whether `wanted` (a `squeeze`d value) stands here as a whole, any separators
        between its characters (`CUS-000042` in `cus 000042`)."""
        return bool(wanted) and next(self._places(wanted), None) is not None

    def has_words(self, words: list[str]) -> bool:
        """Whether `words` stand here, any separators between the words but none inside
        one (`Ho Chi Minh` in `ho-chi-minh`, not in `hochiminh`)."""
        if not words:
            return False
        wanted = "".join(words)
        inner = list(accumulate(len(word) for word in words))[:-1]
        for start in self._places(wanted):
            splits = {start + offset for offset in inner}
            inside = range(start + 1, start + len(wanted))
            if all((place in self._starts) == (place in splits) for place in inside):
                return True
        return False

    def _places(self, wanted: str) -> Iterator[int]:
        """Where `wanted` starts a word and ends one."""
        at = self.squeezed.find(wanted)
        while at >= 0:
            if at in self._starts and at + len(wanted) in self._ends:
                yield at
            at = self.squeezed.find(wanted, at + 1)
