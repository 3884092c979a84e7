"""Folding near-duplicate traffic entries into one group, reviewed (and written) once.

Real traffic repeats itself: the same request from a template, a retry after a timeout, the
same question about another order number. Two entries fold together when they have

- the same tools (the definitions, not only the names: a changed schema is another test),
- the same last user message once normalised (`normalise`: Unicode compatibility forms,
  case, runs of whitespace, every run of digits counted as one digit, and the punctuation
  that ends a sentence), and
- the same outcome class (`TrafficEntry.outcome_class`).

The last condition is deliberate: a request that was called cleanly twice and failed once
gives two groups, because the failure is the one a reviewer wants to see and the clean calls
are a ground truth that needs no one. Folding over digits means `order 1042` and
`order 1077` are one group: the case keeps the representative's own messages and calls, so
it stays consistent; the count says how often such a request came.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolcall_sdk._messages import content_text
from toolcall_sdk.evals._traffic import TrafficEntry

__all__ = ["EntryGroup", "fold", "fold_key", "last_user_text", "normalise"]

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
_END = ".?!…"


@dataclass(frozen=True, slots=True)
class EntryGroup:
    """Near-duplicate entries; the first (the oldest) stands for them all.

    Attributes:
        entries: The entries, oldest first.
    """

    entries: tuple[TrafficEntry, ...]

    @property
    def entry(self) -> TrafficEntry:
        """The representative: its messages and calls become the case."""
        return self.entries[0]

    @property
    def count(self) -> int:
        """How many entries the group folds."""
        return len(self.entries)


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the last user message (text parts joined), or "" when there is none."""
    for message in reversed(messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def normalise(text: str) -> str:
    """The form two requests are compared in (see the module's docstring)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _DIGITS.sub("0", folded)
    return _SPACE.sub(" ", folded).strip().rstrip(_END).strip()


def fold_key(entry: TrafficEntry) -> tuple[str, str, str]:
    """What near-duplicates share: tools, normalised last user message, outcome class."""
    tools = json.dumps(sorted(json.dumps(t, sort_keys=True) for t in entry.tools))
    return tools, normalise(last_user_text(entry.messages)), entry.outcome_class


def fold(entries: Iterable[TrafficEntry]) -> list[EntryGroup]:
    """Group near-duplicates; groups in the order of their oldest entry.

    Args:
        entries: Oldest first (as `read_traffic` gives them).
    """
    groups: dict[tuple[str, str, str], list[TrafficEntry]] = {}
    for entry in entries:
        groups.setdefault(fold_key(entry), []).append(entry)
    return [EntryGroup(tuple(members)) for members in groups.values()]
