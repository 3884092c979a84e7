"""What `tools=[...]` accepts, made into `Tool`s: functions, `@tool` objects, Pydantic model
classes and OpenAI tool definitions (JSON Schema)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from toolcall_sdk._errors import ToolDefinitionError
from toolcall_sdk._schema_tools import tool_from_openai
from toolcall_sdk._tools import Tool, build_tool

__all__ = ["as_tool"]


def as_tool(item: object) -> Tool[..., Any]:
    """Coerce what a user passed in `tools=[...]` to a `Tool`."""
    if isinstance(item, Tool):
        return item
    if isinstance(item, Mapping):
        return tool_from_openai(item)  # an OpenAI tool definition (JSON Schema)
    if isinstance(item, type) and issubclass(item, BaseModel):
        return build_tool(item, name=None, description=None, strict=None)
    if callable(item):
        return build_tool(item, name=None, description=None, strict=None)
    raise ToolDefinitionError(
        f"cannot use {item!r} as a tool: pass a function, a @tool object, a Pydantic model "
        'class or an OpenAI tool definition {"type": "function", "function": {...}}'
    )
