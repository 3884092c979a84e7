"""JSON schemas for the `tools` of a request, and their strict form.

vLLM enforces a tool's argument schema under `tool_choice="required"` or a named call only
when the tool is marked `"strict": true` (or the server runs with
`--tool-strict-level parameter`); otherwise only the `{"name", "arguments"}` wrapper is
forced. Strict form follows the OpenAI/vLLM rules: every object closed with
`additionalProperties: false`, every property listed in `required`, and a field that was
optional made nullable so the model can still leave it out by sending `null`.
"""

from __future__ import annotations

import copy
from typing import Any

from toolcall_sdk._errors import StrictSchemaError

__all__ = ["clean_schema", "openai_tool_entry", "to_strict_schema"]

# Keywords whose value is one sub-schema.
_SCHEMA_KEYS = ("items", "not", "contains", "if", "then", "else")
# Keywords whose value is a list of sub-schemas.
_SCHEMA_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems")
# Keywords whose value maps names to sub-schemas.
_SCHEMA_MAP_KEYS = ("properties", "$defs", "definitions", "patternProperties")

# Pydantic writes a `title` on every node; small models pay for those tokens in every
# prompt and gain nothing, so they are dropped. `discriminator` is OpenAPI, not JSON Schema.
_NOISE_KEYS = ("title", "discriminator")

# OpenAI's strict mode rejects `default`; a nullable field sent as null means "use it".
_STRICT_DROPPED_KEYS = ("default",)

# Nested $ref chains deeper than this are treated as recursion and kept as references.
_MAX_INLINE_DEPTH = 32


def openai_tool_entry(
    *, name: str, description: str, parameters: dict[str, Any], strict: bool
) -> dict[str, Any]:
    """Build one entry of a request's `tools` list.

    Args:
        name: Function name.
        description: Function description (omitted when empty).
        parameters: The arguments' JSON schema, as Pydantic produces it.
        strict: Convert to strict form and mark the entry `"strict": true`.

    Returns:
        The `{"type": "function", "function": {...}}` dict.

    Raises:
        StrictSchemaError: `strict` is set and the schema cannot be made strict.
    """
    schema = to_strict_schema(parameters, tool_name=name) if strict else clean_schema(parameters)
    function: dict[str, Any] = {"name": name}
    if description:
        function["description"] = description
    function["parameters"] = schema
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of `schema` without titles and other keys models don't need."""
    return _Cleaner(schema, strict=False, tool_name=None).run()


def to_strict_schema(schema: dict[str, Any], *, tool_name: str | None = None) -> dict[str, Any]:
    """Return the strict form of `schema`.

    Non-recursive `$ref`s are inlined (some decoders handle references poorly); recursive
    ones are kept, with their `$defs` converted too.

    Raises:
        StrictSchemaError: A part cannot be made strict, e.g. a free-form mapping
            (`dict[str, X]`), which has no fixed list of properties.
    """
    return _Cleaner(schema, strict=True, tool_name=tool_name).run()


class _Cleaner:
    def __init__(self, root: dict[str, Any], *, strict: bool, tool_name: str | None) -> None:
        self.root = root
        self.strict = strict
        self.tool_name = tool_name
        self.defs: dict[str, Any] = dict(root.get("$defs") or root.get("definitions") or {})
        self.kept_refs: set[str] = set()

    def run(self) -> dict[str, Any]:
        result: dict[str, Any] = self.node(self.root, path="", ref_stack=())
        result.pop("$defs", None)
        result.pop("definitions", None)
        if self.kept_refs:
            # Convert every definition reachable from a kept (recursive) reference.
            converted: dict[str, Any] = {}
            pending = list(self.kept_refs)
            while pending:
                ref_name = pending.pop()
                if ref_name in converted:
                    continue
                before = set(self.kept_refs)
                converted[ref_name] = self.node(
                    self.defs[ref_name], path=f"/$defs/{ref_name}", ref_stack=(ref_name,)
                )
                pending.extend(self.kept_refs - before)
            result["$defs"] = converted
        return result

    def node(self, schema: Any, *, path: str, ref_stack: tuple[str, ...]) -> Any:
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self.reference(schema, ref, path=path, ref_stack=ref_stack)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _NOISE_KEYS or (self.strict and key in _STRICT_DROPPED_KEYS):
                continue
            if key in _SCHEMA_KEYS:
                out[key] = self.node(value, path=f"{path}/{key}", ref_stack=ref_stack)
            elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
                out[key] = [
                    self.node(item, path=f"{path}/{key}/{i}", ref_stack=ref_stack)
                    for i, item in enumerate(value)
                ]
            elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
                if key in ("$defs", "definitions"):
                    continue  # handled in run(): inlined or converted once
                out[key] = {
                    name: self.node(sub, path=f"{path}/{key}/{name}", ref_stack=ref_stack)
                    for name, sub in value.items()
                }
            elif key == "additionalProperties" and isinstance(value, dict):
                out[key] = self.node(value, path=f"{path}/{key}", ref_stack=ref_stack)
            else:
                out[key] = copy.deepcopy(value)
        if self.strict:
            out = self.strict_node(schema, out, path=path)
        return out

    def reference(
        self, schema: dict[str, Any], ref: str, *, path: str, ref_stack: tuple[str, ...]
    ) -> dict[str, Any]:
        prefix = next((p for p in ("#/$defs/", "#/definitions/") if ref.startswith(p)), None)
        if prefix is None or ref[len(prefix) :] not in self.defs:
            raise StrictSchemaError(
                f"unsupported reference {ref!r} at {path or '/'}: only local $defs are handled",
                tool_name=self.tool_name,
                path=path,
            )
        name = ref[len(prefix) :]
        siblings = {k: v for k, v in schema.items() if k != "$ref" and k not in _NOISE_KEYS}
        if name in ref_stack or len(ref_stack) >= _MAX_INLINE_DEPTH:
            self.kept_refs.add(name)
            kept: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
            if siblings.get("description"):
                kept["description"] = siblings["description"]
            return kept
        inlined = self.node(self.defs[name], path=path, ref_stack=(*ref_stack, name))
        if not isinstance(inlined, dict):
            return {"$ref": ref}
        for key, value in siblings.items():
            if key in ("description",) or (key not in inlined and key not in _STRICT_DROPPED_KEYS):
                inlined[key] = copy.deepcopy(value)
        return inlined

    def strict_node(
        self, original: dict[str, Any], out: dict[str, Any], *, path: str
    ) -> dict[str, Any]:
        if "oneOf" in out:
            # Strict decoders accept anyOf; for disjoint variants the meaning is the same.
            out["anyOf"] = out.pop("oneOf")
        if "allOf" in out and len(out["allOf"]) == 1 and isinstance(out["allOf"][0], dict):
            merged = dict(out.pop("allOf")[0])
            merged.update(out)
            out = merged
        is_object = out.get("type") == "object" or (
            isinstance(out.get("type"), list) and "object" in out["type"]
        )
        if not is_object and "properties" not in out:
            return out
        properties: dict[str, Any] = out.get("properties") or {}
        extra = original.get("additionalProperties")
        if (
            "patternProperties" in out
            or isinstance(extra, dict)
            or (not properties and extra is not False)
        ):
            raise StrictSchemaError(
                f"the object at {path or '/'} has no fixed set of properties (a free-form "
                "mapping such as dict[str, ...]); strict mode needs every key named. Use a "
                "nested Pydantic model, or pass strict=False for this tool",
                tool_name=self.tool_name,
                path=path,
            )
        originally_required = set(original.get("required") or [])
        out["properties"] = {
            name: sub if name in originally_required else _nullable(sub)
            for name, sub in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
        return out


def _nullable(schema: Any) -> Any:
    """Let `schema` also accept null (an optional field in strict form)."""
    if not isinstance(schema, dict):
        return schema
    if _accepts_null(schema):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str) and "enum" not in out and "const" not in out:
        out["type"] = [kind, "null"]
        return out
    if isinstance(kind, list) and "enum" not in out and "const" not in out:
        out["type"] = [*kind, "null"]
        return out
    if "anyOf" in out and isinstance(out["anyOf"], list):
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    description = out.pop("description", None)
    wrapped: dict[str, Any] = {"anyOf": [out, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped


def _accepts_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    variants = schema.get("anyOf")
    if isinstance(variants, list):
        return any(isinstance(v, dict) and _accepts_null(v) for v in variants)
    return not schema  # the empty schema accepts anything
