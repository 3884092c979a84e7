"""Tools from OpenAI definitions: the JSON Schema → Pydantic model, its strict form, its use."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from toolcall_sdk import StrictSchemaError, ToolDefinitionError, tool_from_openai
from toolcall_sdk._schema_tools import arguments_dict
from toolcall_sdk.evals import tool_from_openai as eval_tool


def definition(parameters: dict[str, Any], **function: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": "f", "description": "A tool.", "parameters": parameters, **function},
    }


def one_field(schema: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    return definition(
        {"type": "object", "properties": {"x": schema}, "required": ["x"] if required else []}
    )


def errors(entry: dict[str, Any], data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    model = tool_from_openai(entry).args_model
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [(e["loc"], e["msg"]) for e in caught.value.errors(include_url=False)]


def accepts(entry: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    model = tool_from_openai(entry).args_model
    return arguments_dict(model.model_validate(data))


@pytest.mark.parametrize(
    ("schema", "good", "bad", "message"),
    [
        ({"type": "string"}, "a", 5, "Input should be a valid string"),
        ({"type": "integer"}, 5, "5", "Input should be a valid integer"),
        ({"type": "integer"}, -3, 5.5, "Input should be a valid integer"),
        ({"type": "number"}, 2.5, "2.5", "Input should be a valid number"),
        ({"type": "boolean"}, True, "true", "Input should be a valid boolean"),
        ({"type": "null"}, None, 0, "Input should be None"),
        ({"enum": ["VND", "USD"]}, "USD", "EUR", "Input should be 'VND' or 'USD'"),
        ({"const": "fixed"}, "fixed", "other", "Input should be 'fixed'"),
        ({"enum": [{"a": 1}, [1, 2]]}, [1, 2], [2, 1], "Input should be one of"),
        ({"type": "string", "minLength": 2}, "ab", "a", "at least 2 characters"),
        ({"type": "string", "maxLength": 2}, "ab", "abc", "at most 2 characters"),
        ({"type": "string", "pattern": r"^CUS-\d{6}$"}, "CUS-000123", "CUS-1", "match pattern"),
        # ECMA look-ahead: Python's `re` handles what pydantic's default engine cannot.
        ({"type": "string", "pattern": r"^(?=.*\d)\w+$"}, "ab1", "abc", "match pattern"),
        ({"type": "integer", "minimum": 1}, 1, 0, "greater than or equal to 1"),
        ({"type": "integer", "maximum": 9}, 9, 10, "less than or equal to 9"),
        ({"type": "number", "exclusiveMinimum": 0}, 0.1, 0, "greater than 0"),
        ({"type": "number", "exclusiveMaximum": 1}, 0.9, 1, "less than 1"),
        ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, 1, 0, "greater than 0"),
        ({"type": "number", "maximum": 5, "exclusiveMaximum": True}, 4, 5, "less than 5"),
        ({"type": "number", "multipleOf": 0.5}, 1.5, 1.2, "multiple of 0.5"),
        ({"type": "string", "format": "date"}, "2026-06-01", "2026-02-30", "YYYY-MM-DD"),
        ({"type": "string", "format": "date"}, "2026-06-01", "June 1st", "YYYY-MM-DD"),
        (
            {"type": "string", "format": "date-time"},
            "2026-06-01T09:30:00+07:00",
            "1717230000",
            "valid date-time",
        ),
        ({"type": "string", "format": "time"}, "09:30:00", "9.30", "valid time"),
        ({"type": "string", "format": "email"}, "a@b.co", "nobody", "e-mail address"),
        ({"type": "string", "format": "uri"}, "https://x.org/a", "x.org", "absolute URI"),
        (
            {"type": "string", "format": "uuid"},
            "12345678-1234-5678-1234-567812345678",
            "123",
            "UUID",
        ),
        ({"type": "string", "format": "ipv4"}, "10.0.0.1", "10.0.0.300", "IPv4"),
        ({"type": "array", "items": {"type": "integer"}}, [1, 2], [1, "x"], "valid integer"),
        ({"type": "array", "minItems": 1}, ["a"], [], "at least 1 item"),
        ({"type": "array", "maxItems": 1}, ["a"], ["a", "b"], "at most 1 item"),
        ({"type": "array", "uniqueItems": True}, [1, 2], [1, 1], "unique"),
        ({"type": ["string", "null"]}, None, 5, "valid string"),
        ({"type": ["string", "integer"]}, 5, 1.5, "valid"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, 5, "valid string"),
        ({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, True, "x", "valid"),
        ({"type": "string", "nullable": True}, None, 5, "valid string"),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            {"a": 1},
            {"a": "1"},
            "valid integer",
        ),
        ({"type": "object"}, {"any": ["thing"]}, [1], "valid dictionary"),
    ],
)
def test_keyword_is_enforced(schema: dict[str, Any], good: Any, bad: Any, message: str) -> None:
    entry = one_field(schema)

    assert accepts(entry, {"x": good}) == {"x": good}
    [(location, text)] = errors(entry, {"x": bad})[:1]
    assert location[0] == "x"
    assert message in text


def test_format_values_stay_the_strings_the_model_sent() -> None:
    entry = definition(
        {
            "type": "object",
            "properties": {
                "due": {"type": "string", "format": "date"},
                "at": {"type": "string", "format": "date-time"},
                "site": {"type": "string", "format": "uri"},
            },
            "required": ["due", "at", "site"],
        }
    )
    sent = {"due": "2026-06-01", "at": "2026-06-01T09:30:00Z", "site": "https://x.org"}

    assert accepts(entry, sent) == sent  # no trailing "/" added, no datetime object


def test_refs_defs_and_nested_objects() -> None:
    entry = definition(
        {
            "type": "object",
            "$defs": {
                "Address": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "minLength": 2}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
                "Line": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "quantity": {"type": "integer", "minimum": 1},
                    },
                    "required": ["sku", "quantity"],
                },
            },
            "properties": {
                "ship_to": {"$ref": "#/$defs/Address"},
                "bill_to": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]},
                "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}, "minItems": 1},
            },
            "required": ["ship_to", "lines"],
            "additionalProperties": False,
        }
    )
    good = {"ship_to": {"city": "Oslo"}, "bill_to": None, "lines": [{"sku": "A", "quantity": 2}]}

    assert accepts(entry, good) == good
    assert errors(
        entry,
        {"ship_to": {"city": "O", "zip": "1"}, "lines": [{"sku": "A", "quantity": 0}], "extra": 1},
    ) == [
        (("ship_to", "city"), "String should have at least 2 characters"),
        (("ship_to", "zip"), "Extra inputs are not permitted"),
        (("lines", 0, "quantity"), "Input should be greater than or equal to 1"),
        (("extra",), "Extra inputs are not permitted"),
    ]


def test_definitions_ref_allof_and_recursion() -> None:
    entry = definition(
        {
            "type": "object",
            "definitions": {
                "Named": {"type": "object", "properties": {"name": {"type": "string"}}},
                "Node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer"},
                        "next": {"$ref": "#/definitions/Node"},
                    },
                },
            },
            "properties": {
                "person": {
                    "allOf": [
                        {"$ref": "#/definitions/Named"},
                        {"properties": {"age": {"type": "integer"}}, "required": ["age"]},
                    ]
                },
                "list": {"$ref": "#/definitions/Node"},
            },
        }
    )
    good = {"person": {"name": "Ann", "age": 3}, "list": {"value": 1, "next": {"value": 2}}}

    assert accepts(entry, good) == good
    assert errors(entry, {"person": {"name": "Ann"}, "list": {"next": {"value": "2"}}}) == [
        (("person", "age"), "Field required"),
        (("list", "next", "value"), "Input should be a valid integer"),
    ]


def test_additional_properties_default_allows_and_keeps_extra_keys() -> None:
    entry = one_field({"type": "object", "properties": {"a": {"type": "integer"}}})

    assert accepts(entry, {"x": {"a": 1, "b": "kept"}, "top": True}) == {
        "x": {"a": 1, "b": "kept"},
        "top": True,
    }


def test_typed_additional_properties_next_to_named_ones() -> None:
    entry = one_field(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "integer"},
        }
    )

    assert accepts(entry, {"x": {"a": "s", "b": 2}}) == {"x": {"a": "s", "b": 2}}
    assert errors(entry, {"x": {"a": "s", "b": "2"}}) == [
        (("x", "b"), "Input should be a valid integer")
    ]


def test_keys_python_cannot_use_keep_their_spelling() -> None:
    entry = definition(
        {
            "type": "object",
            "properties": {
                "first-name": {"type": "string"},
                "json": {"type": "integer"},
                "_id": {"type": "string"},
                "model_config": {"type": "string"},
            },
            "required": ["first-name", "json", "_id", "model_config"],
        }
    )
    sent = {"first-name": "Ann", "json": 1, "_id": "i", "model_config": "c"}

    assert accepts(entry, sent) == sent
    assert errors(entry, {**sent, "first-name": 1})[0] == (
        ("first-name",),
        "Input should be a valid string",
    )


def test_optional_fields_left_out_and_required_nulls_rejected() -> None:
    entry = definition(
        {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                "note": {"type": ["string", "null"]},
            },
            "required": ["city"],
        }
    )
    tool = tool_from_openai(entry)

    # Fields the model did not send are not invented; an explicit null on a nullable
    # field is kept.
    assert accepts(entry, {"city": "Oslo", "note": None}) == {"city": "Oslo", "note": None}
    assert tool.args_model.model_validate({"city": "Oslo"}).unit == "c"  # type: ignore[attr-defined]
    assert errors(entry, {"city": None}) == [(("city",), "Input should be a valid string")]


def test_strict_form_is_sent_by_default() -> None:
    entry = definition(
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        }
    )

    sent = tool_from_openai(entry).openai_schema(strict=True)["function"]

    assert sent["strict"] is True
    assert sent["parameters"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    }
    assert "strict" not in tool_from_openai(entry).openai_schema(strict=False)["function"]


def test_free_form_schema_falls_back_to_the_plain_form() -> None:
    no_parameters = {"type": "function", "function": {"name": "now"}}
    free_form = one_field({"type": "object"})

    assert tool_from_openai(no_parameters).openai_schema(strict=True) == {
        "type": "function",
        "function": {"name": "now", "parameters": {"type": "object", "properties": {}}},
    }
    assert "strict" not in tool_from_openai(free_form).openai_schema(strict=True)["function"]
    # Asked for by the definition itself, an impossible strict form is an error.
    asks_strict = tool_from_openai(
        {**free_form, "function": {**free_form["function"], "strict": True}}
    )
    with pytest.raises(StrictSchemaError, match="no fixed set of properties"):
        asks_strict.openai_schema(strict=True)


def test_definition_strict_false_wins_over_the_client() -> None:
    entry = definition({"type": "object", "properties": {"a": {"type": "string"}}}, strict=False)

    assert "strict" not in tool_from_openai(entry).openai_schema(strict=True)["function"]


def test_bare_function_object_and_verbatim_eval_tools() -> None:
    bare = {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}

    assert tool_from_openai(bare).name == "f"
    assert eval_tool(bare).openai_schema(strict=True) == {"type": "function", "function": bare}


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "function", "function": {"description": "no name"}},
        {"type": "retrieval"},
        {"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}},
        {"type": "function", "function": {"name": "bad name!"}},
    ],
)
def test_invalid_definitions_raise_a_typed_error(bad: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError):
        tool_from_openai(bad)


def test_pattern_python_cannot_compile_is_not_enforced() -> None:
    # ECMA named groups: `(?<name>...)` is not Python syntax before 3.12.
    entry = one_field({"type": "string", "pattern": r"^(?<year>\d{4})$"})

    assert accepts(entry, {"x": "anything"}) == {"x": "anything"}
