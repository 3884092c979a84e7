"""A call as one short line, `get_weather(city="Paris", days=3)`, for the terminal."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["CALL_TEXT_LIMIT", "call_text", "calls_text"]

CALL_TEXT_LIMIT: Final = 160
"""Characters a call may take on screen; a longer one is cut with `...`."""


def call_text(name: str, arguments: Mapping[str, Any], limit: int = CALL_TEXT_LIMIT) -> str:
    """`name(key=value, ...)`, values as JSON (so a string shows its quotes)."""
    values = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    text = f"{name}({values})"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def calls_text(calls: Any, limit: int = CALL_TEXT_LIMIT) -> str:
    """Several calls (`{"name", "arguments"}` objects) on one line, `; ` between them."""
    if not calls:
        return "(no call)"
    return "; ".join(call_text(str(c.get("name")), c.get("arguments") or {}, limit) for c in calls)
