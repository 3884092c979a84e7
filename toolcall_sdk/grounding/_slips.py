"""Values one slip away from a value the conversation states.

Qwen2.5-Coder-0.5B writes 25000000 for "2.5 million đồng", 4500000 for "45 million" and
2027-11-01 for "11 January 2027": a zero too many or too few, a date with its day and month
swapped. Every schema accepts them, and with the grounding check off (the client's default)
nothing refused them.

So whatever `grounding=` says, an answer with such a value gets the check for its kind:

- a number of 1,000 or more that the conversation does not state, where a stated number
  times 10 (or divided by 10) gives it, and the conversation states no 10 ("10%", "split
  among 10") that could make it right. Not 100: a right answer writes "$45" as 4500 where
  the field asks for cents (BFCL `live_multiple`), and held to the stated 45 it would be a
  wrong call;
- a date the conversation does not state, where the same date with its day and month
  swapped is stated.

The value is then `ungrounded`, fed back, and a forced retry is held to the stated value it
slipped from (`_decoding`): told, the 0.5B writes the same value again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, Final

from toolcall_sdk._results import Problem, ToolCall
from toolcall_sdk.grounding._check import _date_of, _decimal
from toolcall_sdk.grounding._policy import GroundingPolicy, ValueKind
from toolcall_sdk.grounding._sources import Conversation, conversation_of

__all__ = ["is_slip_of", "slip_policy", "slipped"]

# Below this a tenth or ten times a stated number is too often a right computed value
# ("10% of 5000", a price per piece).
MIN_SLIP_NUMBER: Final = Decimal(1000)
# Where a slipped-from value may be stated: the check's default sources.
_SOURCES: Final = GroundingPolicy().sources
# The zeros a small model adds to or drops from an amount: one.
FACTORS: Final = (Decimal(10),)


def slip_policy(
    calls: Sequence[ToolCall], messages: Sequence[Mapping[str, Any]]
) -> GroundingPolicy | None:
    """The check for the kinds of value the calls slipped on, or None when none slipped.

    Args:
        calls: The answer's validated calls.
        messages: The conversation the calls answer (the request's messages).
    """
    conversation = conversation_of(messages, _SOURCES)  # each part read on first use
    kinds: set[ValueKind] = set()
    for call in calls:
        data = call.arguments.model_dump(mode="json", by_alias=True, exclude_unset=True)
        for value in _leaves(data):
            kind = _slipped(value, conversation)
            if kind is not None:
                kinds.add(kind)
    return GroundingPolicy(kinds=frozenset(kinds)) if kinds else None


def slipped(problems: Sequence[Problem], messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether an `ungrounded` problem's value is one slip from a stated value: the answer
    meant to call, so its retry is forced and held, never free to answer in text."""
    conversation = conversation_of(messages, _SOURCES)
    return any(
        _slipped(error.value, conversation) is not None
        for problem in problems
        if problem.kind == "ungrounded"
        for error in problem.fields
    )


def is_slip_of(value: Any, stated: Any) -> bool:
    """Whether `value` is `stated` with one slip: `stated` times or divided by one of
    `FACTORS` (`value` 1,000 or more), or the same ISO date with day and month swapped."""
    number, other = _number(value), _number(stated)
    if number is not None and other is not None:
        return number >= MIN_SLIP_NUMBER and any(
            number in (other * factor, other / factor) for factor in FACTORS
        )
    day, other_day = _date_of(value), _date_of(stated)
    return day is not None and other_day is not None and _swapped(day) == other_day


def _slipped(value: Any, conversation: Conversation) -> ValueKind | None:
    number = _number(value)
    if number is not None:
        stated = conversation.number_values()
        if number < MIN_SLIP_NUMBER or number in stated:
            return None
        for factor in FACTORS:
            if factor not in stated and (number * factor in stated or number / factor in stated):
                return "number"
        return None
    day = _date_of(value)
    if day is not None and not conversation.states_date(day):
        swapped = _swapped(day)
        if swapped is not None and conversation.states_date(swapped):
            return "date"
    return None


def _number(value: Any) -> Decimal | None:
    number = _decimal(value) if isinstance(value, int | float) else None
    return None if number is None or not number.is_finite() else abs(number)


def _swapped(day: date) -> date | None:
    if day.day == day.month or day.day > 12:
        return None
    return date(day.year, day.day, day.month)


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value
