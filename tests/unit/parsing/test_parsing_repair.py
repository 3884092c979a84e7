"""Repairs: each fixes one unambiguous garbling and never changes what a value means."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_sdk.parsing.repair import (
    CLOSED_TRUNCATED_JSON,
    JSON_STRING_ARGUMENTS,
    close_truncated_json,
    coerce_scalars,
    repair_arguments,
    unwrap_json_string,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "price": {"type": "number"},
        "urgent": {"type": "boolean"},
        "code": {"type": "string"},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "tags": {"type": "array", "items": {"type": "integer"}},
        "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
        "meta": {"type": "object", "additionalProperties": {"type": "boolean"}},
    },
    "$defs": {"Line": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
}


# unwrap_json_string ------------------------------------------------------------------------


def test_arguments_sent_as_a_json_string_are_decoded() -> None:
    assert unwrap_json_string('"{\\"a\\": 1, \\"b\\": \\"x\\"}"') == (
        '{"a":1,"b":"x"}',
        [JSON_STRING_ARGUMENTS],
    )


def test_doubly_wrapped_arguments_are_decoded() -> None:
    twice = json.dumps(json.dumps({"a": 1}))
    assert unwrap_json_string(twice) == ('{"a":1}', [JSON_STRING_ARGUMENTS])


@pytest.mark.parametrize("text", ['{"a": 1}', '"hello"', '"[1, 2]"', "not json", "5", '"{bad"'])
def test_anything_else_is_left_alone(text: str) -> None:
    assert unwrap_json_string(text) == (text, [])


# close_truncated_json ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ('{"a": 1', '{"a":1}'),
        ('{"a": {"b": [1, 2]', '{"a":{"b":[1,2]}}'),
        ('{"s": "has } and ] inside"', '{"s":"has } and ] inside"}'),
        ('{"a": 1}  \n', None),  # already valid
        ('{"a": "unterminated', None),  # inside a string: its end is unknown
        ('{"a": 1,', None),  # a member was cut off
        ('{"a":', None),
        ('{"a": 1]', None),  # mismatched, not truncated
        ("nothing open", None),
    ],
)
def test_close_truncated_json(text: str, closed: str | None) -> None:
    expected = (closed, [CLOSED_TRUNCATED_JSON]) if closed else (text, [])
    assert close_truncated_json(text, "stop") == expected


def test_a_length_cut_is_never_closed() -> None:
    assert close_truncated_json('{"a": 1', "length") == ('{"a": 1', [])
    assert close_truncated_json('{"a": 1', None) == ('{"a": 1', [])


# coerce_scalars ----------------------------------------------------------------------------


def test_lossless_scalars_are_converted() -> None:
    data = {
        "count": "5",
        "price": "-2.50",
        "urgent": "true",
        "code": "007",
        "maybe": "3",
        "either": "4",
        "tags": ["1", 2, "3"],
        "lines": [{"qty": "9"}],
        "meta": {"x": "False"},
        "other": "12",
    }
    result, repairs = coerce_scalars(data, SCHEMA)
    assert result == {
        "count": 5,
        "price": -2.5,
        "urgent": True,
        "code": "007",  # the schema wants a string
        "maybe": 3,
        "either": "4",  # a string is accepted: nothing to repair
        "tags": [1, 2, 3],
        "lines": [{"qty": 9}],
        "meta": {"x": False},
        "other": "12",  # not in the schema
    }
    assert repairs == [
        "scalar_from_string:/count",
        "scalar_from_string:/price",
        "scalar_from_string:/urgent",
        "scalar_from_string:/maybe",
        "scalar_from_string:/tags/0",
        "scalar_from_string:/tags/2",
        "scalar_from_string:/lines/0/qty",
        "scalar_from_string:/meta/x",
    ]
    assert data["count"] == "5"  # the input is not modified


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("count", "5.0"),
        ("count", "05"),
        ("count", " 5"),
        ("count", "+5"),
        ("count", "1e3"),
        ("price", "1e999"),
        ("price", "NaN"),
        ("price", ".5"),
        ("urgent", "yes"),
        ("urgent", "1"),
        ("urgent", "TRUE"),
    ],
)
def test_lossy_or_ambiguous_strings_are_kept(field: str, text: str) -> None:
    assert coerce_scalars({field: text}, SCHEMA) == ({field: text}, [])


@pytest.mark.parametrize("field", ["count", "price", "maybe"])
@pytest.mark.parametrize("digits", [101, 4301, 6000])
def test_number_strings_past_the_length_bound_stay_strings(field: str, digits: int) -> None:
    # Found by benchmarks/fuzz.py: int() refuses 4,301 digits (ValueError), and the JSON
    # reader refuses the number as out of range; either escaped the client untyped.
    text = "7" * digits
    assert coerce_scalars({field: text}, SCHEMA) == ({field: text}, [])
    arguments = json.dumps({field: text})
    assert repair_arguments(arguments, SCHEMA, finish_reason="stop") == (arguments, [])


def test_json_strings_where_the_schema_wants_a_container() -> None:
    result, repairs = coerce_scalars({"tags": '[1, "2"]'}, SCHEMA)
    assert result == {"tags": [1, 2]}
    assert repairs == ["json_string_value:/tags", "scalar_from_string:/tags/1"]


def test_ambiguous_object_branches_are_not_guessed() -> None:
    schema = {
        "anyOf": [
            {"type": "object", "properties": {"v": {"type": "integer"}}},
            {"type": "object", "properties": {"v": {"type": "string"}}},
        ]
    }
    assert coerce_scalars({"v": "1"}, schema) == ({"v": "1"}, [])


@given(st.integers())
def test_integer_text_round_trips(number: int) -> None:
    assert coerce_scalars({"count": str(number)}, SCHEMA)[0] == {"count": number}


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_number_text_keeps_its_value(number: float) -> None:
    (result, _) = coerce_scalars({"price": json.dumps(number)}, SCHEMA)
    assert result == {"price": number}


# repair_arguments --------------------------------------------------------------------------


def test_repair_arguments_applies_every_repair_in_order() -> None:
    text, repairs = repair_arguments('"{\\"count\\": \\"5\\"}"', SCHEMA, finish_reason="stop")
    assert (text, repairs) == ('{"count":5}', [JSON_STRING_ARGUMENTS, "scalar_from_string:/count"])
    text, repairs = repair_arguments('{"count": "7"', SCHEMA, finish_reason="stop")
    assert (text, repairs) == ('{"count":7}', [CLOSED_TRUNCATED_JSON, "scalar_from_string:/count"])


def test_repair_arguments_leaves_valid_arguments_untouched() -> None:
    assert repair_arguments('{"count": 5}', SCHEMA) == ('{"count": 5}', [])
    assert repair_arguments('{"count": "5"', SCHEMA, finish_reason="length") == (
        '{"count": "5"',
        [],
    )


INVOICE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"invoice_id": {"type": "string"}},
    "required": ["invoice_id"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("arguments", "repaired", "made"),
    [
        (
            '{"invoice_id": "INV-20417", "required": ["invoice_id"]}',
            '{"invoice_id":"INV-20417"}',
            ["schema_echo:/required"],
        ),
        (
            '{"invoice_id": "INV-1", "type": "object"}',
            '{"invoice_id":"INV-1"}',
            ["schema_echo:/type"],
        ),
        (
            '{"invoice_id": "INV-1", "properties": {"invoice_id": {"type": "string"}}}',
            '{"invoice_id":"INV-1"}',
            ["schema_echo:/properties"],
        ),
        (
            # The function entry's flag: the 0.5B wrote it for get_order_status under auto.
            '{"order_id": "ORD-91823", "strict": true}',
            '{"order_id":"ORD-91823"}',
            ["schema_echo:/strict"],
        ),
        (
            '{"name": "get_invoice", "arguments": {"invoice_id": "INV-1"}}',
            '{"invoice_id":"INV-1"}',
            ["call_wrapper"],
        ),
        (
            '{"name": "get_invoice", "parameters": '
            '{"invoice_id": "INV-1", "required": ["invoice_id"]}}',
            '{"invoice_id":"INV-1"}',
            ["call_wrapper", "schema_echo:/required"],
        ),
    ],
    ids=["required", "type", "properties", "strict", "wrapper", "wrapper-and-echo"],
)
def test_schema_echoes_are_dropped_and_a_call_wrapper_unwrapped(
    arguments: str, repaired: str, made: list[str]
) -> None:
    assert repair_arguments(arguments, INVOICE_SCHEMA, name="get_invoice") == (repaired, made)


@pytest.mark.parametrize(
    "arguments",
    [
        '{"invoice_id": "INV-1", "required": ["customer"]}',  # not the schema's names
        '{"invoice_id": "INV-1", "type": "paid"}',  # a value, not the keyword's
        '{"invoice_id": "INV-1", "strict": "yes"}',  # not the flag
        '{"name": "send_invoice", "arguments": {"invoice_id": "INV-1"}}',  # another tool
        '{"name": "get_invoice", "arguments": {"invoice_id": "INV-1"}, "x": 1}',  # more keys
    ],
)
def test_anything_that_is_not_an_echo_is_left_for_validation(arguments: str) -> None:
    assert repair_arguments(arguments, INVOICE_SCHEMA, name="get_invoice") == (arguments, [])


def test_a_schema_with_such_properties_keeps_them() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
        "required": ["name", "arguments"],
    }
    text = '{"name": "get_invoice", "arguments": {"invoice_id": "INV-1"}}'
    assert repair_arguments(text, schema, name="get_invoice") == (text, [])


def test_a_tool_with_no_parameters_gets_its_empty_schema_echo_dropped() -> None:
    # The 0.5B asked for an API's version wrote the schema of `get_version()` as its arguments.
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    text = '{"type": "object", "properties": {}, "required": []}'

    assert repair_arguments(text, schema, name="get_version") == (
        "{}",
        ["schema_echo:/required", "schema_echo:/type", "schema_echo:/properties"],
    )


def test_an_empty_required_list_is_kept_where_the_schema_requires_something() -> None:
    # Not the schema's own value: left for validation to judge.
    text = '{"invoice_id": "INV-1", "required": [], "properties": {}}'
    assert repair_arguments(text, INVOICE_SCHEMA, name="get_invoice") == (text, [])
