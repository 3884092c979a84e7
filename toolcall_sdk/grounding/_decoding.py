"""Grounded decoding: a forced call's values held, while it is decoded, to what was stated.

The grounding check (`_check`) finds a value the conversation never gave, after the call is
written; told so, a small model often writes the same value again (`125000000` for "12.5
million VND", three times over). Offered the choice, it picks the right one: the same
request with `amount_vnd: {"enum": [12500000, ...]}` decodes 12500000. So for a request that
forces a call (vLLM decodes `required` and named choices under the tools' schemas, a
grammar), each groundable field of each offered tool gets the values the conversation
states as an `enum`:

- a number (`integer`/`number`): every number the sources state, in every form the
  grounding check reads ("12.5 million", "1.500.000 đồng", "800k", words), with the
  policy's free numbers and the field's default, inside the field's bounds;
- a date (`format: date`): every date written out in full; a date written without its
  year ("20 December") in the reference year and the next; each relative date ("next
  Friday") resolved against the reference day (the policy's `today`, else the one the
  conversation states); none when a relative date is vague;
- an identifier (a string under a `pattern`): every token of the sources the pattern
  matches as a whole.

A field keeps its schema, unconstrained, when it has no candidate (a value the user gives in
a form no reader knows must stay writable), when it is `Derived()` or a fixed choice already,
when its kind is not in the policy, or when the candidates pass `MAX_CANDIDATES`. Only
top-level fields and nullable ones (`anyOf: [X, null]`) are constrained: nested objects keep
their schema. Under `tool_choice="auto"` nothing is sent differently (vLLM holds a free
answer to no schema).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, Final, Literal, get_args

from toolcall_sdk._results import Attempt, ToolCall
from toolcall_sdk.grounding._check import Grounder, _compiled
from toolcall_sdk.grounding._dates import resolve
from toolcall_sdk.grounding._plan import Plan, Rule
from toolcall_sdk.grounding._policy import GroundingPolicy
from toolcall_sdk.grounding._slips import is_slip_of
from toolcall_sdk.grounding._sources import Conversation, conversation_of

__all__ = [
    "DECODING_MODES",
    "MAX_CANDIDATES",
    "DecodingMode",
    "grounded_request",
    "switched_tool",
    "with_enum",
]

DecodingMode = Literal["off", "retry", "forced"]
"""When a request's values are held to the conversation's: never, on the retry after an
`ungrounded` finding, or on every request that forces a call."""
DECODING_MODES: Final[tuple[DecodingMode, ...]] = get_args(DecodingMode)

# More candidates than this say the conversation states too much to choose from (a pasted
# table): the field stays free, the check after decoding still applies. An enum this size
# is also a grammar xgrammar compiles in milliseconds.
MAX_CANDIDATES: Final = 64
# Relative dates resolve to at most a few weeks of days ("next week": seven).
_MAX_DAYS_PER_PHRASE: Final = 31
# A candidate date, as `_dates` writes it.
_ISO_DAY: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
# The digits of a number as a model copies them; `_reads_a_number`.
_PLAIN_NUMBER: Final = re.compile(r"\d+(?:\.\d+)?")
# A number in words below this ("two", "twenty") is one small models write right.
_READ_WORDS_FROM: Final = 1000


def grounded_request(
    params: dict[str, Any],
    *,
    mode: DecodingMode,
    grounder: Grounder,
    policy: GroundingPolicy,
    attempts: Sequence[Attempt] = (),
) -> tuple[dict[str, Any], list[str]]:
    """The stage-2 request with its tools' groundable fields held to stated values.

    Under every mode, `"off"` too, a forced request after an answer whose refused value was
    one reading of a date written without its year holds that field to the date's other
    reading; `"retry"` after an `ungrounded` finding, and `"forced"` always, hold every
    groundable field.

    Args:
        params: The request as built (messages, tools, tool_choice, ...); not changed.
        mode: See `DecodingMode`.
        grounder: The client's grounding plans, per tool.
        policy: Which kinds of value, which sources, the reference day.
        attempts: The step's attempts so far (`retry` looks at the last one).

    Returns:
        The request to send (the same object when nothing is constrained) and one
        `tool:/field` per constrained field.
    """
    if params.get("tool_choice") in (None, "auto", "none"):
        return params, []
    every = mode == "forced" or (
        mode == "retry"
        and bool(attempts)
        and any(problem.kind == "ungrounded" for problem in attempts[-1].problems)
    )
    # Whatever the mode, a forced retry holds the fields whose refused value was one reading
    # of a date written without its year (a validator's "must not be in the past"): told, a
    # small model writes the same value again; held to the date's other reading, it takes it.
    only = None if every else _refused(attempts[-1:])
    if only is not None and not only:
        return params, []
    refused = _refused(attempts)
    conversation = conversation_of(params.get("messages") or (), policy.sources)
    tools: list[Any] = []
    constrained: list[str] = []
    for entry in params.get("tools") or ():
        function = entry.get("function") if isinstance(entry, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        parameters = function.get("parameters") if isinstance(function, Mapping) else None
        if not isinstance(name, str) or not isinstance(parameters, Mapping) or function is None:
            tools.append(entry)
            continue
        if only is not None and name not in only:
            tools.append(entry)
            continue
        held, fields = _held(
            parameters,
            grounder.plan(name),
            conversation,
            policy,
            refused.get(name, {}),
            only=None if only is None else only[name].keys(),
        )
        if not fields:
            tools.append(entry)
            continue
        tools.append({**entry, "function": {**function, "parameters": held}})
        constrained += [f"{name}:/{field}" for field in fields]
    if not constrained:
        return params, []
    return {**params, "tools": tools}, constrained


def switched_tool(calls: Sequence[ToolCall], attempts: Sequence[Attempt]) -> bool:
    """Whether a retry's answer (`attempts[-1]`) calls a tool the rejected answer before it
    did not: the answer that replaced a call with another is held to the conversation.

    An answer that follows one with no call at all (or none before), or one that called
    only tools nobody offered, switches nothing.
    """
    if len(attempts) < 2:
        return False
    before = attempts[-2]
    raw = before.raw_message.get("tool_calls") or ()
    named = {
        str((call.get("function") or {}).get("name"))
        for call in raw
        if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping)
    }
    named |= {p.tool_name for p in before.problems if p.tool_name}
    # A call to a tool that was not offered had to be replaced: that is no switch.
    named -= {p.tool_name for p in before.problems if p.kind == "unknown_tool"}
    return bool(named) and any(call.name not in named for call in calls)


def _refused(attempts: Sequence[Attempt]) -> dict[str, dict[str, list[Any]]]:
    """The values the step's answers had refused, by tool and top-level field.

    A candidate validation or the check refused is not offered again: "due July 22" offers
    2026-07-22 and 2027-07-22, the model takes the first, a validator says it is in the
    past, and the retry is held to the other.
    """
    refused: dict[str, dict[str, list[Any]]] = {}
    for attempt in attempts:
        for problem in attempt.problems:
            if problem.tool_name is None:
                continue
            for error in problem.fields:
                if error.value is not None and "." not in error.field:
                    by_field = refused.setdefault(problem.tool_name, {})
                    by_field.setdefault(error.field, []).append(error.value)
    return refused


def _held(
    parameters: Mapping[str, Any],
    plan: Plan,
    conversation: Conversation,
    policy: GroundingPolicy,
    refused: Mapping[str, list[Any]],
    *,
    only: Collection[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return dict(parameters), []
    held: dict[str, Any] = {}
    fields: list[str] = []
    for field, schema in properties.items():
        if only is not None and field not in only:
            held[field] = schema
            continue
        rule = plan.get((field,))
        values = _candidates(schema, rule, conversation, policy)
        if values is not None and field in refused:
            values = _after_refusal(values, refused[field], readings_only=only is not None)
        if values is None:
            held[field] = schema
            continue
        held[field] = with_enum(schema, values)
        fields.append(field)
    if not fields:
        return dict(parameters), []
    out = copy.deepcopy(dict(parameters))
    out["properties"] = held
    return out, fields


def _after_refusal(
    values: list[Any], refused: Sequence[Any], *, readings_only: bool
) -> list[Any] | None:
    """The candidates left once the refused values are out; None when none is left.

    A refused date that is one reading of a date written without its year ("July 22":
    2026-07-22 and 2027-07-22) leaves its other readings only: offered every stated date
    less the refused one, the 0.5B took the reference day the system prompt states. A
    refused value one slip away from a stated one (`_slips`) leaves that stated value. With
    `readings_only` (the hold grounded decoding's `"off"` makes) nothing else is left:
    "received ... on 09/11/2026" as a due date, refused as past, held to the other stated
    dates, became the reference day, and a wrong call ran where none had.
    """
    left = [value for value in values if not _among(value, refused)]
    days = {
        str(value)[4:]
        for value in values
        if _among(value, refused) and isinstance(value, str) and _ISO_DAY.fullmatch(value)
    }
    others = [value for value in left if isinstance(value, str) and value[4:] in days]
    # A refused 25000000 for a stated 2500000, a refused 2027-11-01 for "11 January 2027":
    # the value it slipped from (`_slips`).
    slipped_from = [value for value in left if any(is_slip_of(r, value) for r in refused)]
    if readings_only:
        return others or slipped_from or None
    return others or slipped_from or left or None


def _among(value: Any, refused: Sequence[Any]) -> bool:
    return any(value == r or str(value) == str(r) for r in refused)


def _candidates(
    schema: Any, rule: Rule | None, conversation: Conversation, policy: GroundingPolicy
) -> list[Any] | None:
    """The values the field may take, or None to leave it free."""
    if rule is not None and (rule.mark == "derived" or rule.choices):
        return None
    branch = _value_branch(schema)
    if branch is None or "enum" in branch or "const" in branch:
        return None
    kind = branch.get("type")
    values: list[Any]
    if kind in ("integer", "number") and "number" in policy.kinds:
        values = _numbers(branch, kind, conversation, policy, rule)
    elif kind == "string" and branch.get("format") == "date" and "date" in policy.kinds:
        values = _dates(conversation, policy)
    elif (
        kind == "string"
        and isinstance(branch.get("pattern"), str)
        and ("identifier" in policy.kinds)
    ):
        values = _identifiers(branch["pattern"], conversation)
    else:
        return None
    if not values or len(values) > MAX_CANDIDATES:
        return None
    return values


def _value_branch(schema: Any) -> Mapping[str, Any] | None:
    """The schema of the field's value: itself, or the one non-null branch of a nullable."""
    if not isinstance(schema, Mapping):
        return None
    options = schema.get("anyOf")
    if options is None:
        return schema
    if not isinstance(options, list):
        return None
    values = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
    if len(values) != 1 or not isinstance(values[0], Mapping):
        return None
    return values[0]


def with_enum(schema: Mapping[str, Any], values: list[Any]) -> dict[str, Any]:
    options = schema.get("anyOf")
    if options is None:
        return {**schema, "enum": values}
    return {
        **schema,
        "anyOf": [
            o if isinstance(o, Mapping) and o.get("type") == "null" else {**o, "enum": values}
            for o in options
        ],
    }


def _numbers(
    schema: Mapping[str, Any],
    kind: str,
    conversation: Conversation,
    policy: GroundingPolicy,
    rule: Rule | None,
) -> list[Any]:
    if not _reads_a_number(conversation):
        return []  # every number is written as plain digits: nothing to hold (see below)
    stated: set[Decimal] = set(conversation.number_values())
    stated |= {Decimal(str(n)) for n in policy.free_numbers}
    default = rule.default if rule is not None else None
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        stated.add(Decimal(str(default)))
    out: list[Any] = []
    for value in sorted(stated):
        if kind == "integer" and value != value.to_integral_value():
            continue
        if not _within(value, schema):
            continue
        out.append(int(value) if value == value.to_integral_value() else float(value))
    return out


def _reads_a_number(conversation: Conversation) -> bool:
    """Whether some number of the sources is written in a form the model must read: a scale
    word or suffix (`12.5 million`, `800k`), grouping marks (`1.500.000`), words from a
    thousand up (`one million`; "two notes" is read right).

    Those are the numbers small models write wrong (125000000 for "12.5 million"). A number
    written as plain digits is copied; where every number is, holding a field to them only
    takes away the values the model knows or works out (BFCL's speed of light, a tempo of
    120 where the question states 440 and 880: held, the 0.5B wrote 1, a free number).
    """
    for source in conversation.sources:
        for mention in source.facts.numbers():
            plain = _PLAIN_NUMBER.search(mention.quote)
            if plain is None and abs(mention.shown) >= _READ_WORDS_FROM:
                return True
            if plain is not None and Decimal(plain.group()) != abs(mention.shown):
                return True
    return False


def _within(value: Decimal, schema: Mapping[str, Any]) -> bool:
    def bound(key: str) -> Decimal | None:
        given = schema.get(key)
        if isinstance(given, (int, float)) and not isinstance(given, bool):
            return Decimal(str(given))
        return None

    low, high = bound("minimum"), bound("maximum")
    above, below = bound("exclusiveMinimum"), bound("exclusiveMaximum")
    return not (
        (low is not None and value < low)
        or (high is not None and value > high)
        or (above is not None and value <= above)
        or (below is not None and value >= below)
    )


def _dates(conversation: Conversation, policy: GroundingPolicy) -> list[Any]:
    found, vague = conversation.relatives()
    if vague:
        return []
    reference = policy.today() or conversation.today()
    days: set[date] = set()
    for mention in conversation.dates():
        if mention.month is None or mention.day is None:
            continue
        years: Iterable[int | None] = (
            (mention.year,)
            if mention.year is not None
            else ((reference.year, reference.year + 1) if reference is not None else ())
        )
        for year in years:
            assert year is not None
            try:
                days.add(date(year, mention.month, mention.day))
            except ValueError:  # 29 February in a common year
                continue
    if found and reference is not None:
        for phrase in found:
            for index, day in enumerate(resolve(phrase, reference)):
                if index >= _MAX_DAYS_PER_PHRASE:
                    break
                days.add(day)
    elif found:
        return []  # "tomorrow" with no reference day: no date can be offered for it
    return [day.isoformat() for day in sorted(days)]


def _identifiers(pattern: str, conversation: Conversation) -> list[Any]:
    compiled = _compiled(pattern)
    if compiled is None:
        return []
    whole = re.compile(rf"(?<![\w-])(?:{compiled.pattern})(?![\w-])")
    found: dict[str, None] = {}
    for source in conversation.sources:
        for match in whole.finditer(source.facts.text):
            found.setdefault(match.group(0))
    return list(found)
