"""Folding text for comparison, and finding a value's words in it.

People and models write the same identifier in several ways: `CUS-000042`, `cus 000042`,
`CUS000042`; the same city as `Huế` and `Hue`. Folding (lower case, accents and the
Vietnamese `đ` taken off) and matching across separators let those agree, while a value
whose letters or digits differ (`CUS-000024`) still does not. A match must start and end
at a word boundary, so `INV-2024-7` is not found inside `INV-2024-77`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["find_chars", "find_words", "fold", "folded_tokens"]

# `đ` has no decomposition in Unicode: NFKD leaves it whole.
_EXTRA = str.maketrans({"đ": "d", "Đ": "d", "ð": "d", "ł": "l", "ø": "o", "ß": "ss"})
_TOKEN = re.compile(r"[a-z0-9]+")
# Between two characters (or words) of a value, the text may have any separators.
_GAP_CHARS = r"[\W_]*"
_GAP_WORDS = r"[\W_]+"
# Patterns built per value are kept: retries and the steps of an agent ask again.
_PATTERN_CACHE = 1024


def fold(text: str) -> str:
    """`text` in lower case, without accents; every other character kept."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_EXTRA))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def folded_tokens(text: str) -> list[str]:
    """The runs of letters and digits of the folded text."""
    return _TOKEN.findall(fold(text))


def find_chars(value: str, folded_text: str) -> re.Match[str] | None:
    """Where the letters and digits of `value` stand in `folded_text`, any separators
    between them (`CUS-000042` is found in `cus 000042`); None if nowhere."""
    pattern = _chars_pattern(fold(value))
    return pattern.search(folded_text) if pattern is not None else None


def find_words(value: str, folded_text: str) -> re.Match[str] | None:
    """Where the words of `value` stand in `folded_text`, any separators between the
    words but none inside one (`Ho Chi Minh` is found in `ho-chi-minh`); None if nowhere."""
    pattern = _words_pattern(fold(value))
    return pattern.search(folded_text) if pattern is not None else None


@lru_cache(maxsize=_PATTERN_CACHE)
def _chars_pattern(folded: str) -> re.Pattern[str] | None:
    chars = "".join(_TOKEN.findall(folded))
    if not chars:
        return None
    body = _GAP_CHARS.join(re.escape(c) for c in chars)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


@lru_cache(maxsize=_PATTERN_CACHE)
def _words_pattern(folded: str) -> re.Pattern[str] | None:
    words = _TOKEN.findall(folded)
    if not words:
        return None
    body = _GAP_WORDS.join(re.escape(w) for w in words)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")
