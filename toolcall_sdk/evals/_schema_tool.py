"""SDK tools from the OpenAI tool definitions of case files and BFCL.

The schema → Pydantic model lives in the library (`toolcall_sdk.tool_from_openai`); the eval
only adds one rule: a case's definition is sent exactly as written, so every pipeline of the
ladder offers the model the same schema (the strict rewrite is an SDK choice the eval must
not impose on the raw pipelines it compares against).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcall_sdk._schema_tools import tool_from_openai as _library_tool
from toolcall_sdk._tools import Tool

__all__ = ["tool_from_openai"]


def tool_from_openai(entry: Mapping[str, Any]) -> Tool[..., Any]:
    """Build a call-only SDK tool that sends `entry` as is.

    Args:
        entry: `{"type": "function", "function": {"name", "description", "parameters"}}`
            (the bare `function` object is accepted too).

    Returns:
        A tool that validates arguments against the schema and sends `entry` unchanged.

    Raises:
        ToolDefinitionError: The entry has no function name (a `TypeError`).
    """
    return _library_tool(entry, verbatim=True)
