"""What feedback says about a value the conversation does not give: the field, the value,
and the nearest things the conversation does say, quoted with who said them.

`amount_vnd: 125000000 is not a number the user gave; the user wrote "12.5 million VND"
(= 12500000)`. The quotes are the ones closest to the value (in size for a number, in days
for a date, in spelling for an identifier), so a value off by a factor of ten or a digit
is shown what it should have been.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from toolcall_sdk.grounding._mentions import DateMention, NumberMention, show_number
from toolcall_sdk.grounding._policy import SourceRole
from toolcall_sdk.grounding._sources import Conversation

__all__ = ["about_date", "about_identifier", "about_number", "about_text"]

# Quotes shown per value: enough to include the right one when sizes are close; and how
# much farther than the nearest one a quote may be (a factor of ten for a number, a month
# for a date, a fifth of the characters for an identifier) to be worth showing too.
_MAX_QUOTES = 3
_NUMBER_SLACK = 1.0
_DATE_SLACK = 31.0
_IDENTIFIER_SLACK = 0.2
_WHO: dict[SourceRole, str] = {
    "user": "the user wrote",
    "tool": "a tool result says",
    "system": "the system prompt says",
    "assistant": "an earlier answer says",
}
_TOKEN = re.compile(r"[^\s\"'()\[\]{}<>,;]+")


def about_number(value: Decimal, conversation: Conversation) -> str:
    """Why a number is ungrounded, with the nearest numbers stated."""
    size = _log(value)
    ranked: list[tuple[float, int, SourceRole, str]] = []
    for order, source in enumerate(conversation.sources):
        for mention in source.facts.numbers():
            distance = min(abs(_log(v) - size) for v in mention.values)
            ranked.append((distance, order, source.role, _number_quote(mention)))
    said = _said(ranked, _NUMBER_SLACK) or "the conversation states no number"
    return f"{show_number(value)} is not a number the user gave; {said}"


def about_date(value: date, conversation: Conversation, *, relative: bool) -> str:
    """Why a date is ungrounded, with the nearest dates stated."""
    ranked: list[tuple[float, int, SourceRole, str]] = []
    for order, source in enumerate(conversation.sources):
        for mention in source.facts.dates():
            ranked.append((_days_apart(value, mention), order, source.role, _date_quote(mention)))
    said = _said(ranked, _DATE_SLACK) or "the conversation states no date"
    if relative:
        said += " (and a relative date, which the given reference date does not make this)"
    return f"{value.isoformat()} is not a date the user gave; {said}"


def about_identifier(value: str, conversation: Conversation, like: re.Pattern[str] | None) -> str:
    """Why an identifier is ungrounded, with the most similar ones the conversation has."""
    ranked: list[tuple[float, int, SourceRole, str]] = []
    seen: set[str] = set()
    for order, source in enumerate(conversation.sources):
        for token in _TOKEN.findall(source.facts.text):
            token = token.strip(".:!?")
            if token in seen or not _identifier_like(token, like):
                continue
            seen.add(token)
            score = difflib.SequenceMatcher(None, value.lower(), token.lower()).ratio()
            ranked.append((1.0 - score, order, source.role, f'"{token}"'))
    said = _said(ranked, _IDENTIFIER_SLACK) or "the conversation has no such identifier"
    return f'"{value}" is not an identifier the user gave; {said}'


def about_text(value: str) -> str:
    """Why a `Grounded()` text is ungrounded."""
    return f'"{value}" is not in the conversation; use the words the user wrote'


def _identifier_like(token: str, like: re.Pattern[str] | None) -> bool:
    if like is not None:
        return like.fullmatch(token) is not None
    return (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)) or "@" in token


def _said(ranked: Iterable[tuple[float, int, SourceRole, str]], slack: float) -> str:
    """`the user wrote "a" (= 1), "b"; a tool result says "c"`: the nearest quotes."""
    best: list[tuple[float, int, SourceRole, str]] = []
    quotes: set[str] = set()
    for item in sorted(ranked, key=lambda entry: (entry[0], entry[1])):
        if item[3] in quotes or (best and item[0] > best[0][0] + slack):
            continue
        quotes.add(item[3])
        best.append(item)
        if len(best) == _MAX_QUOTES:
            break
    parts: list[str] = []
    for role in dict.fromkeys(item[2] for item in best):
        shown = ", ".join(item[3] for item in best if item[2] == role)
        parts.append(f"{_WHO[role]} {shown}")
    return "; ".join(parts)


def _number_quote(mention: NumberMention) -> str:
    shown = show_number(mention.shown)
    return f'"{mention.quote}"' if mention.quote == shown else f'"{mention.quote}" (= {shown})'


def _date_quote(mention: DateMention) -> str:
    shown = mention.shown
    return f'"{mention.quote}"' if mention.quote == shown else f'"{mention.quote}" (= {shown})'


def _log(value: Decimal) -> float:
    magnitude = abs(value)
    return math.log10(magnitude) if magnitude else 0.0


def _days_apart(value: date, mention: DateMention) -> float:
    year = mention.year if mention.year is not None else value.year
    month = mention.month if mention.month is not None else value.month
    day = mention.day or 1
    try:
        return float(abs((date(year, month, day) - value).days))
    except ValueError:  # 29 February of a year that has none
        return math.inf
