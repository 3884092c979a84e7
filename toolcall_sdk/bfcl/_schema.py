"""BFCL function documents to OpenAI tool definitions.

BFCL writes parameter types in its own vocabulary (`dict`, `float`, `tuple`, `any`, and Java
or JavaScript type names for those categories) and uses dotted function names, which the
OpenAI tool format does not allow. This module converts both, recursively and without
touching the input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["openai_name", "to_json_schema", "to_openai_tool", "to_openai_tools"]

# BFCL type name -> JSON Schema type. `None` drops the type (any value is allowed).
# Java and JavaScript names map to their natural JSON counterpart; the BFCL checker for those
# categories compares string renderings, so the values travel as JSON anyway.
_TYPE_MAP: dict[str, str | None] = {
    "dict": "object",
    "object": "object",
    "hashmap": "object",
    "map": "object",
    "float": "number",
    "double": "number",
    "number": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "bigint": "integer",
    "string": "string",
    "str": "string",
    "char": "string",
    "character": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "arraylist": "array",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "any": None,
    "": None,
}
# Keys of a BFCL parameter schema that are not JSON Schema and would only confuse a server.
_DROP_KEYS = frozenset({"optional"})
# OpenAI function names: letters, digits, underscores and dashes, at most 64 characters.
_NAME_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def openai_name(name: str) -> str:
    """The OpenAI-safe form of a BFCL function name (`math.hypot` -> `math_hypot`)."""
    return _NAME_UNSAFE.sub("_", name)[:64]


def to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Convert one BFCL parameter schema (and everything nested in it) to JSON Schema."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROP_KEYS:
            continue
        if key == "type":
            converted = _convert_type(value)
            if converted is not None:
                out["type"] = converted
        elif key == "properties" and isinstance(value, Mapping):
            out["properties"] = {
                str(name): to_json_schema(sub) if isinstance(sub, Mapping) else {}
                for name, sub in value.items()
            }
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = to_json_schema(value)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            out[key] = [to_json_schema(v) if isinstance(v, Mapping) else v for v in value]
        else:
            out[key] = value
    return out


def to_openai_tool(function: Mapping[str, Any]) -> dict[str, Any]:
    """One BFCL function document as an OpenAI tool dict."""
    parameters = function.get("parameters") or {}
    schema = to_json_schema(parameters) if isinstance(parameters, Mapping) else {}
    # A tool's parameters must be an object schema even when BFCL leaves the type out.
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return {
        "type": "function",
        "function": {
            "name": openai_name(str(function["name"])),
            "description": str(function.get("description", "")),
            "parameters": schema,
        },
    }


def to_openai_tools(functions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BFCL function documents as OpenAI tool dicts, in the same order."""
    return [to_openai_tool(function) for function in functions]


def _convert_type(value: Any) -> Any:
    if isinstance(value, list):  # a union of types
        converted = [_convert_type(v) for v in value]
        return None if None in converted else converted
    if not isinstance(value, str):
        return value
    lowered = value.strip().lower()
    if lowered in _TYPE_MAP:
        return _TYPE_MAP[lowered]
    # Generic Java types such as `ArrayList<String>` or `Map<String, Integer>`.
    base = lowered.split("<", 1)[0].strip()
    if base in _TYPE_MAP:
        return _TYPE_MAP[base]
    if lowered.endswith("[]"):
        return "array"
    # An unknown class name (a Java object, a JS element): any value.
    return None
