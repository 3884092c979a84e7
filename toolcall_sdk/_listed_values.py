"""Values a request lists beside the one a call used: the calls an answer left out.

Asked for several calls in one request ("Play songs from Taylor Swift and Maroon 5", "the
factorial of 5, 10 and 15", "6 feet and 80 kg, also 5.6 feet and 60 kg"), the small demo
models write one call and stop (BFCL `parallel`: one call for nearly every request, under
`auto` and forced alike; an instruction to write one call per item changed none of 8). The
call they write is right; the others are missing.

This module finds, for each argument a call took from the request's text, the values the
text lists beside it that no call of the answer used:

- an enumeration right after the value, closed by "and" or "or": `V, W and X`, `V and W`,
  `V or W`, with a number's unit allowed between (`20 minutes and 15 minutes`); a list
  of commas alone is no enumeration ("Miami, Florida", "C4, 16 measures long");
- for a number with a unit word after it (`6 feet`, `20 minutes`), every other number the
  text writes with that same unit, "and" or "or" between them. A currency sign alone is
  no such unit: "$500 to Alice and the $20 fee" lists one transfer.

A string sibling is a phrase of at most one word more than the value that ends there (at a
stop, the end, or a function word), does not open with a function word ("their", "the",
"then", ...), is capitalised when the value is and has digits when the value has; a phrase
followed by an article, "of" or "to" is a verb and its object or the head of another phrase
("due 2026-12-20 and send it", "height of 5 units"). A value any call used, or a string
holding one or held by one ("Washington" beside "Washington, D.C."), is not missing. The
request is the last user message; tool results and earlier turns are not read. Nothing
here decides that more calls are right: `_completion` asks the model and checks its answer.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from toolcall_sdk._messages import content_text
from toolcall_sdk._results import FieldError, Problem, ToolCall
from toolcall_sdk.grounding._decoding import with_enum

__all__ = [
    "LISTED_VALUES",
    "ListedValues",
    "MissingCall",
    "call_arguments",
    "item_request",
    "listed_problems",
    "missing_count",
    "missing_items",
    "pinned",
    "request_text",
    "siblings",
]

ListedValues = Literal["off", "ask", "complete", "continue", "continue_listed"]
"""What the pipeline does when a request lists values its answer's calls left out: nothing;
ask once for the missing calls (`ask`); ask for each missing call with its listed values
held by the schema (`complete`); let the model continue its own answer with another call
and keep the new calls whose values the request states (`continue`, `_next_calls`); or the
same only where the request states a value the calls left out (`continue_listed`:
`_next_calls.lists_more`)."""
LISTED_VALUES: tuple[ListedValues, ...] = get_args(ListedValues)

# A number as written: thousands groups ("1,500", "12,000.50") first, then a plain or decimal
# one. A comma not followed by three digits separates ("5,10 and 15" is three numbers).
_NUMBER: Final = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d])")
_SEPARATOR: Final = re.compile(r"\s*(?:,\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+)", re.I)
_CONJUNCTION: Final = re.compile(r"\b(?:and|or)\b|&", re.I)
_UNIT: Final = re.compile(r"\s?([A-Za-z%°µ²³]+)")
_SIGNS: Final = "$€£¥₫"
_WORD: Final = re.compile(r"[^\s,;:!?()\[\]{}]+")
# Words a listed item does not open with: a phrase starting with one goes on with the
# sentence ("... and their 3D models", "... and then ..."), not with the list.
# fmt: off
_FUNCTION_WORDS: Final = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "their", "its", "his", "her", "our", "my",
    "your", "them", "it", "they", "he", "she", "we", "i", "you", "then", "also", "so", "with",
    "for", "to", "in", "on", "at", "by", "from", "of", "as", "into", "onto", "than", "but",
    "both", "each", "every", "all", "any", "some", "one", "ones", "another", "other", "same",
    "please", "find", "get", "show", "give", "calculate", "make", "is", "are", "was", "were",
    "be", "been", "which", "who", "what", "when", "where", "how", "while",
))
# fmt: on
# Words that follow a verb's object, not a listed item: "due 2026-12-20 and send it",
# "in hanoi and book a table" list no second date or city.
# fmt: off
_DETERMINERS: Final = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "their", "its", "his", "her", "our", "my",
    "your", "them", "it", "me", "us",
))
# fmt: on
# A sentence ends at a stop, a question or exclamation mark or a semicolon before a space,
# or at a line break ("Inc. (AAPL)" splits too: the sentence is only a hint).
_SENTENCES: Final = re.compile(r"(?<=[.!?;])\s+|\n+")
# A clause ends at a comma or semicolon before a space, or before "and" / "or".
_CLAUSES: Final = re.compile(r"[,;]\s+(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.I)
_QUOTES: Final = "'\"\u2018\u2019\u201c\u201d."
_MAX_VALUES: Final = 8  # listed values named per field in the feedback


def request_text(history: Sequence[Mapping[str, Any]]) -> str:
    """The text of the request an answer to `history` replies to: the last user message.

    "" when there is none, or when the conversation goes on after it (an assistant turn
    follows: a later step of an agent loop, a proxied conversation holding tool results),
    where the calls of earlier answers may be the ones the list asked for.
    """
    for message in reversed(history):
        role = message.get("role")
        if role == "assistant":
            return ""
        if role == "user":
            return content_text(message.get("content"))
    return ""


def siblings(text: str, value: Any) -> list[Any]:
    """The values `text` lists beside `value` (a string or a number the text writes)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return []
    if isinstance(value, str):
        found = _string_siblings(text, value)
    else:
        found = _number_siblings(text, float(value))
    seen: list[Any] = []
    for item in found:
        if item != value and item not in seen:
            seen.append(item)
    return seen


def listed_problems(calls: Sequence[ToolCall], request: str) -> list[Problem]:
    """One `missing_calls` problem per tool whose calls leave out values `request` lists.

    The problem answers the tool's first call and names, per argument, the listed values no
    call of the answer used. Empty when nothing is missing.
    """
    problems: list[Problem] = []
    for name, (first, left_out) in _left_out(calls, request).items():
        errors = [
            FieldError(
                field=field,
                message=(
                    "the request also lists "
                    f"{', '.join(json.dumps(item) for item in extra[:_MAX_VALUES])} "
                    f"beside {json.dumps(value)}"
                ),
                value=value,
            )
            for field, value, extra in left_out
        ]
        count = sum(1 for call in calls if call.name == name)
        problems.append(
            Problem(
                kind="missing_calls",
                message=f"{count} call(s) of {name} for a request that lists more values",
                tool_name=name,
                call_id=first.id,
                raw_arguments=first.raw_arguments,
                fields=tuple(errors),
            )
        )
    return problems


def missing_count(calls: Sequence[ToolCall], request: str) -> int:
    """How many listed values the calls leave out, over every tool and argument."""
    return sum(
        len(extra) for _, left_out in _left_out(calls, request).values() for _, _, extra in left_out
    )


@dataclass(frozen=True, slots=True)
class MissingCall:
    """A call the answer left out: its tool, the listed values it takes, and the sentence
    of the request that is about it (None where one sentence lists every value)."""

    name: str
    pins: dict[str, Any]
    focus: str | None = None


def missing_items(calls: Sequence[ToolCall], request: str) -> list[MissingCall]:
    """The calls the answer left out, each as its tool and the listed values it takes.

    Where the request interleaves the lists of two arguments ("Taylor Swift for 20 minutes
    and Maroon 5 for 15 minutes", answered with spotify_play("Taylor Swift", 20)), their
    listed values pair up by position: `("spotify_play", {"artist": "Maroon 5",
    "duration": 15})`; an argument with fewer listed values is left to the model from the
    shorter list's end on. Where it lists one argument's values, then the other's ("water
    and iron at 0 and 1000 m"), every combination is a call, the answered one left out. At
    most `_MAX_VALUES` items per tool.

    Where the request gives each call a sentence of its own ("I have invested $5000 in
    AAPL ... for 5 years. I have also invested $8000 in MSFT ... for 7 years."), the item's
    `focus` is the sentence that writes its listed values and not the answered call's:
    the arguments nobody listed (the stock, the return) are read from there.
    """
    items: list[MissingCall] = []
    for name, (_, left_out) in _left_out(calls, request).items():
        if len(left_out) > 1 and _grouped(request, left_out):
            axes = [[(field, v) for v in [value, *extra]] for field, value, extra in left_out]
            combos = [dict(combo) for combo in itertools.product(*axes)][1:]
            items += [MissingCall(name, pins) for pins in combos[:_MAX_VALUES]]
            continue
        answered = [value for _, value, _ in left_out]
        count = min(max(len(extra) for _, _, extra in left_out), _MAX_VALUES)
        for index in range(count):
            pins = {field: extra[index] for field, _, extra in left_out if index < len(extra)}
            focus = _sentence_of(request, list(pins.values()), answered)
            items.append(MissingCall(name, pins, focus))
    return items


def item_request(params: Mapping[str, Any], item: MissingCall) -> dict[str, Any]:
    """The request for a left-out call: its listed values held (`pinned`) and, where it
    has a sentence of its own, a last user turn that points the call at it."""
    held = pinned(params, item.name, item.pins)
    if item.focus is None:
        return held
    note = f"Write the {item.name} call for this part of the request: {item.focus}"
    return {**held, "messages": [*held.get("messages", ()), {"role": "user", "content": note}]}


def _sentence_of(request: str, values: Sequence[Any], answered: Sequence[Any]) -> str | None:
    """The part of `request` about a left-out call: the one sentence, else the one clause,
    else at most two sentences in a row, that write every value of `values` and none of
    `answered`. A sentence narrows to its clause where one clause holds them (`_clause_of`).
    None when no one part does."""
    sentences = [s.strip() for s in _SENTENCES.split(request) if s.strip()]
    whole = [
        sentence
        for sentence in sentences
        if all(_place(sentence, v) >= 0 for v in values)
        and not any(_place(sentence, v) >= 0 for v in answered)
    ]
    if len(whole) == 1 and len(sentences) > 1:
        return _clause_of(whole[0], values, answered) or whole[0]
    clause = _clause_of(request, values, answered)
    if clause is not None:
        return clause
    where: list[int] = []
    for value in values:
        holding = [i for i, sentence in enumerate(sentences) if _place(sentence, value) >= 0]
        if len(holding) != 1:
            return None  # not written, or in several sentences: no one place to point at
        where += holding
    span = " ".join(sentences[min(where) : max(where) + 1])
    if len(sentences) < 2 or max(where) - min(where) > 1:
        return None
    return None if any(_place(span, v) >= 0 for v in answered) else span


def _grouped(request: str, left_out: Sequence[tuple[str, Any, list[Any]]]) -> bool:
    """Whether each argument's list ends before the next argument's begins in `request`."""
    spans = []
    for _, value, extra in left_out:
        places = [_place(request, item) for item in [value, *extra]]
        if any(place < 0 for place in places):
            return False
        spans.append((min(places), max(places)))
    spans.sort()
    return all(end < start for (_, end), (start, _) in itertools.pairwise(spans))


def _clause_of(request: str, values: Sequence[Any], answered: Sequence[Any]) -> str | None:
    """The one clause of a one-sentence request ("Play Taylor Swift for 20 minutes and
    Maroon 5 for 15 minutes") that writes every value of `values`, none of `answered`, and
    words besides them; None otherwise (in "5, 10 and 15" the held value says it all)."""
    clauses = [
        clause.strip()
        for sentence in _SENTENCES.split(request)
        for clause in _CLAUSES.split(sentence)
        if clause.strip()
    ]
    found = [
        clause
        for clause in clauses
        if all(_place(clause, v) >= 0 for v in values)
        and not any(_place(clause, v) >= 0 for v in answered)
    ]
    if len(found) != 1:
        return None
    rest = found[0]
    for value in values:
        rest = rest.replace(str(value), " ")
    return found[0] if _WORD.search(rest.strip(" .,;:!?$%")) else None


def _place(text: str, value: Any) -> int:
    """Where `value` is first written in `text` (-1: not found)."""
    if isinstance(value, str):
        return text.casefold().find(value.casefold())
    return next((start for number, start, _ in _numbers(text) if number == value), -1)


def pinned(params: Mapping[str, Any], name: str, pins: Mapping[str, Any]) -> dict[str, Any]:
    """The request with tool `name`'s fields in `pins` held to their one value (an `enum`),
    the other tools and fields as they were. A field the schema does not name is not added.
    """
    tools: list[Any] = []
    for entry in params.get("tools") or ():
        function = entry.get("function") if isinstance(entry, Mapping) else None
        parameters = function.get("parameters") if isinstance(function, Mapping) else None
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        if function is None or function.get("name") != name or not isinstance(properties, Mapping):
            tools.append(entry)
            continue
        held = {
            field: with_enum(schema, [pins[field]]) if field in pins else schema
            for field, schema in properties.items()
        }
        parameters = {**parameters, "properties": held}  # type: ignore[dict-item]
        tools.append({**entry, "function": {**function, "parameters": parameters}})
    return {**params, "tools": tools}


def _left_out(
    calls: Sequence[ToolCall], request: str
) -> dict[str, tuple[ToolCall, list[tuple[str, Any, list[Any]]]]]:
    """Per tool with something left out: its first call and, per argument of that call,
    the value and the listed values beside it that no call used."""
    if not request:
        return {}
    arguments = {call.id: call_arguments(call) for call in calls}
    used_anywhere = {
        _key(value) for args in arguments.values() for value in args.values() if _scalar(value)
    }
    found: dict[str, tuple[ToolCall, list[tuple[str, Any, list[Any]]]]] = {}
    for name in dict.fromkeys(call.name for call in calls):
        mine = [call for call in calls if call.name == name]
        used: dict[str, set[Any]] = {}
        for call in mine:
            for field, value in arguments[call.id].items():
                used.setdefault(field, set()).add(_key(value))
        left_out: list[tuple[str, Any, list[Any]]] = []
        for field, value in arguments[mine[0].id].items():
            extra = [
                item
                for item in siblings(request, value)
                if _key(item) not in used.get(field, set()) and not _used(item, used_anywhere)
            ]
            if extra:
                left_out.append((field, value, extra))
        if left_out:
            found[name] = (mine[0], left_out)
    return found


def call_arguments(call: ToolCall) -> dict[str, Any]:
    """The arguments as the model wrote them (`{}` when they are no JSON object)."""
    try:
        loaded = json.loads(call.raw_arguments)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _used(item: Any, used: set[Any]) -> bool:
    """Whether a call used `item`: as it is, or a string value holding it or held by it
    ("Washington" in "Washington, D.C.", "blue" in "blue colors")."""
    key = _key(item)
    if key in used:
        return True
    if not isinstance(key, str):
        return False
    return any(isinstance(u, str) and (key in u or u in key) for u in used)


def _key(value: Any) -> Any:
    """Equal for the same value however written: numbers by value, strings by case."""
    if isinstance(value, bool) or not _scalar(value):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, str):
        return value.strip().casefold()
    return float(value)


def _numbers(text: str) -> Iterator[tuple[float, int, int]]:
    for match in _NUMBER.finditer(text):
        yield float(match.group(1).replace(",", "")), match.start(1), match.end(1)


def _as_written(number: float) -> int | float:
    return int(number) if number.is_integer() else number


def _unit_after(text: str, end: int) -> str | None:
    match = _UNIT.match(text, end)
    if match is None or match.group(1).casefold() in _FUNCTION_WORDS | {"and", "or"}:
        return None
    return match.group(1).casefold().removesuffix("s")


def _number_siblings(text: str, value: float) -> list[Any]:
    numbers = list(_numbers(text))
    found: list[Any] = []
    for number, start, end in numbers:
        if number != value:
            continue
        unit = _unit_after(text, end)
        signed = start > 0 and text[start - 1] in _SIGNS
        found.extend(_listed_numbers(text, end, unit, signed=signed))
        for other, o_start, o_end in numbers:
            if other == value or unit is None or _unit_after(text, o_end) != unit:
                continue
            between = text[min(end, o_end) : max(start, o_start)]
            if _CONJUNCTION.search(between):  # "20 minutes and Maroon 5 for 15 minutes"
                found.append(_as_written(other))
    return found


def _listed_numbers(text: str, end: int, unit: str | None, *, signed: bool) -> list[Any]:
    """The numbers of an enumeration that goes on after a number ending at `end`."""
    found: list[Any] = []
    listed = 0  # how many of `found` an "and" / "or" closes: "C4, 16 measures" lists nothing
    position = end
    while True:
        if unit is not None:
            after = _UNIT.match(text, position)
            if after is not None:
                position = after.end()
        separator = _SEPARATOR.match(text, position)
        if separator is None:
            return found[:listed]
        position = separator.end()
        if (position < len(text) and text[position] in _SIGNS) != signed:
            return found[:listed]  # "5 years, and $8000": an amount, not a third term
        if signed:
            position += 1
        number = _NUMBER.match(text, position)
        if number is None:
            return found[:listed]
        other = _unit_after(text, number.end())
        if unit is not None and other is not None and other != unit:
            return found[:listed]  # "6 feet and 80 kg": a number of another kind
        found.append(_as_written(float(number.group(1).replace(",", ""))))
        if _CONJUNCTION.search(separator.group(0)):
            listed = len(found)
        position = number.end()


def _string_siblings(text: str, value: str) -> list[str]:
    wanted = value.strip()
    if len(wanted) < 2:
        return []
    found: list[str] = []
    folded = text.casefold()
    start = folded.find(wanted.casefold())
    while start >= 0:
        found.extend(_listed_phrases(text, start + len(wanted), wanted))
        start = folded.find(wanted.casefold(), start + 1)
    return found


def _listed_phrases(text: str, end: int, value: str) -> list[str]:
    """The phrases of an enumeration that goes on after `value`, ending at `end`."""
    limit = len(value.split()) + 1
    capital = value[:1].isupper()
    digits = any(c.isdigit() for c in value)
    found: list[str] = []
    listed = 0  # how many of `found` an "and" / "or" closes: "Miami, Florida" lists nothing
    position = end
    while True:
        separator = _SEPARATOR.match(text, position)
        if separator is None:
            return found[:listed]
        position = separator.end()
        words: list[str] = []
        cursor = position
        stop = ""
        while len(words) <= limit:
            gap = len(text[cursor:]) - len(text[cursor:].lstrip(" \t")) if words else 0
            word = _WORD.match(text, cursor + gap)
            if word is None:
                break
            token = word.group(0).strip(_QUOTES)
            if not token or token.casefold() in _FUNCTION_WORDS | {"and", "or", "&"}:
                stop = token.casefold()
                break
            words.append(token)
            cursor = word.end()
        position = cursor
        if not words or len(words) > limit or stop in _DETERMINERS or stop in ("of", "to"):
            # Nothing; a phrase that goes on past the value's length ("vegan, and takes
            # under 30 minutes"); a verb and its object ("and send it", "and change size
            # to"); or the head of another phrase ("height of 5 units").
            return found[:listed]
        phrase = " ".join(words)
        if capital and not (phrase[:1].isupper() or phrase[:1].isdigit()):
            return found[:listed]
        if digits and not any(c.isdigit() for c in phrase):
            return found[:listed]  # "INV-20417 and ..." lists identifiers, not words
        found.append(phrase)
        if _CONJUNCTION.search(separator.group(0)):
            listed = len(found)
