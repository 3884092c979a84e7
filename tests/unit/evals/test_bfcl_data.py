"""The BFCL loader on the real installed data (`pip install --no-deps bfcl-eval==2026.3.23`)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any

import pytest

from toolcall_sdk import ToolCallError
from toolcall_sdk.bfcl import (
    CATEGORIES,
    LIVE_CATEGORIES,
    NON_LIVE_CATEGORIES,
    BfclDataError,
    BfclNotInstalledError,
    load_category,
    to_openai_tools,
)

# Sizes documented in ../shared/notes/bfcl.md; a different count means a different release.
EXPECTED_SIZES = {
    "simple_python": 400,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_relevance": 16,
    "live_irrelevance": 884,
}


def test_categories_split_into_non_live_and_live() -> None:
    assert set(NON_LIVE_CATEGORIES) | set(LIVE_CATEGORIES) <= set(CATEGORIES)
    assert not set(NON_LIVE_CATEGORIES) & set(LIVE_CATEGORIES)
    assert set(EXPECTED_SIZES) <= set(CATEGORIES)


@pytest.mark.parametrize(("category", "size"), sorted(EXPECTED_SIZES.items()))
def test_every_category_loads_with_its_documented_size(category: str, size: int) -> None:
    cases = load_category(category)
    assert len(cases) == size
    assert len({case.id for case in cases}) == size
    for case in cases:
        assert case.category == category
        assert case.should_call == (category not in ("irrelevance", "live_irrelevance"))
        assert case.messages == [m for turn in case.turns for m in turn]
        # A few live_irrelevance cases offer no function at all: "no call" by definition.
        assert len(case.tools) == len(case.functions) >= (0 if not case.should_call else 1)
        assert set(case.name_map) == {t["function"]["name"] for t in case.tools}


def test_a_multiple_case_is_converted_exactly() -> None:
    case = next(c for c in load_category("multiple") if c.id == "multiple_0")
    assert case.messages[0]["role"] == "user"
    assert case.messages[0]["content"].startswith("Can I find the dimensions")
    first = case.tools[0]
    assert first["type"] == "function"
    assert first["function"]["name"] == "triangle_properties_get"
    assert case.name_map["triangle_properties_get"] == "triangle_properties.get"
    params = first["function"]["parameters"]
    assert params["type"] == "object"
    assert params["required"] == ["side1", "side2", "side3"]
    assert params["properties"]["side1"] == {
        "type": "integer",
        "description": "The length of first side of the triangle.",
    }
    # BFCL's non-standard "optional" flag is dropped; the default stays.
    assert params["properties"]["get_area"]["default"] is True
    assert "optional" not in params["properties"]["get_area"]
    circle = case.tools[1]["function"]["parameters"]["properties"]["radius"]
    assert circle["type"] == "number"
    assert case.ground_truth is not None
    assert case.ground_truth[0]["triangle_properties.get"]["side1"] == [5]
    assert case.ground_truth[0]["triangle_properties.get"]["get_area"] == ["", True]


def test_irrelevance_and_relevance_have_no_ground_truth() -> None:
    assert all(c.ground_truth is None for c in load_category("irrelevance"))
    assert all(c.ground_truth is None for c in load_category("live_relevance"))
    assert all(c.ground_truth is not None for c in load_category("live_simple"))


def test_no_bfcl_type_survives_conversion_anywhere() -> None:
    allowed = {"object", "number", "integer", "string", "boolean", "array", "null"}
    seen: set[str] = set()

    def walk(schema: object) -> None:
        if isinstance(schema, dict):
            kind = schema.get("type")
            if isinstance(kind, str):
                seen.add(kind)
            for name, sub in (schema.get("properties") or {}).items():
                assert isinstance(name, str)
                walk(sub)
            walk(schema.get("items"))

    for category in CATEGORIES:
        for case in load_category(category):
            for tool in case.tools:
                walk(tool["function"]["parameters"])
    assert seen <= allowed, seen - allowed


def test_to_openai_tools_converts_types_recursively() -> None:
    functions: list[dict[str, Any]] = [
        {
            "name": "geo.route.plan",
            "description": "Plan a route.",
            "parameters": {
                "type": "dict",
                "properties": {
                    "start": {"type": "tuple", "items": {"type": "float"}},
                    "options": {
                        "type": "dict",
                        "properties": {
                            "avoid": {"type": "array", "items": {"type": "String"}},
                            "extra": {"type": "any"},
                            "limit": {"type": "long"},
                            "lookup": {"type": "HashMap"},
                        },
                    },
                },
                "required": ["start"],
            },
        }
    ]
    (tool,) = to_openai_tools(functions)
    assert tool["function"]["name"] == "geo_route_plan"
    params = tool["function"]["parameters"]
    assert params["type"] == "object"
    assert params["properties"]["start"] == {"type": "array", "items": {"type": "number"}}
    options = params["properties"]["options"]
    assert options["type"] == "object"
    assert options["properties"]["avoid"] == {"type": "array", "items": {"type": "string"}}
    assert options["properties"]["extra"] == {}
    assert options["properties"]["limit"] == {"type": "integer"}
    assert options["properties"]["lookup"] == {"type": "object"}
    # The input is left as it was.
    assert functions[0]["parameters"]["type"] == "dict"


def test_a_property_named_type_is_a_property_not_a_type() -> None:
    (tool,) = to_openai_tools(
        [
            {
                "name": "f",
                "description": "",
                "parameters": {
                    "type": "dict",
                    "properties": {"type": {"type": "string", "enum": ["a", "b"]}},
                },
            }
        ]
    )
    assert tool["function"]["parameters"]["properties"]["type"] == {
        "type": "string",
        "enum": ["a", "b"],
    }


def test_cases_are_fresh_copies() -> None:
    first = load_category("simple_python")[0]
    first.messages[0]["content"] = "changed"
    assert load_category("simple_python")[0].messages[0]["content"] != "changed"


def test_unknown_category_is_a_typed_error() -> None:
    with pytest.raises(BfclDataError, match="unknown BFCL category 'nope'"):
        load_category("nope")


def test_missing_package_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "bfcl_eval" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(BfclNotInstalledError) as info:
        load_category("multiple")
    assert isinstance(info.value, ToolCallError)
    assert "pip install --no-deps bfcl-eval==2026.3.23" in str(info.value)


def test_loading_does_not_import_bfcl_eval() -> None:
    # A fresh interpreter: other tests (BFCL's own checker) import bfcl_eval on purpose.
    probe = (
        "import sys\n"
        "from toolcall_sdk.bfcl import load_category\n"
        "assert load_category('irrelevance')\n"
        "print('bfcl_eval' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
