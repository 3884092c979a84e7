"""Argument values written as text, typed by the tool's parameter schema.

Qwen3 XML, GLM, DeepSeek's DSML and Kimi K3 write each argument value as bare text
(`<arg_value>3</arg_value>`): `3` may be the integer 3 or the string "3", and only the
tool's schema tells. Without a schema a value that is valid JSON is read as JSON (`15`,
`false`, `["a"]`) and any other text stays a string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk.parsing._json import dumps, loads

__all__ = ["Schemas", "parameter_types", "text_value"]

Schemas = Mapping[str, Mapping[str, Any]]
"""Tool name → the JSON schema of its parameters (`{"type": "object", "properties": ...}`)."""

_FLOAT_DIGITS: Final = 308  # a decimal number with more digits may exceed the largest float
# The characters a JSON value can start with: any other value is text, known without the
# cost of a failed decode.
_JSON_STARTS: Final = frozenset('{["-0123456789tfn')
_BLANK: Final = " \t\r\n"
# Python's spelling of the literals, which some chat templates write (`True`): read only
# where the schema asks for that kind of value.
_PY_BOOLEANS: Final = {"True": True, "False": False, "true": True, "false": False}
_NULLS: Final = frozenset({"null", "None"})
ParamTypes = Mapping[str, frozenset[str]]


def parameter_types(schemas: Schemas | None, tool: str) -> ParamTypes:
    """The JSON types each parameter of `tool` accepts, by name (absent: not known)."""
    schema = (schemas or {}).get(tool)
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    out: dict[str, frozenset[str]] = {}
    for key, value in properties.items():
        kinds = _types(value)
        if kinds:
            out[key] = kinds
    return out


def _types(schema: Any) -> frozenset[str]:
    if not isinstance(schema, Mapping):
        return frozenset()
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset({kind})
    if isinstance(kind, list):
        return frozenset(k for k in kind if isinstance(k, str))
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        kinds = [_types(b) for b in branches]
        if all(kinds):
            return frozenset().union(*kinds)
    return frozenset()


def text_value(raw: str, kinds: frozenset[str] | None = None) -> Any:
    """The value a bare-text argument stands for.

    Args:
        raw: The text between the value's markers.
        kinds: The JSON types the parameter accepts, when its schema is known.

    Returns:
        `None` for `null` where null is accepted; `raw` itself where only a string (or
        null) is; a boolean for `true`/`True` where a boolean is; otherwise the JSON value
        `raw` holds, or `raw` when it holds none.
    """
    if kinds:
        word = raw.strip(_BLANK)
        if "null" in kinds and word in _NULLS:
            return None
        if kinds <= {"string", "null"}:
            return raw
        if "boolean" in kinds and word in _PY_BOOLEANS:
            return _PY_BOOLEANS[word]
    if raw.lstrip(_BLANK)[:1] not in _JSON_STARTS:
        return raw
    try:
        value = loads(raw)
    except (ValueError, RecursionError):
        return raw
    # A number too large for a float decodes to infinity, which has no JSON text: such a
    # value stays the model's text. Only an exponent or 309 digits can get that large
    # (`true` and `false` hold an `e` too, and are always fine).
    if (
        ("e" in raw or "E" in raw or len(raw) > _FLOAT_DIGITS)
        and type(value) is not bool
        and not _has_json_text(value)
    ):
        return raw
    return value


def _has_json_text(value: Any) -> bool:
    try:
        dumps(value)
    except ValueError:
        return False
    return True
