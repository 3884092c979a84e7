"""Optional values nobody gave, left out where the tool says what leaving them out does.

Asked "Find an acoustic instrument within my budget of $1000.", Qwen2.5-Coder-0.5B called
`find_instrument(budget=1000, type="acoustic", make="Fender")`, where `make` is described
"Maker of the instrument. Default to not use if not specified."; asked for Ronaldo's
statistics in 2021 it added `team_name="Real Madrid"`, for a historical fiction book
`title="The Great Gatsby"`, for Einstein's contribution on a date `category="Physics"`.
Every schema accepts these values, nothing checks them (they are not numbers, dates or
identifiers), and each call asks something narrower than the user did.

So an argument is left out of a call, before the call is validated, when all of these hold:

- its tool's model has a default for it (the call is valid without it);
- its schema is free text (a string with no `enum`, `const`, `pattern` or `format`), or a
  list of free text;
- its description says what leaving it out does ("Default is all fields", "Default ''",
  "(optional)", "if not specified"): the tool's author made leaving it out a choice the
  tool documents. A field that says nothing of the kind keeps whatever the model wrote;
- the value holds a letter (a number, a date or a time written as text is for the grounding
  check to judge) and is not the field's default;
- it is not `Derived()`;
- no word of it is stated: a word counts as stated where a word of the conversation (user,
  system and tool messages; the SDK's own notes never count) begins with its first three
  letters, so "24h" stands in "24 hour format", "mi" in "miles", "CA" in "California" and
  "women" in "woman". For a list, no word of any of its items is stated.

The leniency is the point: a value with any footing in the conversation is kept, so what is
left out is what the model brought itself. Each removal is recorded on the attempt as the
repair `tool:unstated_optional:/field`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Final, Literal, get_args

from pydantic_core import PydanticUndefined

from toolcall_sdk._function_defs import arguments_object, parameters_of, schema_branches
from toolcall_sdk._tools import Tool
from toolcall_sdk.grounding._fold import fold
from toolcall_sdk.grounding._plan import Plan
from toolcall_sdk.grounding._policy import SourceRole
from toolcall_sdk.grounding._sources import conversation_of

__all__ = ["OPTIONAL_VALUES", "UNSTATED_OPTIONAL", "OptionalValues", "left_out_unstated"]

OptionalValues = Literal["stated", "any"]
"""Which values an optional free-text argument keeps: only one the conversation states
(where its tool documents a default), or whatever the model wrote."""
OPTIONAL_VALUES: Final[tuple[OptionalValues, ...]] = get_args(OptionalValues)

UNSTATED_OPTIONAL: Final = "unstated_optional"
"""The repair's name, as recorded on the attempt: `tool:unstated_optional:/field`."""

# The words with which a field's description says what leaving it out does.
_DOCUMENTED_DEFAULT: Final = re.compile(
    r"\b(?:defaults?|defaulted|optional(?:ly)?|if\s+(?:not|un)\s*(?:specified|given|provided|stated))\b",
    re.IGNORECASE,
)
_LETTER: Final = re.compile(r"[^\W\d_]")
# The words of a folded text, letters split from digits ("24h": "24", "h").
_LETTERS_OR_DIGITS: Final = re.compile(r"[a-z]+|[0-9]+")
# A word of a value is stated where a word of the conversation begins with this many of its
# first letters (or with all of a shorter one).
_STEM: Final = 3
# Words that state nothing of a value ("The Great Gatsby" is not stated by a "the").
_FILLER: Final = frozenset(
    ["a", "an", "and", "at", "by", "for", "from", "in", "is", "of", "on", "or", "the", "to", "with"]
)


def left_out_unstated(
    message: dict[str, Any],
    tools: Mapping[str, Tool[..., Any]],
    schemas: Mapping[str, Mapping[str, Any]],
    plan_of: Callable[[str], Plan],
    messages: Sequence[Mapping[str, Any]],
    sources: Collection[SourceRole],
) -> tuple[dict[str, Any], list[str]]:
    """The answer with each call's unstated optional free-text values left out.

    Args:
        message: The assistant message, calls in OpenAI form; not changed.
        tools: The offered tools, by name.
        schemas: The parameters schema sent for each offered tool.
        plan_of: The grounding plan of a tool, by name (`Derived()` fields stay).
        messages: The conversation the answer replies to (the sources).
        sources: The roles whose messages state values.

    Returns:
        The message (the same object when nothing was left out) and one
        `tool:unstated_optional:/field` per argument left out.
    """
    raw_calls = message.get("tool_calls")
    if not isinstance(raw_calls, list) or not raw_calls:
        return message, []
    stems = _Stems(messages, sources)
    calls: list[Any] = []
    repairs: list[str] = []
    for raw in raw_calls:
        call, out = _without_unstated(raw, tools, schemas, plan_of, stems)
        calls.append(call)
        repairs += out
    if not repairs:
        return message, []
    return {**message, "tool_calls": calls}, repairs


class _Stems:
    """The first one to `_STEM` letters of every word the sources state, read on first use
    (most answers have nothing to judge)."""

    def __init__(
        self, messages: Sequence[Mapping[str, Any]], sources: Collection[SourceRole]
    ) -> None:
        self._messages = messages
        self._sources = frozenset(sources)
        self._stems: set[str] | None = None

    def all(self) -> set[str]:
        if self._stems is None:
            conversation = conversation_of(self._messages, self._sources)
            self._stems = {
                word[:length]
                for source in conversation.sources
                for word in _LETTERS_OR_DIGITS.findall(source.facts.folded())
                for length in range(1, _STEM + 1)
            }
        return self._stems


def _without_unstated(
    raw: Any,
    tools: Mapping[str, Tool[..., Any]],
    schemas: Mapping[str, Mapping[str, Any]],
    plan_of: Callable[[str], Plan],
    stems: _Stems,
) -> tuple[Any, list[str]]:
    """One call with its unstated optional values left out, and the repairs named."""
    function = raw.get("function") if isinstance(raw, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    tool = tools.get(name) if isinstance(name, str) else None
    if tool is None or not isinstance(function, Mapping):
        return raw, []
    droppable = dict(_droppable(tool, schemas.get(tool.name) or {}, plan_of(tool.name)))
    if not droppable:
        return raw, []
    arguments = arguments_object(function.get("arguments"))
    out = [
        key
        for key, value in arguments.items()
        if key in droppable and droppable[key] != value and _unstated(value, stems.all())
    ]
    if not out:
        return raw, []
    kept = {key: value for key, value in arguments.items() if key not in out}
    call = {**raw, "function": {**function, "arguments": json.dumps(kept)}}
    return call, [f"{tool.name}:{UNSTATED_OPTIONAL}:/{key}" for key in out]


def _droppable(
    tool: Tool[..., Any], parameters: Mapping[str, Any], plan: Plan
) -> Iterator[tuple[str, Any]]:
    """The argument keys that may be left out, each with its default (kept when written)."""
    properties = parameters_of({"parameters": parameters})
    for name, info in tool.args_model.model_fields.items():
        key = info.alias or name
        if info.is_required() or key not in properties:
            continue
        rule = plan.get((key,))
        if rule is not None and rule.mark == "derived":
            continue
        schema = properties[key]
        if not _documents_default(schema) or not _free_text(schema):
            continue
        default = info.default
        if rule is not None and rule.default is not PydanticUndefined:
            default = rule.default
        yield key, default


def _documents_default(schema: Any) -> bool:
    return any(
        isinstance(b.get("description"), str) and _DOCUMENTED_DEFAULT.search(b["description"])
        for b in schema_branches(schema)  # the schema itself and each `anyOf` branch
    )


def _free_text(schema: Any) -> bool:
    """A string with nothing fixing its form, or a list of those; nullable ones too (an
    `anyOf` with a null branch, or a `type` list with `"null"`: both strict forms)."""
    if not isinstance(schema, Mapping):
        return False
    options = schema.get("anyOf", [schema])
    branches = [b for b in options if not (isinstance(b, Mapping) and b.get("type") == "null")]
    if len(branches) != 1 or not isinstance(branches[0], Mapping):
        return False
    branch = branches[0]
    kind = branch.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind == "array":
        items = branch.get("items")
        return isinstance(items, Mapping) and _free_text(items)
    return kind == "string" and not ({"enum", "const", "pattern", "format"} & set(branch))


def _unstated(value: Any, stems: set[str]) -> bool:
    """Whether no word of the value (of any item of a list) is stated: `stems` holds the
    first one to `_STEM` letters of every word of the sources."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, str) and _LETTER.search(item) for item in items):
        return False
    words = [
        w for item in items for w in _LETTERS_OR_DIGITS.findall(fold(item)) if w not in _FILLER
    ]
    return bool(words) and not any(word[:_STEM] in stems for word in words)
