"""The grounding check: each validated call's values against what the conversation says.

Runs after the schema (a value here is already well-typed) and before anything executes.
Each value gets a kind from its type, its schema and its shape:

- a number, or a string that is one: grounded when a number the conversation states has
  it among its readings (`12.5 million VND` reads 12500000);
- a date, a date-time or an ISO date string (or one in the layout its description asks
  for, `mm-dd-yyyy`): when a stated date can mean it, or, given a reference date, a
  relative one (`tomorrow`);
- a string under a `pattern`, or shaped like an id (`CUS-000042`), an e-mail or a URL: an
  identifier, grounded when found as written, letter case and separators aside;
- any other string is free text: not checked, unless its field is marked `Grounded()`;
- booleans, `enum`/`const` choices and a field's default are never checked.

A call with an ungrounded value is rejected as a whole: one `ungrounded` problem, one
field error per value, and the call does not run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from enum import Enum
from functools import lru_cache
from typing import Any
from uuid import UUID

from pydantic_core import PydanticUndefined

from toolcall_sdk._feedback import fields_summary
from toolcall_sdk._limits import MAX_QUOTED_VALUE_CHARS, shorten
from toolcall_sdk._results import FieldError, Problem, ToolCall
from toolcall_sdk._tools import Tool
from toolcall_sdk.grounding._dates import resolve
from toolcall_sdk.grounding._explain import about_date, about_identifier, about_number, about_text
from toolcall_sdk.grounding._fold import fold
from toolcall_sdk.grounding._markers import ANY_ITEM, Mark
from toolcall_sdk.grounding._numbers import digit_numbers
from toolcall_sdk.grounding._plan import Plan, Rule, plan_for
from toolcall_sdk.grounding._policy import GroundingPolicy
from toolcall_sdk.grounding._sources import Conversation, conversation_of

__all__ = ["Grounder", "kind_of"]

_ISO_DATE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)
_NUMERIC = re.compile(r"[-+]?\d[\d,._ ]*%?")
_SPACE = re.compile(r"\s")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+", re.IGNORECASE)
# Letters and digits mixed, in one piece: `CUS-000042`, `INV-2024-77`, `SKU12345`, a UUID.
_CODE = re.compile(r"(?=\S*\d)(?=\S*[A-Za-z])[A-Za-z0-9]+(?:[-_./:#][A-Za-z0-9]+)*")
_MIN_CODE = 4  # shorter mixes (`3D`, `mp3`, `v2`) are words more often than ids
_MAX_CODE = 4  # letters-only values this short are codes for names (`EUR`, `CA`)
_IDENTIFIER_FORMATS = frozenset({"email", "idn-email", "uri", "url", "iri", "uuid", "hostname"})
_DATE_FORMATS = frozenset({"date", "date-time"})
_MAX_STRING = 2_000  # a longer string is text (a body, a document), never an identifier


def kind_of(value: Any, rule: Rule | None, *, forced: bool = False) -> str | None:
    """The kind of a value (`number`, `date`, `identifier`, `text`), None when unchecked.

    `text` only comes back when `forced` (a `Grounded()` field): free text is not checked.
    """
    if value is None or isinstance(value, (bool, Enum)):
        return None
    if rule is not None and (
        rule.choices or (rule.default is not PydanticUndefined and _is_default(value, rule))
    ):
        return None
    if isinstance(value, (int, float, Decimal)):
        return "number"
    if isinstance(value, (date, datetime)):
        return "date"
    if isinstance(value, UUID):
        return "identifier"
    if not isinstance(value, str) or not value.strip():
        return None
    return _string_kind(value, rule) or ("text" if forced else None)


def _string_kind(value: str, rule: Rule | None) -> str | None:
    fmt = rule.format if rule is not None else None
    if fmt in _DATE_FORMATS or _ISO_DATE.fullmatch(value):
        return "date"
    if rule is not None and rule.layout is not None and rule.layout.read(value) is not None:
        return "date"  # `06-01-2023` where the description asks for mm-dd-yyyy
    if len(value) > _MAX_STRING:
        return None
    if _SPACE.search(value) is not None:  # words: text, unless a number (`1 500 000`)
        return "number" if _NUMERIC.fullmatch(value.strip()) else None
    if fmt in _IDENTIFIER_FORMATS:
        return "identifier"
    if rule is not None and rule.pattern and not _is_code(value):
        return "identifier"
    if _looks_like_identifier(value):
        return "identifier"
    if _NUMERIC.fullmatch(value.strip()):
        return "number"
    return None


def _is_default(value: Any, rule: Rule) -> bool:
    default = rule.default
    if default is PydanticUndefined or default is None:
        return False
    if isinstance(value, (int, float, Decimal)) and isinstance(default, (int, float, Decimal)):
        return _decimal(value) == _decimal(default)
    try:
        return bool(value == default)
    except Exception:  # a default without a usable equality
        return False


def _is_code(value: str) -> bool:
    """`EUR`, `CA`, `en`, `SGN`: a short code of letters, which a model writes for the name
    the user wrote (euros, California), not a value to copy."""
    return len(value) <= _MAX_CODE and value.isalpha()


def _looks_like_identifier(value: str) -> bool:
    if _EMAIL.fullmatch(value) or _URL.fullmatch(value):
        return True
    return len(value) >= _MIN_CODE and _CODE.fullmatch(value) is not None


class Grounder:
    """The grounding check of one client's tools; each tool's plan is built on first use."""

    def __init__(
        self, tools: Mapping[str, Tool[..., Any]], schemas: Mapping[str, Mapping[str, Any]]
    ) -> None:
        self._tools = tools
        self._schemas = schemas
        self._plans: dict[str, Plan] = {}

    def plan(self, name: str) -> Plan:
        """The rules of tool `name`'s fields."""
        plan = self._plans.get(name)
        if plan is None:
            tool = self._tools[name]
            entry = self._schemas.get(name) or {}
            parameters = (entry.get("function") or {}).get("parameters") or {}
            plan = plan_for(tool.args_model, parameters)
            self._plans[name] = plan
        return plan

    def check(
        self,
        calls: Sequence[ToolCall],
        messages: Sequence[Mapping[str, Any]],
        policy: GroundingPolicy,
    ) -> tuple[list[ToolCall], list[Problem]]:
        """Split validated calls into grounded ones and an `ungrounded` problem per other.

        Args:
            calls: The calls that passed the schema.
            messages: The conversation the calls answer (the request's messages).
            policy: What to check and where to look.
        """
        conversation: Conversation | None = None
        grounded: list[ToolCall] = []
        problems: list[Problem] = []
        for call in calls:
            if conversation is None:
                conversation = conversation_of(messages, policy.sources)
            check = _CallCheck(self.plan(call.name), conversation, policy)
            data = call.arguments.model_dump(by_alias=True, exclude_unset=True)
            check.value(data, (), (), None)
            if not check.errors:
                grounded.append(call)
                continue
            fields = tuple(check.errors)
            problems.append(
                Problem(
                    kind="ungrounded",
                    message=fields_summary(fields),
                    tool_name=call.name,
                    call_id=call.id,
                    raw_arguments=call.raw_arguments,
                    fields=fields,
                )
            )
        return grounded, problems


class _CallCheck:
    """The walk over one call's arguments."""

    def __init__(self, plan: Plan, conversation: Conversation, policy: GroundingPolicy) -> None:
        self.plan = plan
        self.conversation = conversation
        self.policy = policy
        self.errors: list[FieldError] = []

    def value(
        self, value: Any, path: tuple[str, ...], where: tuple[str, ...], inherited: Mark | None
    ) -> None:
        rule = self.plan.get(path) if path else None
        mark = rule.mark if rule is not None and rule.mark is not None else inherited
        if mark == "derived":
            return
        # `model_dump` gives plain dicts and lists: exact type tests are the cheap ones.
        kind_of_value = type(value)
        if kind_of_value is dict:
            for key, item in value.items():
                self.value(item, (*path, key), (*where, key), mark)
            return
        if kind_of_value is list or kind_of_value is tuple or kind_of_value is set:
            for index, item in enumerate(value):
                self.value(item, (*path, ANY_ITEM), (*where, str(index)), mark)
            return
        forced = mark == "grounded"
        kind = kind_of(value, rule, forced=forced)
        if kind is None or not (forced or kind in self.policy.kinds):
            return
        why = self._why_ungrounded(kind, value, rule)
        if why is not None:
            self.errors.append(FieldError(field=".".join(where), message=why, value=value))

    def _why_ungrounded(self, kind: str, value: Any, rule: Rule | None) -> str | None:
        if kind == "number":
            return self._number(value)
        if kind == "date":
            return self._date(value, rule)
        if kind == "identifier":
            return self._identifier(str(value), rule)
        return self._text(str(value))

    def _number(self, value: Any) -> str | None:
        free = self.policy.free_numbers
        stated = self.conversation.number_values()
        if not isinstance(value, str):
            number = _decimal(value)
            if number is None or abs(number) in free or abs(number) in stated:
                return None
            return about_number(number, self.conversation)
        if self._found(value):  # an id made of digits, written as it was given
            return None
        readings = next(iter(digit_numbers(value)), None)
        if readings is None:
            return None
        candidates = {abs(v) for v in readings.values}
        if candidates & free or candidates & stated:
            return None
        return about_number(readings.shown, self.conversation)

    def _date(self, value: Any, rule: Rule | None) -> str | None:
        day = _date_of(value)
        if day is None and isinstance(value, str) and rule is not None and rule.layout:
            day = rule.layout.read(value)
        if day is None:
            return None
        conversation = self.conversation
        if conversation.states_date(day):
            return None
        found, vague = conversation.relatives()
        if vague:
            return None  # `in a few days`: no date can be pinned down
        if found:
            reference = self.policy.today() or conversation.today()
            if reference is None:
                return None  # `tomorrow` with no reference date: not checked
            if any(day in resolve(phrase, reference) for phrase in found):
                return None
        return about_date(day, conversation, relative=bool(found))

    def _identifier(self, value: str, rule: Rule | None) -> str | None:
        if self._found(value):
            return None
        prefix = rule.prefix if rule is not None else ""
        # `CUS-` comes from the schema: the user may give only the rest (`customer 522827`).
        if prefix and value.lower().startswith(prefix.lower()):
            rest = value[len(prefix) :]
            if any(c.isalnum() for c in rest) and self._given_rest(rest, prefix):
                return None
            # The pattern's width pads the number: `customer 42` is `CUS-000042`.
            if rest.isdigit() and rest.strip("0") and self._given_rest(rest.lstrip("0"), prefix):
                return None
        like = _compiled(rule.pattern) if rule is not None and rule.pattern else None
        return about_identifier(shorten(value, MAX_QUOTED_VALUE_CHARS), self.conversation, like)

    def _given_rest(self, rest: str, prefix: str) -> bool:
        return self._found(rest) and not self._under_other_prefix(rest, prefix)

    def _under_other_prefix(self, rest: str, prefix: str) -> bool:
        """Whether `rest` stands in the conversation only as the end of an identifier with
        another prefix: `INV-638256` is no invoice the user gave when all the user wrote is
        the customer `CUS-638256` (the 0.5B, told its `CUS-638256` is no invoice id, wrote
        `INV-638256`). A bare `638256`, or one after a word (`customer 638256`), is given."""
        letters = "".join(c for c in fold(prefix) if c.isalpha())
        glued = re.compile(rf"(?<![\w.-])(?:([a-z]+)[-_#:/.]?)?{re.escape(fold(rest))}(?![\w-])")
        heads = [
            match[1]
            for source in self.conversation.sources
            for match in glued.finditer(source.facts.folded())
        ]
        return bool(heads) and all(head is not None and head != letters for head in heads)

    def _found(self, value: str) -> bool:
        if _EMAIL.fullmatch(value) or _URL.fullmatch(value):
            # Every character of an address matters: `a.b@x.com` is not `ab@x.com`.
            return self.conversation.contains(fold(value).rstrip("/"))
        return self.conversation.has_chars(value)

    def _text(self, value: str) -> str | None:
        if self.conversation.has_words(value):
            return None
        return about_text(shorten(value, MAX_QUOTED_VALUE_CHARS))


def _decimal(value: int | float | Decimal) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    try:
        return Decimal(
            repr(value)
        )  # 0.15, not 0.1499999999999999944488848768742172978818416595458984375
    except InvalidOperation:
        return None


def _date_of(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        match = _ISO_DATE.match(value.strip())
        if match is not None:
            try:
                return date(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                return None
    return None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern.removeprefix("^").removesuffix("$"))
    except re.error:  # ECMA-only syntax: list id-like tokens instead
        return None
