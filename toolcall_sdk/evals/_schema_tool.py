"""SDK tools from OpenAI tool definitions (JSON Schema), for case files and BFCL.

The SDK validates arguments with a Pydantic model; a case file (or BFCL) only has the JSON
Schema. The model built here enforces what decides a call's meaning — types, required
fields, enums, patterns and numeric bounds — and the tool still sends the definition
exactly as the case wrote it, so every pipeline offers the model the same schema.
"""

from __future__ import annotations

import copy
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from toolcall_sdk._tools import Tool

__all__ = ["tool_from_openai"]

# Nested objects deeper than this are accepted as plain dicts: real tool schemas are
# shallow, and the cap keeps a self-referencing schema from recursing forever.
_MAX_DEPTH = 8
_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
_FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _SchemaTool(Tool[..., Any]):
    """A call-only tool whose `tools` entry is the definition it was built from."""

    def __init__(self, *, entry: dict[str, Any], args_model: type[BaseModel]) -> None:
        function = entry["function"]
        super().__init__(
            name=function["name"],
            description=function.get("description") or "",
            args_model=args_model,
        )
        self._entry = entry

    def openai_schema(self, *, strict: bool = True) -> dict[str, Any]:
        # The case's own definition, untouched: the strict rewrite is an SDK choice the
        # eval must not impose on the raw pipelines it compares against.
        return copy.deepcopy(self._entry)


def tool_from_openai(entry: dict[str, Any]) -> Tool[..., Any]:
    """Build a call-only SDK tool from an OpenAI `tools` entry.

    Args:
        entry: `{"type": "function", "function": {"name", "description", "parameters"}}`
            (the bare `function` object is accepted too).

    Returns:
        A tool that validates arguments against the schema and sends `entry` as is.

    Raises:
        ValueError: The entry has no function name.
    """
    if "function" not in entry and "name" in entry:
        entry = {"type": "function", "function": entry}
    function = entry.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise ValueError("a tool definition needs function.name")
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    model = _object_model(_title(function["name"]), parameters, depth=0)
    return _SchemaTool(entry=copy.deepcopy(entry), args_model=model)


def _object_model(name: str, schema: dict[str, Any], *, depth: int) -> type[BaseModel]:
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    fields: dict[str, Any] = {}
    for key, prop in properties.items():
        annotation = _annotation(f"{name}_{key}", prop if isinstance(prop, dict) else {}, depth)
        # Field names Python cannot use keep their spelling through an alias.
        python_name = key if _FIELD_NAME.match(key) and not key.startswith("_") else f"f_{key}"
        python_name = python_name if _FIELD_NAME.match(python_name) else f"f_{abs(hash(key))}"
        alias = {"alias": key} if python_name != key else {}
        if key in required:
            fields[python_name] = (annotation, Field(..., **alias))
        else:
            default = prop.get("default") if isinstance(prop, dict) else None
            fields[python_name] = (annotation | None, Field(default, **alias))
    extra: Literal["forbid", "ignore"] = (
        "forbid" if schema.get("additionalProperties") is False else "ignore"
    )
    config = ConfigDict(extra=extra, populate_by_name=True, protected_namespaces=())
    return create_model(name, __config__=config, **fields)


def _annotation(name: str, schema: dict[str, Any], depth: int) -> Any:
    if schema.get("enum"):
        return Literal[tuple(schema["enum"])]
    kind = schema.get("type")
    if isinstance(kind, list):
        options = [_annotation(name, {**schema, "type": k}, depth) for k in kind if k != "null"]
        base: Any = options[0] if len(options) == 1 else (Any if not options else _union(options))
        return base | None if "null" in kind else base
    if kind in _SCALARS:
        return _constrained(_SCALARS[kind], schema)
    if kind == "array":
        items = schema.get("items")
        inner = _annotation(name, items, depth + 1) if isinstance(items, dict) else Any
        return list[inner]  # type: ignore[valid-type]
    if kind == "object" or "properties" in schema:
        if schema.get("properties") and depth < _MAX_DEPTH:
            return _object_model(_title(name), schema, depth=depth + 1)
        return dict[str, Any]
    for combinator in ("anyOf", "oneOf"):
        if isinstance(schema.get(combinator), list):
            options = [
                _annotation(name, option, depth)
                for option in schema[combinator]
                if isinstance(option, dict) and option.get("type") != "null"
            ]
            if options:
                return _union(options)
    return Any


def _union(options: list[Any]) -> Any:
    result = options[0]
    for option in options[1:]:
        result = result | option
    return result


def _constrained(base: type, schema: dict[str, Any]) -> Any:
    constraints: dict[str, Any] = {}
    if base is str:
        if isinstance(schema.get("pattern"), str):
            constraints["pattern"] = schema["pattern"]
        for key, target in (("minLength", "min_length"), ("maxLength", "max_length")):
            if isinstance(schema.get(key), int):
                constraints[target] = schema[key]
    elif base in (int, float):
        for key, target in (
            ("minimum", "ge"),
            ("maximum", "le"),
            ("exclusiveMinimum", "gt"),
            ("exclusiveMaximum", "lt"),
        ):
            value = schema.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                constraints[target] = value
    if not constraints:
        return base
    return Annotated[base, Field(**constraints)]


def _title(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "Tool"
    return "".join(part[:1].upper() + part[1:] for part in cleaned.split("_")) + "Args"
