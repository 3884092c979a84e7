"""Recognising tool-call markup that a server left in `content` (its parser did not match).

Detection is `toolcall_sdk.parsing.detect_format`, the same reading the client's recovery
uses; each format's name is also the `--tool-call-parser` that reads it.
"""

from __future__ import annotations

from toolcall_sdk.parsing import detect_format

__all__ = ["detect_markup"]


def detect_markup(content: str | None) -> tuple[str, str] | None:
    """Find tool-call markup in assistant text.

    Args:
        content: The assistant message's `content`.

    Returns:
        `(format name, parser that reads it)`, or None when the text holds no call markup.
    """
    if not content:
        return None
    found = detect_format(content)
    return None if found is None else (found, found)
