"""What a router needs to know about a tool, whichever way the tool was given.

Routers accept `@tool` objects (what the client passes) and plain OpenAI tool dicts (what
datasets and other frameworks hold). Both become a `ToolSpec`: a name, a description and a
parameter schema with the parameters a request must supply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._tools import Tool

__all__ = ["ToolSpec", "tool_specs"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_\-.\s/]+")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as routers see it.

    Attributes:
        name: The tool name sent to the server.
        description: Its description (may be empty).
        parameters: The JSON schema of its arguments (an object schema).
        required: Names of the parameters a request must supply.
    """

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        """The name split into words (`get_current_weather` -> `get current weather`)."""
        return " ".join(_SEPARATORS.split(_CAMEL.sub(" ", self.name))).strip().lower()

    @property
    def text(self) -> str:
        """The text a tool is embedded as: its name in words and its description."""
        return f"{self.words}: {self.description.strip()}"

    @property
    def properties(self) -> Mapping[str, Any]:
        """The top-level parameter schemas by name."""
        props = self.parameters.get("properties")
        return props if isinstance(props, Mapping) else {}


def tool_specs(tools: Sequence[Tool[..., Any] | Mapping[str, Any]]) -> list[ToolSpec]:
    """Normalise `@tool` objects and OpenAI tool dicts to `ToolSpec`s, in order.

    Raises:
        RouterError: An item is neither a `Tool` nor an OpenAI tool dict.
    """
    return [_spec(item) for item in tools]


def _spec(item: Tool[..., Any] | Mapping[str, Any]) -> ToolSpec:
    if isinstance(item, Tool):
        # The non-strict schema keeps the real `required` list; the strict form marks
        # every property required, which would hide which arguments a request must give.
        parameters = item.openai_schema(strict=False)["function"]["parameters"]
        return ToolSpec(item.name, item.description, parameters, _required(parameters))
    if isinstance(item, Mapping):
        function = item.get("function", item)
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            parameters = function.get("parameters") or {}
            if not isinstance(parameters, Mapping):
                parameters = {}
            return ToolSpec(
                function["name"],
                str(function.get("description") or ""),
                parameters,
                _required(parameters),
            )
    raise RouterError(
        f"a router cannot read the tool {item!r}: pass @tool objects or OpenAI tool dicts "
        '({"type": "function", "function": {"name": ..., "description": ..., ...}})'
    )


def _required(parameters: Mapping[str, Any]) -> tuple[str, ...]:
    required = parameters.get("required")
    if not isinstance(required, list):
        return ()
    return tuple(str(name) for name in required)
