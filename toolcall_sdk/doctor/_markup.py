"""Recognising tool-call markup that a server left in `content` (its parser did not match).

Each format's telltale sign points at the `--tool-call-parser` that reads it.
"""

from __future__ import annotations

import re

__all__ = ["detect_markup"]

# Most specific first: a Hermes tag can wrap JSON that would also look like llama3 JSON.
_SIGNS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("hermes", re.compile(r"<tool_call>"), "hermes"),
    ("mistral", re.compile(r"\[TOOL_CALLS\]"), "mistral"),
    ("qwen3 xml", re.compile(r"<function=[\w.-]+>"), "qwen3_xml"),
    ("llama3 python tag", re.compile(r"<\|python_tag\|>"), "llama3_json"),
    (
        "llama3 json",
        re.compile(r'\{\s*"(?:name|function)"\s*:\s*"[\w.-]+"\s*,\s*"(?:parameters|arguments)"'),
        "llama3_json",
    ),
    ("pythonic", re.compile(r"^\s*\[\s*[A-Za-z_][\w.]*\(.*\)\s*\]\s*$", re.DOTALL), "pythonic"),
)


def detect_markup(content: str | None) -> tuple[str, str] | None:
    """Find tool-call markup in assistant text.

    Args:
        content: The assistant message's `content`.

    Returns:
        `(format name, parser that reads it)`, or None when the text holds no call markup.
    """
    if not content:
        return None
    for name, pattern, parser in _SIGNS:
        if pattern.search(content):
            return name, parser
    return None
