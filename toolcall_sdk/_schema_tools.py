"""Tools from OpenAI tool definitions: the JSON Schema becomes the Pydantic arguments model.

`tools=[{"type": "function", "function": {...}}]` works like `@tool`: the arguments are
validated by a Pydantic model, and a rejected call gets the same feedback and retry. The
model is built from the definition's `parameters` and holds JSON values as the model sent
them: scalars are strict (`"5"` is not an integer; the deterministic repairs turn such
lossless strings into numbers before validation), and a string `format` (`date`,
`date-time`, `time`, `email`, `uri`, `uuid`, `ipv4`, `ipv6`) is checked but the value stays
a string. So `arguments_dict(call.arguments)` gives back JSON the schema accepts.

Supported: `type` (one or a list), `enum`, `const`, `nullable`, local `$ref` (`$defs`,
`definitions`, `#`), `anyOf`/`oneOf` (as a union), `allOf` (merged), nested objects,
`additionalProperties` (false, true or a schema), arrays (`items`, `minItems`, `maxItems`,
`uniqueItems`), string bounds (`minLength`, `maxLength`, `pattern`), numeric bounds
(`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` in both drafts' forms,
`multipleOf`). A `pattern` Python's `re` cannot compile is not enforced (ECMA-only syntax).
"""

from __future__ import annotations

import copy
import inspect
import ipaddress
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import date, datetime, time
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    AnyUrl,
    BaseModel,
    ConfigDict,
    Field,
    PydanticUserError,
    Strict,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic_core import PydanticCustomError, SchemaError

from toolcall_sdk._context import RunContext
from toolcall_sdk._errors import StrictSchemaError, ToolDefinitionError
from toolcall_sdk._schema import openai_tool_entry
from toolcall_sdk._tools import Tool

__all__ = ["SchemaTool", "arguments_dict", "tool_from_openai"]

Handler = Callable[[dict[str, Any]], Any] | Callable[[dict[str, Any]], Awaitable[Any]]

# Nested objects (and $ref hops) deeper than this accept any value: real tool schemas are
# shallow, and the cap ends a self-referencing schema's recursion.
_MAX_DEPTH = 8
_FIELD_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# A short, anchored e-mail check: pydantic's EmailStr needs the email-validator package.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class SchemaTool(Tool[..., Any]):
    """A tool defined by an OpenAI tool definition; call-only unless it has a handler.

    Attributes:
        definition: The `{"type": "function", "function": {...}}` entry it was built from.
        handler: Called by `run()` with the validated arguments as one JSON dict (sync or
            async), or None for a call-only tool.
    """

    def __init__(
        self,
        *,
        definition: dict[str, Any],
        args_model: type[BaseModel],
        handler: Handler | None = None,
        strict: bool | None = None,
        verbatim: bool = False,
    ) -> None:
        function = definition["function"]
        super().__init__(
            name=function["name"],
            description=function.get("description") or "",
            args_model=args_model,
            function=handler,
            strict=strict,
        )
        self.definition = definition
        self.handler = handler
        self._verbatim = verbatim
        self.is_async = handler is not None and inspect.iscoroutinefunction(handler)

    def __repr__(self) -> str:
        target = "call-only" if self.handler is None else "handler"
        return f"<SchemaTool {self.name!r} ({target})>"

    def openai_schema(self, *, strict: bool = True) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool.

        Follows the client's `strict` unless the definition set `"strict"` itself. A schema
        that cannot be made strict (a free-form object) is sent in its plain form, unless
        the definition asked for `"strict": true`, which then raises `StrictSchemaError`.
        """
        if self._verbatim:
            return copy.deepcopy(self.definition)
        function = self.definition["function"]
        parameters = copy.deepcopy(function.get("parameters") or _EMPTY_OBJECT)
        use_strict = strict if self.strict is None else self.strict
        for strict_form in (True, False) if use_strict else (False,):
            try:
                return openai_tool_entry(
                    name=self.name,
                    description=self.description,
                    parameters=parameters,
                    strict=strict_form,
                )
            except StrictSchemaError:
                if strict_form and self.strict:
                    raise
        # References the cleaner does not follow (`#` itself): the parameters as written.
        plain = {"name": self.name, "description": self.description, "parameters": parameters}
        return {"type": "function", "function": {k: v for k, v in plain.items() if v}}

    def invoke(self, arguments: BaseModel, context: RunContext[Any] | None = None) -> Any:
        """Call the handler with the validated arguments as a JSON dict.

        A schema tool takes no `RunContext`: `context` is accepted and not passed on.
        """
        if self.handler is None:
            raise ToolDefinitionError(
                f"tool {self.name!r} is call-only (a JSON Schema definition without a "
                "handler); it cannot be run. Use call(), or give it one: "
                "tool_from_openai(definition, handler=...)",
                tool_name=self.name,
            )
        return self.handler(arguments_dict(arguments))


_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def tool_from_openai(
    definition: Mapping[str, Any],
    handler: Handler | None = None,
    *,
    strict: bool | None = None,
    verbatim: bool = False,
) -> SchemaTool:
    """Build an SDK tool from an OpenAI tool definition.

    Clients call this for every dict in `tools=[...]`; call it yourself to attach a handler.

    Args:
        definition: `{"type": "function", "function": {"name", "description",
            "parameters", "strict"?}}`; the bare `function` object is accepted too.
        handler: What `run()` calls with the validated arguments (one dict of JSON values,
            keys as in the schema); sync or async. Without one the tool is call-only and
            `run()` records a `ToolDefinitionError` as the call's error, as for a tool made
            from a Pydantic model.
        strict: Force (True) or disable (False) the strict schema form; None takes the
            definition's own `"strict"`, else the client's setting.
        verbatim: Send `definition` exactly as given (no strict form, nothing dropped).

    Returns:
        The tool.

    Raises:
        ToolDefinitionError: The definition has no valid function name or its parameters
            are not an object schema.
    """
    if not isinstance(definition, Mapping):
        raise ToolDefinitionError(f"a tool definition must be a dict, got {definition!r}")
    entry = dict(definition)
    if "function" not in entry and "name" in entry:
        entry = {"type": "function", "function": entry}
    function = entry.get("function")
    if entry.get("type", "function") != "function" or not isinstance(function, Mapping):
        raise ToolDefinitionError(
            'a tool definition looks like {"type": "function", "function": {"name": ..., '
            f'"parameters": {{...}}}}}}; got {_short(definition)}'
        )
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(f"the tool definition has no function.name: {_short(definition)}")
    parameters = function.get("parameters")
    if parameters is None:
        parameters = _EMPTY_OBJECT
    if not isinstance(parameters, Mapping) or parameters.get("type", "object") != "object":
        raise ToolDefinitionError(
            f"tool {name!r}: function.parameters must be a JSON Schema of type object",
            tool_name=name,
        )
    if strict is None and isinstance(function.get("strict"), bool):
        strict = function["strict"]
    try:
        entry = copy.deepcopy({**entry, "type": "function"})
        builder = _Builder(dict(parameters))
        model = builder.object_model(_title(name), dict(parameters), depth=0)
        return SchemaTool(
            definition=entry, args_model=model, handler=handler, strict=strict, verbatim=verbatim
        )
    except ToolDefinitionError:
        raise
    except (
        AttributeError,
        TypeError,
        ValueError,
        KeyError,
        IndexError,
        RecursionError,
        SchemaError,
        PydanticUserError,
    ) as exc:
        # A schema of the wrong shape somewhere inside (`properties` as a list,
        # `required: 5`, `multipleOf: 0`, nesting past the interpreter's stack): the
        # definition is refused with what broke, never an internal error.
        raise ToolDefinitionError(
            f"tool {name!r}: function.parameters is not a JSON Schema this SDK can read "
            f"({type(exc).__name__}: {_short(str(exc))}); fix the schema",
            tool_name=name,
        ) from exc


def arguments_dict(arguments: BaseModel) -> dict[str, Any]:
    """The validated arguments of a schema tool's call as JSON values, keys as in the schema.

    Fields the model did not send are left out (their `default` is the schema's business);
    a `null` sent for an optional field that does not accept null is left out too.
    """
    return arguments.model_dump(mode="json", by_alias=True, exclude_unset=True)


class _Builder:
    """Turns one `parameters` schema (the root that `$ref`s point into) into models."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.names: set[str] = set()

    def object_model(self, name: str, schema: dict[str, Any], *, depth: int) -> type[BaseModel]:
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        fields: dict[str, Any] = {}
        taken = set(properties)
        for index, (key, prop) in enumerate(properties.items()):
            sub = prop if isinstance(prop, dict) else {}
            annotation = self.annotation(f"{name}_{key}", sub, depth + 1)
            python_name = _python_name(str(key), index, taken)
            options: dict[str, Any] = {}
            if python_name != key:
                # The model's JSON keeps its spelling through the alias.
                options["alias"] = key
            if key in required:
                fields[python_name] = (annotation, Field(..., **options))
            else:
                # Not made nullable: a `null` for an optional field that does not accept
                # null is dropped before validation (the strict form sends it that way).
                default = copy.deepcopy(sub.get("default"))
                fields[python_name] = (annotation, Field(default, **options))
        extra = schema.get("additionalProperties", True)
        config = ConfigDict(
            extra="forbid" if extra is False else "allow",
            regex_engine="python-re",
            protected_namespaces=(),
        )
        if isinstance(extra, dict) and extra:
            # The values of keys not named in `properties` follow this schema.
            extra_type = self.annotation(f"{name}_extra", extra, depth + 1)
            fields["__pydantic_extra__"] = (dict[str, extra_type], Field(init=False))  # type: ignore[valid-type]
        return create_model(self._unique(name), __config__=config, **fields)

    def annotation(self, name: str, schema: Any, depth: int) -> Any:
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return Any
        schema = self.resolve(schema, depth)
        if schema is None:
            return Any
        if "allOf" in schema:
            schema = self.merge_all_of(schema, depth)
        annotation = self.base_annotation(name, schema, depth)
        if schema.get("nullable") is True and annotation is not Any:
            annotation = _optional(annotation)
        return annotation

    def base_annotation(self, name: str, schema: dict[str, Any], depth: int) -> Any:
        if "const" in schema:
            return _choice([schema["const"]])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return _choice(schema["enum"])
        kind = schema.get("type")
        if isinstance(kind, list):
            return self.type_list(name, schema, kind, depth)
        variants = schema.get("anyOf", schema.get("oneOf"))
        if kind is None and isinstance(variants, list) and variants:
            return self.union_of(name, variants, depth)
        if kind == "array":
            return self.array(name, schema, depth)
        if kind == "object" or (kind is None and "properties" in schema):
            return self.object(name, schema, depth)
        return _scalar(kind, schema)

    def type_list(self, name: str, schema: dict[str, Any], kinds: list[Any], depth: int) -> Any:
        """`"type": ["string", "integer", "null"]`: a union, nullable when it names null."""
        options = [
            self.base_annotation(name, {**schema, "type": k}, depth) for k in kinds if k != "null"
        ]
        base = _union(options) if options else None
        if "null" not in kinds:
            return base if base is not None else Any
        return _optional(base)

    def union_of(self, name: str, variants: list[Any], depth: int) -> Any:
        nullable = False
        options: list[Any] = []
        for position, variant in enumerate(variants):
            resolved = self.resolve(variant, depth) if isinstance(variant, dict) else None
            if resolved is not None and resolved.get("type") == "null":
                nullable = True
                continue
            options.append(self.annotation(f"{name}_{position}", variant, depth))
        if not options:
            return None if nullable else Any
        if Any in options:
            return Any
        base = _union(options)
        return _optional(base) if nullable else base

    def array(self, name: str, schema: dict[str, Any], depth: int) -> Any:
        items = schema.get("items")
        inner = (
            self.annotation(f"{name}_item", items, depth + 1) if isinstance(items, dict) else Any
        )
        constraints: dict[str, Any] = {"strict": True}
        for key, target in (("minItems", "min_length"), ("maxItems", "max_length")):
            if _is_int(schema.get(key)):
                constraints[target] = schema[key]
        validators: list[Any] = []
        if schema.get("uniqueItems") is True:
            validators.append(AfterValidator(_unique_items))
        return Annotated[list[inner], Field(**constraints), *validators]  # type: ignore[valid-type]

    def object(self, name: str, schema: dict[str, Any], depth: int) -> Any:
        extra = schema.get("additionalProperties", True)
        if schema.get("properties") or extra is False:
            return self.object_model(_title(name), schema, depth=depth)
        if isinstance(extra, dict) and extra:
            value = self.annotation(f"{name}_value", extra, depth + 1)
            return Annotated[dict[str, value], Strict()]  # type: ignore[valid-type]
        return Annotated[dict[str, Any], Strict()]

    def resolve(self, schema: dict[str, Any], depth: int) -> dict[str, Any] | None:
        """Follow `$ref`s (keeping sibling keywords); None past the depth cap."""
        hops = 0
        while isinstance(schema.get("$ref"), str):
            hops += 1
            if depth + hops > _MAX_DEPTH:
                return None
            target = _pointer(self.root, schema["$ref"])
            if target is None:
                return None
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings}
        return schema

    def merge_all_of(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema.get("allOf") or ():
            resolved = self.resolve(part, depth) if isinstance(part, dict) else None
            if resolved is None:
                continue
            if "allOf" in resolved:
                resolved = self.merge_all_of(resolved, depth + 1)
            for key, value in resolved.items():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required" and isinstance(value, list):
                    merged["required"] = [*merged.get("required", []), *value]
                else:
                    merged.setdefault(key, value)
        return merged

    def _unique(self, name: str) -> str:
        candidate, number = name, 1
        while candidate in self.names:
            number += 1
            candidate = f"{name}{number}"
        self.names.add(candidate)
        return candidate


def _scalar(kind: Any, schema: dict[str, Any]) -> Any:
    if kind == "null":
        return None
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(int if kind == "integer" else float, schema)
    if kind == "boolean":
        return Annotated[bool, Strict()]
    return Any  # no type, or one JSON Schema does not define: any value


def _string(schema: dict[str, Any]) -> Any:
    constraints: dict[str, Any] = {"strict": True}
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and _compiles(pattern):
        constraints["pattern"] = pattern
    for key, target in (("minLength", "min_length"), ("maxLength", "max_length")):
        if _is_int(schema.get(key)):
            constraints[target] = schema[key]
    check = _FORMATS.get(str(schema.get("format")))
    if check is None:
        return Annotated[str, Field(**constraints)]
    return Annotated[str, Field(**constraints), AfterValidator(check)]


def _number(base: type, schema: dict[str, Any]) -> Any:
    constraints: dict[str, Any] = {"strict": True}
    bounds = (
        ("minimum", "ge"),
        ("maximum", "le"),
        ("exclusiveMinimum", "gt"),
        ("exclusiveMaximum", "lt"),
        ("multipleOf", "multiple_of"),
    )
    for key, target in bounds:
        value = schema.get(key)
        if _is_number(value):
            constraints[target] = value
    # Draft 4: `exclusiveMinimum: true` turns `minimum` into a strict bound.
    for flag, inclusive, strict_target in (
        ("exclusiveMinimum", "ge", "gt"),
        ("exclusiveMaximum", "le", "lt"),
    ):
        if schema.get(flag) is True and inclusive in constraints:
            constraints[strict_target] = constraints.pop(inclusive)
    return Annotated[base, Field(**constraints)]


def _choice(values: list[Any]) -> Any:
    if all(isinstance(v, str | int | float | bool) or v is None for v in values):
        return Literal[tuple(values)]
    # Objects and arrays in an enum: compared as canonical JSON.
    allowed = {json.dumps(v, sort_keys=True) for v in values}

    def one_of(value: Any) -> Any:
        if json.dumps(value, sort_keys=True) not in allowed:
            raise PydanticCustomError(
                "enum", "Input should be one of {expected}", {"expected": sorted(allowed)}
            )
        return value

    return Annotated[Any, AfterValidator(one_of)]


def _format_check(what: str, test: Callable[[str], bool]) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not test(value):
            raise PydanticCustomError("format", "Input should be {what}", {"what": what})
        return value

    return check


def _parses(kind: Any) -> Callable[[str], bool]:
    adapter: TypeAdapter[Any] = TypeAdapter(kind)  # built once per format, at import

    def test(value: str) -> bool:
        try:
            adapter.validate_python(value)
        except ValidationError:
            return False
        return True

    return test


def _parses_with(function: Callable[[str], Any]) -> Callable[[str], bool]:
    def test(value: str) -> bool:
        try:
            function(value)
        except ValueError:
            return False
        return True

    return test


def _shaped(shape: str, parses: Callable[[str], bool]) -> Callable[[str], bool]:
    # Pydantic's lax parsers also take forms JSON Schema does not (a bare number of
    # seconds for a date-time); the shape check keeps to the RFC 3339 layout.
    pattern = re.compile(shape)
    return lambda value: bool(pattern.match(value)) and parses(value)


_URI = _parses(AnyUrl)
_FORMATS: dict[str, Callable[[str], str]] = {
    "date": _format_check(
        "a valid date in YYYY-MM-DD form", _shaped(r"\d{4}-\d{2}-\d{2}$", _parses(date))
    ),
    "date-time": _format_check(
        "a valid date-time like 2026-06-01T09:30:00Z",
        _shaped(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}", _parses(datetime)),
    ),
    "time": _format_check("a valid time like 09:30:00", _shaped(r"\d{2}:\d{2}", _parses(time))),
    "email": _format_check("a valid e-mail address", lambda value: bool(_EMAIL.match(value))),
    "uri": _format_check("an absolute URI like https://example.com/x", _URI),
    "url": _format_check("an absolute URL like https://example.com/x", _URI),
    "uuid": _format_check("a UUID", _parses_with(uuid.UUID)),
    "ipv4": _format_check("an IPv4 address", _parses_with(ipaddress.IPv4Address)),
    "ipv6": _format_check("an IPv6 address", _parses_with(ipaddress.IPv6Address)),
}


def _unique_items(values: list[Any]) -> list[Any]:
    seen = [json.dumps(v, sort_keys=True) for v in values]
    if len(set(seen)) != len(seen):
        raise PydanticCustomError("unique_items", "Items should be unique (no duplicates)")
    return values


def _pointer(root: dict[str, Any], ref: str) -> dict[str, Any] | None:
    """A local JSON pointer (`#`, `#/$defs/Name`) into `root`; None when it leads nowhere."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in [p for p in ref[1:].split("/") if p]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node if isinstance(node, dict) else None


def _union(options: list[Any]) -> Any:
    return options[0] if len(options) == 1 else Union[tuple(options)]  # noqa: UP007


def _optional(annotation: Any) -> Any:
    return None if annotation is None else Union[annotation, None]  # noqa: UP007


def _python_name(key: str, index: int, taken: set[str]) -> str:
    if _FIELD_NAME.match(key) and not hasattr(BaseModel, key):
        return key
    candidate = f"field_{index}"
    while candidate in taken:
        candidate += "_"
    taken.add(candidate)
    return candidate


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _title(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "Tool"
    return "".join(part[:1].upper() + part[1:] for part in cleaned.split("_")) + "Args"


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 120 else text[:117] + "..."
