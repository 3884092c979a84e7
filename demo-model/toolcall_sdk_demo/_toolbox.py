"""The demo toolbox: the tools the demo model is trained to call, as OpenAI tool definitions.

The same three tools appear in the README and the examples (`create_invoice` is the one from
DESIGN.md). The model sees their JSON Schema in its system prompt; since SDK users generate
that schema with Pydantic while hand-written clients write it by hand, the training data
renders each tool in several *styles* so that the model keys on tool names and the user's
request rather than on one exact spelling of the schema.
"""

from __future__ import annotations

import copy
from typing import Any, Final, Literal

ToolStyle = Literal["plain", "pydantic", "strict", "minimal"]
TOOL_STYLES: Final[tuple[ToolStyle, ...]] = ("plain", "pydantic", "strict", "minimal")

WEATHER: Final = "get_weather"
ORDER: Final = "get_order_status"
INVOICE: Final = "create_invoice"
TOOL_NAMES: Final[tuple[str, ...]] = (WEATHER, ORDER, INVOICE)

ORDER_ID_PATTERN: Final = r"^ORD-\d{5}$"
CUSTOMER_ID_PATTERN: Final = r"^CUS-\d{6}$"
UNITS: Final[tuple[str, ...]] = ("celsius", "fahrenheit")

_DESCRIPTIONS: Final[dict[str, str]] = {
    WEATHER: "Get the current weather for a city.",
    ORDER: "Look up the status of an order.",
    INVOICE: "Create an invoice for a customer.",
}

# Each tool's properties, in the order the model writes them, in the "plain" hand-written style.
_PROPERTIES: Final[dict[str, dict[str, dict[str, Any]]]] = {
    WEATHER: {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "unit": {"type": "string", "enum": list(UNITS)},
    },
    ORDER: {
        "order_id": {"type": "string", "pattern": ORDER_ID_PATTERN},
    },
    INVOICE: {
        "customer_id": {"type": "string", "pattern": CUSTOMER_ID_PATTERN},
        "amount_vnd": {"type": "integer", "exclusiveMinimum": 0},
        "due_date": {"type": "string", "format": "date"},
    },
}


def _pydantic_property(name: str, prop: dict[str, Any]) -> dict[str, Any]:
    """What `pydantic.TypeAdapter(...).json_schema()` writes for the same field."""
    out: dict[str, Any] = {}
    if "enum" in prop:
        out["enum"] = prop["enum"]
        out["title"] = name.replace("_", " ").title().replace(" ", "")
        out["type"] = "string"
        return out
    out.update({k: v for k, v in prop.items() if k != "description"})
    out["title"] = name.replace("_", " ").title()
    return out


def tool_definition(name: str, style: ToolStyle = "plain") -> dict[str, Any]:
    """Return the OpenAI `tools` entry for one demo tool, rendered in `style`.

    Args:
        name: One of `TOOL_NAMES`.
        style: "plain" (hand-written), "pydantic" (titles, as Pydantic writes them),
            "strict" (Pydantic style plus `strict: true` and `additionalProperties: false`, as
            the SDK sends it), or "minimal" (no descriptions).
    """
    props = copy.deepcopy(_PROPERTIES[name])
    function: dict[str, Any] = {"name": name}
    if style != "minimal":
        function["description"] = _DESCRIPTIONS[name]
    if style in ("pydantic", "strict"):
        props = {key: _pydantic_property(key, value) for key, value in props.items()}
    elif style == "minimal":
        props = {
            key: {k: v for k, v in value.items() if k != "description"}
            for key, value in props.items()
        }
    parameters: dict[str, Any] = {"type": "object", "properties": props, "required": list(props)}
    if style in ("pydantic", "strict"):
        parameters["title"] = name
    if style == "strict":
        parameters["additionalProperties"] = False
        function["strict"] = True
    function["parameters"] = parameters
    return {"type": "function", "function": function}


def demo_tools(style: ToolStyle = "strict") -> list[dict[str, Any]]:
    """All demo tools in one style; "strict" is what the SDK sends and what evals use."""
    return [tool_definition(name, style) for name in TOOL_NAMES]
