"""The messages argument values may come from, and what each of them states.

A message's text is read once, and only for what is asked of it (its numbers when a number
is checked, its dates when a date is): `facts_of` keeps the readings of recent texts and
`conversation_of` those of recent conversations, so the retries of a call and the steps of
an agent, which send the same messages again, read only what is new. Text the SDK itself
wrote (feedback, a repeated or denied call) quotes the model's values back and never counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache
from typing import Any

from toolcall_sdk._feedback import SDK_NOTE_PREFIXES
from toolcall_sdk.grounding._dates import Relative, dates_in, relatives_in, stated_today
from toolcall_sdk.grounding._fold import Letters, fold, squeeze, words_of
from toolcall_sdk.grounding._mentions import DateMention, NumberMention
from toolcall_sdk.grounding._number_words import word_numbers
from toolcall_sdk.grounding._numbers import digit_numbers
from toolcall_sdk.grounding._policy import SourceRole

__all__ = ["Conversation", "Source", "TextFacts", "conversation_of", "facts_of"]

_ROLES: Mapping[str, SourceRole] = {
    "user": "user",
    "tool": "tool",
    "function": "tool",
    "system": "system",
    "developer": "system",
    "assistant": "assistant",
}
# Texts up to this long keep their readings (a few thousand of them): the last few turns
# of many conversations. A longer one (a big tool result) is read again when asked.
_CACHED_CHARS = 16_384
_CACHED_TEXTS = 2048


class TextFacts:
    """What one text states, each part read on first use."""

    __slots__ = (
        "_dates",
        "_folded",
        "_letters",
        "_numbers",
        "_relatives",
        "_today",
        "_values",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self._numbers: tuple[NumberMention, ...] | None = None
        self._values: frozenset[Decimal] | None = None
        self._dates: tuple[DateMention, ...] | None = None
        self._relatives: tuple[tuple[Relative, ...], bool] | None = None
        self._folded: str | None = None
        self._letters: Letters | None = None
        self._today: tuple[date | None] | None = None

    def numbers(self) -> tuple[NumberMention, ...]:
        """The numbers, in digits and in words."""
        if self._numbers is None:
            found = [*digit_numbers(self.text), *word_numbers(self.text)]
            self._numbers = tuple(sorted(found, key=lambda mention: mention.start))
        return self._numbers

    def number_values(self) -> frozenset[Decimal]:
        """Every value the numbers can mean, and the months the dates name (`January` is 1)."""
        if self._values is None:
            values = {abs(value) for mention in self.numbers() for value in mention.values}
            values.update(Decimal(m.month) for m in self.dates() if m.month is not None)
            self._values = frozenset(values)
        return self._values

    def dates(self) -> tuple[DateMention, ...]:
        """The dates written out."""
        if self._dates is None:
            self._dates = tuple(dates_in(self.text))
        return self._dates

    def relatives(self) -> tuple[tuple[Relative, ...], bool]:
        """The relative dates, and whether vague ones are there too."""
        if self._relatives is None:
            found, vague = relatives_in(self.text)
            self._relatives = (tuple(found), vague)
        return self._relatives

    def today(self) -> date | None:
        """The day the text says today is (`Today is 2026-12-01`), if it does."""
        if self._today is None:
            self._today = (stated_today(self.text),)
        return self._today[0]

    def folded(self) -> str:
        """The text folded: lower case, no accents."""
        if self._folded is None:
            self._folded = fold(self.text)
        return self._folded

    def letters(self) -> Letters:
        """The folded text's letters and digits, for identifier and word searches."""
        if self._letters is None:
            self._letters = Letters(self.folded())
        return self._letters


@lru_cache(maxsize=_CACHED_TEXTS)
def _cached_facts(text: str) -> TextFacts:
    return TextFacts(text)


def facts_of(text: str) -> TextFacts:
    """The facts of `text`, kept for the next ask when the text is not large."""
    return _cached_facts(text) if len(text) <= _CACHED_CHARS else TextFacts(text)


@dataclass(frozen=True, slots=True)
class Source:
    """One message that counts as a source, and what it states."""

    role: SourceRole
    facts: TextFacts


# Conversations whose readings are kept, joined: the retries of a call and the steps of an
# agent check against the same messages again.
_CACHED_CONVERSATIONS = 64


class Conversation:
    """The sources of one check, and what they state together, each part read on first use."""

    __slots__ = ("_dates", "_days", "_relatives", "_today", "_values", "sources")

    def __init__(self, texts: Sequence[tuple[SourceRole, str]]) -> None:
        self.sources = [Source(role, facts_of(text)) for role, text in texts]
        self._values: frozenset[Decimal] | None = None
        self._dates: tuple[DateMention, ...] | None = None
        self._days: frozenset[date] | None = None
        self._relatives: tuple[tuple[Relative, ...], bool] | None = None
        self._today: tuple[date | None] | None = None

    def states_date(self, day: date) -> bool:
        """Whether a date the sources write out can mean `day`."""
        if self._days is None:
            days = set()
            for m in self.dates():
                if m.year is not None and m.month is not None and m.day is not None:
                    days.add(date(m.year, m.month, m.day))
            self._days = frozenset(days)
        if day in self._days:
            return True
        return any(m.matches(day) for m in self.dates() if m.year is None or m.day is None)

    def number_values(self) -> frozenset[Decimal]:
        """Every number value any source states."""
        if self._values is None:
            self._values = frozenset().union(*(s.facts.number_values() for s in self.sources))
        return self._values

    def has_chars(self, value: str) -> bool:
        """Whether a source has the letters and digits of `value`, separators aside."""
        wanted = squeeze(value)
        return any(s.facts.letters().has_chars(wanted) for s in self.sources)

    def has_words(self, value: str) -> bool:
        """Whether a source has the words of `value`, separators between them aside."""
        words = words_of(value)
        return any(s.facts.letters().has_words(words) for s in self.sources)

    def contains(self, folded: str) -> bool:
        """Whether a source's folded text contains `folded` exactly."""
        return any(folded in s.facts.folded() for s in self.sources)

    def dates(self) -> tuple[DateMention, ...]:
        """Every date the sources write out."""
        if self._dates is None:
            self._dates = tuple(m for s in self.sources for m in s.facts.dates())
        return self._dates

    def relatives(self) -> tuple[tuple[Relative, ...], bool]:
        """Every relative date of the sources, and whether one of them is vague."""
        if self._relatives is None:
            read = [s.facts.relatives() for s in self.sources]
            found = tuple(phrase for phrases, _ in read for phrase in phrases)
            self._relatives = (found, any(vague for _, vague in read))
        return self._relatives

    def today(self) -> date | None:
        """The day the conversation says today is (the system prompt's first), if any."""
        if self._today is None:
            ordered = sorted(self.sources, key=lambda source: source.role != "system")
            self._today = (next((d for s in ordered if (d := s.facts.today()) is not None), None),)
        return self._today[0]


@lru_cache(maxsize=_CACHED_CONVERSATIONS)
def _cached_conversation(texts: tuple[tuple[SourceRole, str], ...]) -> Conversation:
    return Conversation(texts)


def conversation_of(
    messages: Sequence[Mapping[str, Any]], roles: AbstractSet[SourceRole]
) -> Conversation:
    """The sources among `messages` of the roles named (kept for the next ask)."""
    texts: list[tuple[SourceRole, str]] = []
    for message in messages:
        role = _ROLES.get(message.get("role"))  # type: ignore[arg-type]
        if role is None or role not in roles:
            continue
        if role == "assistant" and message.get("tool_calls"):
            continue  # an answer with calls is what is being checked, never a source
        content = message.get("content")
        for text in (content,) if isinstance(content, str) else _parts(content):
            # The SDK's notes answer calls, as tool messages (its `user` notes quote nothing).
            if text and not (role == "tool" and text.startswith(SDK_NOTE_PREFIXES)):
                texts.append((role, text))
    return _cached_conversation(tuple(texts))


def _parts(content: Any) -> Iterator[str]:
    # Content parts: only text states anything (images, prompt embeddings do not).
    if isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    yield text
