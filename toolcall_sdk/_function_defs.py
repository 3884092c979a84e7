"""Reading an OpenAI function definition and a call's arguments, as sent and as written.

The repairs that read a model's call against the offered tools (`_meant_tool`, and the
example check of `grounding._examples`) ask the same three things: the definition's
parameters, the branches of a (possibly nullable) parameter schema, and the call's
arguments as an object whatever form they came in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["arguments_object", "parameters_of", "schema_branches"]


def parameters_of(function: Mapping[str, Any]) -> Mapping[str, Any]:
    """The `properties` of a function definition's `parameters`; empty when there are none."""
    parameters = function.get("parameters")
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    return properties if isinstance(properties, Mapping) else {}


def schema_branches(schema: Any) -> list[Mapping[str, Any]]:
    """A parameter schema and each branch of its `anyOf` (the strict form's nullable)."""
    if not isinstance(schema, Mapping):
        return []
    return [schema, *(b for b in schema.get("anyOf") or () if isinstance(b, Mapping))]


def arguments_object(arguments: Any) -> dict[str, Any]:
    """A call's arguments as an object: JSON text read, an object as it is; else empty."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):  # nested past the parser's depth: not ours
            return {}
    return arguments if isinstance(arguments, dict) else {}
