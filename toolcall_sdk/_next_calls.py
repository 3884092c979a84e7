"""`listed_values="continue"`: the calls an answer left out, read where the model's own answer
is continued with the opening of another call.

Asked for several calls of one tool ("the factorial of 5, 10 and 15", "Taylor Swift for 20
minutes and Maroon 5 for 15"), the small demo models write one call and stop. Sent back their
own answer with the opening of one more call of that tool after it (vLLM's
`continue_final_message`), they write the next call, often the ones after it too, and stop.
Where one call was all the request wanted, they write a repeat of it or a variation with a
value nobody gave (a "scenic" route where "the fastest" was asked, `months: 2` for "next
month"). So a call read here joins the answer only if it is new and every value in which it
differs from the answer's first call is one the request states, at least one of them used by
no call before it (`kept`). A swap of values already used ("36 and 24" as 24 and 36) is no
new call.

The pure parts live here; `_completion` sends the request through the pipeline's port:

- `continuation`: the assistant text the model continues: the answer's calls written as the
  model writes them (its family's format), then the opening of another call, cut right after
  `"arguments":`. The model writes the ` {` itself: an opening that ends in a space left the
  0.5B writing the first argument's value bare (`"arguments": 10, "units": "meters"`) in 7
  of 12 BFCL `parallel` cases, against none once cut before the space.
- `continued_calls`: the calls read from what the model wrote.
- `kept`: the rule above.

Formats: Qwen2.5-Coder's fenced call objects (`qwen25_coder`) and Hermes tags (`hermes`, the
Qwen2.5 family's own template). For any other model the lever does nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from toolcall_sdk.grounding._fold import words_of
from toolcall_sdk.grounding._sources import facts_of
from toolcall_sdk.parsing import format_for, parse_any

__all__ = [
    "CONTINUED_FORMATS",
    "MAX_CONTINUED",
    "continuation",
    "continued_calls",
    "continued_format",
    "continued_request",
    "kept",
    "lists_more",
    "names_another",
    "states_another_number",
]

CONTINUED_FORMATS: Final = ("qwen25_coder", "hermes")
# Calls read from one continuation at most; the rest of what the model wrote is dropped.
MAX_CONTINUED: Final = 8

Arguments = Mapping[str, Any]

_DIGITS: Final = re.compile(r"\d+")
_QUOTES: Final = "'\"\u2018\u201c"
# After a name: a closing quote, then "and" / "or" / "&" / "vs" (a comma before it allowed),
# then the words up to the next comma or stop.
_NAME_LISTED: Final = re.compile(
    r"""['"\u2019\u201d]?,?\s+(?:and|or|&|vs\.?|versus)\s+([^,;:!?()]*)"""
)
_TRIM: Final = "'\"\u2018\u2019\u201c\u201d.,;:!?"


def _fenced(name: str, arguments: Arguments) -> str:
    body = json.dumps({"name": name, "arguments": arguments}, indent=2, ensure_ascii=False)
    return f"```json\n{body}\n```"


def _tagged(name: str, arguments: Arguments) -> str:
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


# Per format: how one call is written, and the opening of the next one (after a newline),
# up to the point where the model goes on.
_WRITTEN = {"qwen25_coder": _fenced, "hermes": _tagged}
_OPENING = {
    "qwen25_coder": '```json\n{{\n  "name": "{name}",\n  "arguments":',
    "hermes": '<tool_call>\n{{"name": "{name}", "arguments":',
}


def continued_format(model: str) -> str | None:
    """The format the model's answer is continued in, or None where the lever does nothing."""
    found = format_for(model)
    return found if found in CONTINUED_FORMATS else None


def continuation(fmt: str, calls: Sequence[tuple[str, Arguments]], name: str) -> str:
    """The answer's calls as the model writes them, then the opening of another `name` call."""
    written = "\n".join(_WRITTEN[fmt](call_name, arguments) for call_name, arguments in calls)
    return f"{written}\n{_OPENING[fmt].format(name=name)}"


def continued_request(params: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The stage-2 request `params` (the answer's own, tools and all, so that the prompt is
    the one the answer was written to) turned into one that continues `text`, an assistant
    turn, as text: no call is parsed and no grammar holds it."""
    request = {
        key: value
        for key, value in params.items()
        if key not in ("parallel_tool_calls", "response_format", "n")
    }
    request["messages"] = [*params["messages"], {"role": "assistant", "content": text}]
    request["tool_choice"] = "none"
    extra = {
        key: value
        for key, value in (params.get("extra_body") or {}).items()
        if key not in ("structured_outputs", "guided_json", "guided_grammar", "response_format")
    }
    continued = {"continue_final_message": True, "add_generation_prompt": False}
    request["extra_body"] = {**extra, **continued}
    return request


def continued_calls(fmt: str, name: str, text: str) -> list[dict[str, Any]]:
    """The arguments of the `name` calls the model wrote after the opening (at most
    `MAX_CONTINUED`): objects only, in order; anything else it wrote is dropped."""
    opened = _OPENING[fmt].format(name=name) + text
    found: list[dict[str, Any]] = []
    for call in parse_any(opened, fmt, tools=[name]).calls:
        if call.name != name:
            continue
        try:
            arguments = json.loads(call.arguments)
        except ValueError:
            continue
        if isinstance(arguments, dict):
            found.append(arguments)
        if len(found) == MAX_CONTINUED:
            break
    return found


def kept(first: Arguments, earlier: Sequence[Arguments], new: Arguments, request: str) -> bool:
    """Whether a continued call joins: new, its values that differ from the first call's
    all stated by the request, at least one of them used by no earlier call."""
    if any(_key(new) == _key(call) for call in earlier):
        return False
    changed = [value for field, value in new.items() if _key(first.get(field)) != _key(value)]
    if not changed or not all(_stated(value, request) for value in changed):
        return False
    used = {_key(value) for call in earlier for value in _scalars(call)}
    return any(_key(item) not in used for value in changed for item in _scalars(value))


def lists_more(calls: Sequence[Arguments], request: str) -> bool:
    """Whether the request states a value the calls left out, so that a continuation is
    worth its request (`listed_values="continue_listed"`): a number written in digits
    (`states_another_number`) or a name listed beside one a call used
    (`names_another`)."""
    return states_another_number(calls, request) or names_another(calls, request)


def states_another_number(calls: Sequence[Arguments], request: str) -> bool:
    """Whether the request writes, in digits, a number that no value of the calls has
    among its readings: a number, or digits inside a string (`CUS-000042`, `2026-12-20`).
    Numbers in words ("two cities", "issued twice") and exponents (`m/s^2`) count for
    nothing: they are almost never a value left out."""
    used: set[Decimal] = set()
    for arguments in calls:
        for value in _scalars(arguments):
            if isinstance(value, bool):
                continue
            if isinstance(value, (int, float)):
                used.add(abs(Decimal(str(value))))
            elif isinstance(value, str):
                used.update(abs(n) for m in facts_of(value).numbers() for n in m.values)
                used.update(Decimal(digits) for digits in _DIGITS.findall(value))
    return any(
        _in_digits(mention.quote)
        and request[: mention.start].rstrip()[-1:] != "^"
        and not any(abs(n) in used for n in mention.values)
        for mention in facts_of(request).numbers()
    )


def names_another(calls: Sequence[Arguments], request: str) -> bool:
    """Whether the request lists a name beside one a call used: a capitalised or quoted
    string value followed by "and", "or", "&" or "vs", then within four words a capitalised
    word or a number that no string of the calls holds ("Berlin and Paris", "'Climate
    Change' and 'Artificial Intelligence'", "USD to AUD and USD to CAD"). Lower-case words
    are left alone: "highways and toll roads" is one value more often than two."""
    strings = [v for arguments in calls for v in _scalars(arguments) if isinstance(v, str)]
    used = {word.strip(_TRIM) for value in strings for word in value.casefold().split()}
    folded = request.casefold()
    for value in strings:
        name = value.strip()
        start = folded.find(name.casefold()) if len(name) > 1 else -1
        quoted = start > 0 and request[start - 1] in _QUOTES
        if start < 0 or not (name[0].isupper() or quoted):
            continue
        listed = _NAME_LISTED.match(request, start + len(name))
        if listed is None:
            continue
        words = [word.strip(_TRIM) for word in listed.group(1).split()[:4]]
        if any(w[:1].isupper() or w[:1].isdigit() for w in words if w.casefold() not in used):
            return True
    return False


def _in_digits(quote: str) -> bool:
    return any(ch.isdigit() for ch in quote)


def _stated(value: Any, request: str) -> bool:
    """Whether the request writes `value`: a number among its numbers' readings, a string
    as words of it, a list or object when every item is. Booleans and nulls never are."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        try:
            number = abs(Decimal(str(value)))
        except InvalidOperation:
            return False
        return number in facts_of(request).number_values()
    if isinstance(value, str):
        words = words_of(value)
        return bool(words) and facts_of(request).letters().has_words(words)
    items = list(value.values()) if isinstance(value, Mapping) else value
    if isinstance(items, list):
        return bool(items) and all(_stated(item, request) for item in items)
    return False


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [item for inner in value.values() for item in _scalars(inner)]
    if isinstance(value, list):
        return [item for inner in value for item in _scalars(inner)]
    return [value]


def _key(value: Any) -> str:
    """Equal for equal values: numbers by value, strings by case and spacing aside."""
    if isinstance(value, str):
        return json.dumps(" ".join(value.casefold().split()))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(float(value))
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(k)}:{_key(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_key(item) for item in value) + "]"
    return json.dumps(value)
