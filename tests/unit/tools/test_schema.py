"""Strict-form schemas: closed objects, everything required, optional made nullable."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from toolcall_sdk import StrictSchemaError, ToolCallClient, to_strict_schema, tool
from toolcall_sdk.testing import ScriptedModel, tool_call

from ._future_tools import ship_order


def _walk_objects(schema: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object" or (
            isinstance(schema.get("type"), list) and "object" in schema["type"]
        ):
            found.append(schema)
        for value in schema.values():
            found += _walk_objects(value)
    elif isinstance(schema, list):
        for item in schema:
            found += _walk_objects(item)
    return found


def test_every_object_is_closed_and_fully_required() -> None:
    parameters = ship_order.openai_schema(strict=True)["function"]["parameters"]
    objects = _walk_objects(parameters)
    assert len(objects) == 2  # the arguments and the nested address
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    assert "$defs" not in parameters  # non-recursive references are inlined
    assert "$ref" not in str(parameters)
    assert "title" not in str(parameters)
    assert "default" not in str(parameters)


def test_optional_fields_become_nullable() -> None:
    props = ship_order.openai_schema(strict=True)["function"]["parameters"]["properties"]
    assert props["order_id"]["type"] == "string"  # required stays as it was
    assert {"type": "null"} in props["priority"]["anyOf"]  # enum behind a former $ref
    assert props["carrier"]["anyOf"] == [
        {"enum": ["dhl", "ups"], "type": "string"},
        {"type": "null"},
    ]
    ship_on = props["ship_on"]
    assert {"type": "null"} in ship_on["anyOf"]
    postcode = props["address"]["properties"]["postcode"]
    assert {"type": "null"} in postcode["anyOf"]


def test_recursive_models_keep_their_definitions() -> None:
    class Node(BaseModel):
        name: str
        children: list[Node] = []

    strict = to_strict_schema(Node.model_json_schema())
    node = strict["$defs"]["Node"]
    assert node["additionalProperties"] is False
    assert node["required"] == ["name", "children"]


def test_free_form_mapping_cannot_be_strict() -> None:
    @tool
    def tag(labels: dict[str, str]) -> None:
        """Tag something."""

    with pytest.raises(StrictSchemaError, match=r"strict=False"):
        tag.openai_schema(strict=True)
    assert tag.openai_schema(strict=False)["function"]["parameters"]["properties"]["labels"]


def test_client_refuses_unstrictable_tools_at_construction() -> None:
    @tool
    def tag(labels: dict[str, str]) -> None:
        """Tag something."""

    with pytest.raises(StrictSchemaError):
        ToolCallClient(base_url="http://127.0.0.1:9/v1", model="m", tools=[tag])
    ToolCallClient(base_url="http://127.0.0.1:9/v1", model="m", tools=[tag], strict=False)


def test_request_carries_strict_schemas_by_default() -> None:
    model = ScriptedModel(
        [
            tool_call(
                "ship_order",
                {
                    "order_id": "ORD-12345",
                    "address": {"street": "s", "city": "c", "postcode": None},
                    "priority": None,
                    "carrier": None,
                    "ship_on": None,
                },
            )
        ]
    )
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[ship_order],
        router="always",
        http_client=model.http_client(),
    )

    result = client.call("ship ORD-12345")

    [entry] = model.calls_for("call")[0].tools or []
    assert entry["function"]["strict"] is True
    assert entry["function"]["parameters"]["additionalProperties"] is False
    arguments = result.call.arguments
    assert arguments.carrier == "dhl"  # type: ignore[attr-defined]
    assert arguments.ship_on is None  # type: ignore[attr-defined]


def test_client_strict_false_sends_plain_schemas() -> None:
    model = ScriptedModel(
        [
            tool_call(
                "ship_order", {"order_id": "ORD-12345", "address": {"street": "s", "city": "c"}}
            )
        ]
    )
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[ship_order],
        router="always",
        strict=False,
        http_client=model.http_client(),
    )

    client.call("ship ORD-12345")

    [entry] = model.calls_for("call")[0].tools or []
    assert "strict" not in entry["function"]
    assert entry["function"]["parameters"]["required"] == ["order_id", "address"]


def test_a_schema_is_built_once_and_handed_out_as_a_copy() -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        return city

    first = get_weather.openai_schema(strict=True)
    first["function"]["parameters"]["properties"]["city"]["type"] = "integer"
    again = get_weather.openai_schema(strict=True)

    assert again["function"]["parameters"]["properties"]["city"] == {"type": "string"}
    assert "strict" not in get_weather.openai_schema(strict=False)["function"]


def test_a_changed_tool_gets_a_new_schema() -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        return city

    get_weather.openai_schema(strict=True)
    get_weather.description = "Today's weather of a city."

    assert get_weather.openai_schema(strict=True)["function"]["description"] == (
        "Today's weather of a city."
    )
