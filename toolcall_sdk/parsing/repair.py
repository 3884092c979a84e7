"""Deterministic repairs of tool-call arguments, tried before the model is asked again.

Each repair fixes one known way small models garble arguments whose intent is unambiguous,
and never changes what a value means; anything else is left for validation to report back
to the model. Every function returns the (possibly) repaired value and the repairs it made,
so the client can record them on the attempt. A repair is named by its kind, followed for
per-value repairs by a JSON pointer to the value: `"scalar_from_string:/amount"`.

- `close_truncated_json`: `{"city": "Hanoi"` → `{"city":"Hanoi"}`, only when the model
  stopped on its own (`finish_reason == "stop"`), never when it ran into the length limit.
- `unwrap_json_string`: `"{\\"city\\": \\"Hanoi\\"}"` (the arguments object sent as a JSON
  string) → `{"city":"Hanoi"}`.
- `coerce_scalars`: `"5"` → `5` where the schema wants an integer, `"2.5"` → `2.5` for a
  number, `"true"` → `True` for a boolean, `"[1, 2]"` → `[1, 2]` for an array, only when the
  text is exactly the canonical form of that value (`"5.0"` stays a string for an integer).
- `drop_schema_echoes`: `{"invoice_id": "INV-1", "required": ["invoice_id"]}` →
  `{"invoice_id": "INV-1"}`: JSON Schema keywords a small model copied from the tool's
  schema into its arguments (`required`, `type`, `properties`, ...), only where the schema
  has no such property and the value is the schema's own (the `required` list, `"object"`,
  the `properties` object, the tool's title or description). Also `{"name": "get_invoice",
  "arguments": {...}}` written as the arguments → the inner arguments, when the schema has
  neither key and the name is the tool's (`call_wrapper`).
- `write_described_dates`: `{"date": "2023-06-01"}` → `{"date": "06-01-2023"}` where the
  parameter is a free string whose description asks for `mm-dd-yyyy` (`_date_layouts`):
  the same date in the layout the tool documents, only from a year-first date (the one
  form whose day and month are certain), and only for the tool's own parameters.
- `repair_arguments`: all of the above, in that order (close, unwrap, echoes, coerce, dates).
- `resolve_tool_name`: `math.factorial` → the offered `math_factorial` (or the reverse; a
  hyphen counts as the same separator), only when exactly one offered name matches.

The client records these as `tool:repair`. It also records how a call it read back from the
text was written when no format reads it as written (`ParsedCall.repairs`: `fenced_code`,
`python_literal`, `name_line`, `bare_call`, `call_in_text`; see docs/parsing.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from typing import Any, Final

from toolcall_sdk._date_layouts import parameter_layout, year_first_date
from toolcall_sdk.parsing._json import MAX_NUMBER_CHARS, dumps, loads

__all__ = [
    "BARE_CALL",
    "CALL_IN_TEXT",
    "CALL_WRAPPER",
    "CLOSED_TRUNCATED_JSON",
    "DATE_LAYOUT",
    "FENCED_CODE",
    "JSON_STRING_ARGUMENTS",
    "JSON_STRING_VALUE",
    "NAME_LINE",
    "PYTHON_LITERAL",
    "SCALAR_FROM_STRING",
    "SCHEMA_ECHO",
    "TOOL_NAME",
    "close_truncated_json",
    "coerce_scalars",
    "drop_schema_echoes",
    "repair_arguments",
    "resolve_tool_name",
    "unwrap_json_string",
    "write_described_dates",
]

CLOSED_TRUNCATED_JSON: Final = "closed_truncated_json"
JSON_STRING_ARGUMENTS: Final = "json_string_arguments"
SCALAR_FROM_STRING: Final = "scalar_from_string"
JSON_STRING_VALUE: Final = "json_string_value"
# A tool name written with dots for underscores or the reverse; followed by the name as
# written: `tool_name:math.factorial`.
TOOL_NAME: Final = "tool_name"
# A schema keyword copied into the arguments, followed by its pointer: `schema_echo:/required`.
SCHEMA_ECHO: Final = "schema_echo"
# The `{"name": ..., "arguments": {...}}` call object written as the arguments.
CALL_WRAPPER: Final = "call_wrapper"
# A year-first date rewritten in the layout the parameter's description asks for.
DATE_LAYOUT: Final = "date_layout"
# How a call read back from text was written (`ParsedCall.repairs`).
FENCED_CODE: Final = "fenced_code"
PYTHON_LITERAL: Final = "python_literal"
NAME_LINE: Final = "name_line"
BARE_CALL: Final = "bare_call"
CALL_IN_TEXT: Final = "call_in_text"

# Arguments wrapped in a string inside a string inside...: models do not nest deeper.
_MAX_UNWRAP: Final = 3
# Schemas reference each other through $ref; a cycle must not loop forever.
_MAX_DEPTH: Final = 64

_INTEGER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_BOOLEANS: Final = {"true": True, "false": False, "True": True, "False": False}
_BRACKETS: Final = re.compile(r'[\[\]{}"]')
_IN_STRING: Final = re.compile(r'["\\]')
_CLOSER: Final = {"{": "}", "[": "]"}


def close_truncated_json(text: str, finish_reason: str | None) -> tuple[str, list[str]]:
    """Close the objects and arrays a model left open at the very end of its arguments.

    Only brackets are added, only at the end, and only when the model stopped by itself:
    with `finish_reason == "length"` the text was cut and its end is unknown.

    Args:
        text: Argument text.
        finish_reason: The choice's finish reason.

    Returns:
        `(compact JSON, ["closed_truncated_json"])` when closing the open brackets makes
        valid JSON, else `(text, [])`.
    """
    if finish_reason != "stop":
        return text, []
    try:
        loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        return text, []
    closers = _missing_closers(text)
    if not closers:
        return text, []
    try:
        value = loads(text.rstrip() + closers)
    except (ValueError, RecursionError):
        return text, []
    return dumps(value), [CLOSED_TRUNCATED_JSON]


def _missing_closers(text: str) -> str:
    """The brackets that close what is open at the end of `text`; "" when nothing is open,
    the end is inside a string, or the brackets do not pair up."""
    stack: list[str] = []
    pos = 0
    while True:
        found = _BRACKETS.search(text, pos)
        if found is None:
            break
        c = found.group()
        pos = found.end()
        if c == '"':
            while True:
                inside = _IN_STRING.search(text, pos)
                if inside is None:
                    return ""  # ends inside a string: its end is unknown
                pos = inside.end() + (1 if inside.group() == "\\" else 0)
                if inside.group() == '"':
                    break
        elif c in "{[":
            stack.append(_CLOSER[c])
        elif not stack or stack.pop() != c:
            return ""
    return "".join(reversed(stack))


def unwrap_json_string(arguments: str) -> tuple[str, list[str]]:
    """Decode arguments that arrived as a JSON string holding the JSON object.

    Args:
        arguments: Argument text, e.g. `"{\\"a\\": 1}"`.

    Returns:
        `(compact JSON of the object, ["json_string_arguments"])`, or `(arguments, [])` when
        they are not a string holding an object.
    """
    text = arguments
    for _ in range(_MAX_UNWRAP):
        try:
            value = loads(text)
        except (ValueError, RecursionError):
            return arguments, []
        if isinstance(value, dict):
            break
        if not isinstance(value, str):
            return arguments, []
        text = value
    else:
        return arguments, []
    if text is arguments:
        return arguments, []
    return dumps(value), [JSON_STRING_ARGUMENTS]


def coerce_scalars(data: Any, schema: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """Turn strings into the numbers, booleans, arrays or objects the schema asks for.

    A string is converted only where the schema does not also accept a string, and only when
    it is exactly the canonical text of the value (`"5"` for 5, `"-0.5"`, `"1e3"`, `"true"`
    or `"True"`, `"null"`; not `"05"`, `"5.0"` for an integer, `" 5"`, `"yes"`). Objects and
    arrays are walked through `properties`, `additionalProperties`, `items`, `prefixItems`,
    `anyOf`/`oneOf`/`allOf` and local `$ref`s (`#/$defs/...`), as Pydantic writes them.

    Args:
        data: Decoded arguments.
        schema: The tool's parameters schema.

    Returns:
        The converted data (a new object when anything changed) and one repair per value
        converted, e.g. `["scalar_from_string:/amount_vnd"]`.
    """
    repairs: list[str] = []
    return _coerce(data, schema, schema, "", repairs, 0), repairs


# The schema keywords a model copies into its arguments.
_ECHOED_KEYWORDS: Final = (
    "required",
    "type",
    "properties",
    "additionalProperties",
    "title",
    "description",
    "$schema",
    "$defs",
    "definitions",
    "strict",
)


def _echoes(key: str, value: Any, schema: Mapping[str, Any], known: set[str]) -> bool:
    """Whether `value`, written as argument `key`, repeats the schema's own `key`."""
    if key == "required":  # the list, or part of it, in any order
        if value == []:  # a tool that requires nothing: `{"required": []}` is its schema
            return not schema.get("required")
        return isinstance(value, list) and all(
            isinstance(item, str) and item in known for item in value
        )
    if key == "type":
        return bool(value == "object")
    if key == "properties":
        if value == {}:  # a tool with no parameters: the 0.5B wrote `{"properties": {}}`
            return not known
        return isinstance(value, dict) and set(value) <= known
    if key == "strict":  # the function entry's flag, beside the schema: `"strict": true`
        return value is True
    return key in schema and bool(value == schema[key])


def drop_schema_echoes(
    data: Any, schema: Mapping[str, Any], name: str | None = None
) -> tuple[Any, list[str]]:
    """Drop what a model copied from the schema into the arguments; unwrap a call object.

    Small models asked for `get_invoice` write `{"invoice_id": "INV-1", "required":
    ["invoice_id"]}` (the schema's `required` list as an argument) or the whole call object
    `{"name": "get_invoice", "arguments": {...}}` as the arguments. Both are read as meant,
    and nothing else is: a key is dropped only when the schema has no property of that name
    and its value is the schema's own value for that keyword; the wrapper is unwrapped only
    when the schema has neither `name` nor `arguments` (or `parameters`), the name is the
    tool's (when given) and the inner value is an object.

    Returns:
        The arguments (a new object when anything changed) and the repairs made:
        `call_wrapper` and `schema_echo:/required`.
    """
    if not isinstance(data, dict):
        return data, []
    properties = schema.get("properties")
    known = set(properties) if isinstance(properties, Mapping) else set()
    repairs: list[str] = []
    inner_key = next((k for k in ("arguments", "parameters") if k in data), None)
    if (
        inner_key is not None
        and set(data) == {"name", inner_key}
        and not known & {"name", inner_key}
        and isinstance(data[inner_key], dict)
        and isinstance(data["name"], str)
        and (name is None or data["name"] == name)
    ):
        data = data[inner_key]
        repairs.append(CALL_WRAPPER)
    echoes = [
        key
        for key in _ECHOED_KEYWORDS
        if key in data and key not in known and _echoes(key, data[key], schema, known)
    ]
    if echoes:
        data = {key: value for key, value in data.items() if key not in echoes}
        repairs += [f"{SCHEMA_ECHO}:{_pointer('', key)}" for key in echoes]
    return data, repairs


def repair_arguments(
    arguments: str,
    schema: Mapping[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    name: str | None = None,
) -> tuple[str, list[str]]:
    """Apply every repair that fits: close, unwrap, drop schema echoes, then coerce.

    Args:
        arguments: Argument text of one call.
        schema: The tool's parameters schema; without it no echo or coercion is tried.
        finish_reason: The choice's finish reason (closing needs `"stop"`).
        name: The tool's name (a call object written as the arguments must name it).

    Returns:
        The argument text (compact JSON when anything changed) and the repairs made.
    """
    text, repairs = close_truncated_json(arguments, finish_reason)
    text, unwrapped = unwrap_json_string(text)
    repairs += unwrapped
    if schema is not None:
        try:
            data = loads(text)
        except (ValueError, RecursionError):
            return text, repairs
        data, echoed = drop_schema_echoes(data, schema, name)
        coerced, changed = coerce_scalars(data, schema)
        coerced, dated = write_described_dates(coerced, schema)
        if echoed or changed or dated:
            text = dumps(coerced)
            repairs += echoed + changed + dated
    return text, repairs


def write_described_dates(data: Any, schema: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """Rewrite each year-first date string among the arguments' own parameters in the date
    layout that parameter's description asks for (`_date_layouts.parameter_layout`).

    Returns:
        The arguments (a new object when anything changed) and the repairs made:
        `date_layout:/date`.
    """
    properties = schema.get("properties")
    if not isinstance(data, dict) or not isinstance(properties, Mapping):
        return data, []
    rewritten: dict[str, str] = {}
    for key, value in data.items():
        day = year_first_date(value) if isinstance(value, str) else None
        layout = parameter_layout(properties.get(key)) if day is not None else None
        written = layout.write(day) if day is not None and layout is not None else value
        if written != value:
            rewritten[key] = written
    if not rewritten:
        return data, []
    return {**data, **rewritten}, [f"{DATE_LAYOUT}:{_pointer('', key)}" for key in rewritten]


def resolve_tool_name(name: str, offered: Collection[str]) -> str | None:
    """The offered tool a call's name means, allowing dots written for underscores.

    Models trained on Python APIs write `math.factorial` where the tool is offered as
    `math_factorial` (OpenAI-style names allow no dots), and the reverse. Dots, underscores
    and hyphens are compared as one separator; every other character must be the same.

    Args:
        name: The name as the model wrote it.
        offered: The names of the offered tools.

    Returns:
        `name` when it is offered; else the one offered name that differs from it only in
        its separators; None when there is no such name, or more than one (`math_hypot` and
        `math-hypot` both offered for `math.hypot`: which tool was meant is unknown, and the
        model is told the name is unknown).
    """
    if name in offered:
        return name
    key = _separators(name)
    if key == name and "_" not in name:
        return None
    found = [tool for tool in offered if _separators(tool) == key]
    return found[0] if len(found) == 1 else None


def _separators(name: str) -> str:
    return name.replace(".", "_").replace("-", "_")


def _pointer(path: str, key: str | int) -> str:
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def _resolve(schema: Any, root: Mapping[str, Any], depth: int) -> Any:
    while (
        isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and depth < _MAX_DEPTH
    ):
        ref: str = schema["$ref"]
        if not ref.startswith("#/"):
            return None
        target: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, Mapping) else None
        schema = target
        depth += 1
    return schema


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    if "properties" in schema:
        return {"object"}
    if "items" in schema or "prefixItems" in schema:
        return {"array"}
    return set()


def _branches(schema: Mapping[str, Any]) -> list[Any]:
    branches: list[Any] = []
    for key in ("anyOf", "oneOf", "allOf"):
        value = schema.get(key)
        if isinstance(value, list):
            branches += value
    return branches


def _container_branches(
    schema: Mapping[str, Any], kind: str, root: Mapping[str, Any], depth: int
) -> list[Mapping[str, Any]]:
    """The sub-schemas that apply to an object or array value: every `allOf` entry of that
    kind, and the `anyOf`/`oneOf` entry of that kind when there is exactly one (with two,
    which one the value is meant for is unknown, and a guess could change its meaning)."""
    found: list[Mapping[str, Any]] = []
    for key in ("allOf", "anyOf", "oneOf"):
        value = schema.get(key)
        if not isinstance(value, list):
            continue
        matching = [
            resolved
            for resolved in (_resolve(b, root, depth + 1) for b in value)
            if isinstance(resolved, Mapping) and kind in _types(resolved)
        ]
        if key == "allOf" or len(matching) == 1:
            found += matching
    return found


def _accepts_string(schema: Any, root: Mapping[str, Any], depth: int) -> bool:
    schema = _resolve(schema, root, depth)
    if not isinstance(schema, Mapping):
        return True  # unknown: leave strings alone
    branches = _branches(schema)
    if branches:
        return any(_accepts_string(b, root, depth + 1) for b in branches)
    types = _types(schema)
    return not types or "string" in types


def _from_string(text: str, kind: str) -> tuple[bool, Any]:
    if kind in ("integer", "number") and len(text) > MAX_NUMBER_CHARS:
        return False, None  # left a string: validation says what is wrong with it
    if kind == "integer" and _INTEGER.fullmatch(text):
        return True, int(text)
    if kind == "number" and _NUMBER.fullmatch(text):
        value = loads(text)
        if isinstance(value, int) or math.isfinite(value):
            return True, value
    if kind == "boolean" and text in _BOOLEANS:
        return True, _BOOLEANS[text]
    if kind == "null" and text == "null":
        return True, None
    if kind in ("object", "array"):
        try:
            value = loads(text)
        except (ValueError, RecursionError):
            return False, None
        if isinstance(value, dict if kind == "object" else list):
            return True, value
    return False, None


def _coerce(
    value: Any, schema: Any, root: Mapping[str, Any], path: str, repairs: list[str], depth: int
) -> Any:
    schema = _resolve(schema, root, depth)
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return value
    if isinstance(value, str):
        if _accepts_string(schema, root, depth):
            return value
        for candidate in [schema, *_branches(schema)]:
            candidate = _resolve(candidate, root, depth + 1)
            if not isinstance(candidate, Mapping):
                continue
            for kind in ("integer", "number", "boolean", "null", "object", "array"):
                if kind in _types(candidate):
                    ok, converted = _from_string(value, kind)
                    if ok:
                        name = (
                            JSON_STRING_VALUE if kind in ("object", "array") else SCALAR_FROM_STRING
                        )
                        repairs.append(f"{name}:{path or '/'}")
                        return _coerce(converted, candidate, root, path, repairs, depth + 1)
        return value
    if isinstance(value, dict):
        return _coerce_object(value, schema, root, path, repairs, depth)
    if isinstance(value, list):
        return _coerce_array(value, schema, root, path, repairs, depth)
    return value


def _coerce_object(
    value: dict[str, Any],
    schema: Mapping[str, Any],
    root: Mapping[str, Any],
    path: str,
    repairs: list[str],
    depth: int,
) -> Any:
    for branch in _container_branches(schema, "object", root, depth):
        value = _coerce_object(value, branch, root, path, repairs, depth + 1)
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    if not isinstance(properties, Mapping) and not isinstance(extra, Mapping):
        return value
    result = {}
    for key, item in value.items():
        sub = properties.get(key) if isinstance(properties, Mapping) else None
        if sub is None and isinstance(extra, Mapping):
            sub = extra
        result[key] = (
            item
            if sub is None
            else _coerce(item, sub, root, _pointer(path, key), repairs, depth + 1)
        )
    return result


def _coerce_array(
    value: list[Any],
    schema: Mapping[str, Any],
    root: Mapping[str, Any],
    path: str,
    repairs: list[str],
    depth: int,
) -> Any:
    for branch in _container_branches(schema, "array", root, depth):
        value = _coerce_array(value, branch, root, path, repairs, depth + 1)
    prefix = schema.get("prefixItems")
    items = schema.get("items")
    result = []
    for i, item in enumerate(value):
        sub = prefix[i] if isinstance(prefix, list) and i < len(prefix) else items
        result.append(
            item
            if not isinstance(sub, Mapping)
            else _coerce(item, sub, root, _pointer(path, i), repairs, depth + 1)
        )
    return result
