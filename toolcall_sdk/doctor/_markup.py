"""Recognising tool-call markup that a server left in `content` (its parser did not match).

Detection is `toolcall_sdk.parsing.detect_format`, the same reading the client's recovery
uses; each format's name is also the `--tool-call-parser` that reads it. Formats that only
the SDK's parser plugin reads (`toolcall_<format>`, e.g. Qwen2.5-Coder's call objects written
fenced or bare) have no markup of their own: for a family served with one of them, the text
is read with that format for the offered tools.
"""

from __future__ import annotations

from collections.abc import Collection

from toolcall_sdk.parsing import detect_format, format_for, parse

__all__ = ["detect_markup"]

_PLUGIN_PREFIX = "toolcall_"


def detect_markup(
    content: str | None, *, parser: str | None = None, tools: Collection[str] = ()
) -> tuple[str, str] | None:
    """Find tool-call markup in assistant text.

    Args:
        content: The assistant message's `content`.
        parser: The `--tool-call-parser` the model's family expects; when it is one of the
            SDK's plugin parsers, its format is tried first.
        tools: The tool names offered (a plugin format reads calls to offered tools only).

    Returns:
        `(format name, parser that reads it)`, or None when the text holds no call markup.
    """
    if not content:
        return None
    if parser is not None and parser.startswith(_PLUGIN_PREFIX):
        fmt = format_for(parser)
        if fmt is not None and parse(content, fmt, schemas={name: {} for name in tools}).calls:
            return fmt, parser
    found = detect_format(content)
    return None if found is None else (found, found)
