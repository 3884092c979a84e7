"""What the grounding check looks at: the kinds of value, the messages, the reference date.

`grounding=` (a client option and a per-call one) takes `False` (no check), `True` (the
default policy) or a `GroundingPolicy`; `resolve_grounding` turns any of them into a policy
or None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date
from typing import Literal, get_args

from toolcall_sdk._errors import InvalidArgumentError

__all__ = [
    "CHOICES",
    "DEFAULT_POLICY",
    "FULL_POLICY",
    "KINDS",
    "ROLES",
    "GroundingPolicy",
    "GroundingSpec",
    "SourceRole",
    "ValueKind",
    "named_grounding",
    "resolve_grounding",
]

ValueKind = Literal["identifier", "number", "date"]
SourceRole = Literal["user", "tool", "system", "assistant"]
KINDS: tuple[ValueKind, ...] = get_args(ValueKind)
ROLES: tuple[SourceRole, ...] = get_args(SourceRole)


@dataclass(frozen=True, slots=True)
class GroundingPolicy:
    """Which argument values must be found in the conversation, and where to look.

    Attributes:
        kinds: The kinds of value checked: `"identifier"` (a string under a `pattern`, or
            one shaped like `CUS-000042`, an e-mail address or a URL: found as written,
            letter case and separators aside), `"number"` (a number the conversation
            states, in any common written form), `"date"` (a date it states). A field
            marked `Grounded()` is checked whatever its kind; one marked `Derived()`
            never is.
        sources: The messages values may come from: `"user"`, `"tool"` (results of
            earlier calls) and `"system"` (the system or developer prompt, where an
            application states the signed-in customer or today's date), by default.
            `"assistant"` adds the assistant's earlier text answers (never a message
            with calls), for applications that send the history without its tool
            results; a value the model made up in an earlier answer then passes.
        reference_date: The day relative dates count from (`tomorrow`, `next Friday`,
            `in 3 days`), or a function returning it (`date.today`). Without it, the
            day the conversation states (`Today is 2026-12-01.` in the system prompt) is
            used; with neither, a conversation with a relative date leaves date values
            unchecked.
        free_numbers: Numbers accepted without a source. 0 and 1 by default: a call
            says "one" where the user says "a room", "the first page", "none".
    """

    kinds: AbstractSet[ValueKind] = frozenset(KINDS)
    sources: AbstractSet[SourceRole] = frozenset({"user", "tool", "system"})
    reference_date: date | Callable[[], date] | None = None
    free_numbers: AbstractSet[int | float] = frozenset({0, 1})

    def __post_init__(self) -> None:
        kinds = _names("kinds", self.kinds, KINDS)
        sources = _names("sources", self.sources, ROLES)
        if not isinstance(self.free_numbers, Iterable):
            raise InvalidArgumentError("free_numbers must be a set of numbers")
        numbers = frozenset(self.free_numbers)
        if any(isinstance(n, bool) or not isinstance(n, (int, float)) for n in numbers):
            raise InvalidArgumentError(f"free_numbers must hold numbers (got {set(numbers)!r})")
        reference = self.reference_date
        if reference is not None and not (isinstance(reference, date) or callable(reference)):
            raise InvalidArgumentError(
                "reference_date must be a date or a function returning one, e.g. date.today"
            )
        # Frozen: the normalized values are set the way dataclasses set them.
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "free_numbers", numbers)

    def today(self) -> date | None:
        """The reference date now, if there is one."""
        reference = self.reference_date
        if reference is None or isinstance(reference, date):
            return reference
        value = reference()
        if not isinstance(value, date):
            raise InvalidArgumentError(f"reference_date() must return a date (got {value!r})")
        return value


def _names(option: str, given: Iterable[str], known: tuple[str, ...]) -> frozenset[str]:
    if isinstance(given, str) or not isinstance(given, Iterable):
        raise InvalidArgumentError(
            f"{option} must be a set of names, e.g. {{{', '.join(map(repr, known))}}}"
        )
    names = frozenset(given)
    unknown = sorted(map(str, names - set(known)))
    if unknown:
        raise InvalidArgumentError(
            f"unknown {option} {', '.join(map(repr, unknown))}; use {', '.join(map(repr, known))}"
        )
    return names


FULL_POLICY = GroundingPolicy()
"""What `grounding=True` checks: identifiers, numbers and dates."""

DEFAULT_POLICY = GroundingPolicy(kinds=frozenset({"identifier", "date"}))
"""Identifiers and dates: `grounding=DEFAULT_POLICY`, `--grounding default` (a client
left without `grounding=` checks nothing). On BFCL's right answers these two bounce 0.2%
of the calls, numbers another 2.3 points (docs/grounding.md): numbers are checked when
asked for, with `grounding=True`."""

GroundingSpec = bool | GroundingPolicy


def resolve_grounding(value: object, option: str = "grounding") -> GroundingPolicy | None:
    """The policy `value` asks for: None for False, every kind for True.

    Raises:
        InvalidArgumentError: Anything but a bool or a `GroundingPolicy`.
    """
    if value is False:
        return None
    if value is True:
        return FULL_POLICY
    if isinstance(value, GroundingPolicy):
        return value
    raise InvalidArgumentError(
        f"{option} must be True, False or a GroundingPolicy (got {value!r}), e.g. "
        "GroundingPolicy(kinds={'identifier', 'number'})"
    )


CHOICES: dict[str, GroundingPolicy | None] = {
    "default": DEFAULT_POLICY,
    "all": FULL_POLICY,
    "off": None,
}
"""The policies a command line names (`--grounding default|all|off`)."""


def named_grounding(name: str) -> GroundingPolicy | None:
    """The policy a command line names.

    Raises:
        InvalidArgumentError: A name not in `CHOICES`.
    """
    if name not in CHOICES:
        raise InvalidArgumentError(
            f"--grounding must be one of {', '.join(CHOICES)} (got {name!r}): default checks "
            "identifiers and dates, all adds numbers, off checks nothing"
        )
    return CHOICES[name]
