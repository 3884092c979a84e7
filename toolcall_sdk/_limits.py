"""Bounds on what the model sends and on what is quoted back to it.

A model's answer is untrusted input: a broken or hostile server can send arguments nested a
thousand deep, a number of five thousand digits or megabytes of text. Each bound below turns
such input into feedback for the model (or a shortened quote) instead of an exception, a
stall or an ever-growing conversation. None of them is close to what a real tool call needs.
"""

from __future__ import annotations

from typing import Final

from toolcall_sdk.parsing._json import MAX_DEPTH
from toolcall_sdk.parsing._json import MAX_NUMBER_CHARS as _PARSING_NUMBER_CHARS

__all__ = [
    "MAX_ARGUMENTS_CHARS",
    "MAX_ARGUMENTS_DEPTH",
    "MAX_FEEDBACK_FIELDS",
    "MAX_NUMBER_CHARS",
    "MAX_QUOTED_MESSAGE_CHARS",
    "MAX_QUOTED_NAME_CHARS",
    "MAX_QUOTED_VALUE_CHARS",
    "shorten",
]

MAX_ARGUMENTS_CHARS: Final = 1_000_000
"""Longest argument text decoded. A 128k-token answer is about 500,000 characters, so only a
broken or hostile server reaches this; past it, decoding and re-sending cost more than the
call is worth."""

MAX_ARGUMENTS_DEPTH: Final = MAX_DEPTH
"""Deepest nesting of objects and arrays decoded (the parsers' own bound). Real arguments
nest a few levels; Python's decoder recurses once per level and fails near 1,000."""

MAX_NUMBER_CHARS: Final = _PARSING_NUMBER_CHARS
"""Longest number literal decoded, and the longest numeric string the repairs convert (the
parsers' own bound). No quantity a tool takes needs more digits; Python refuses to convert
integers past 4,300 digits, and the conversion is quadratic below that."""

MAX_QUOTED_NAME_CHARS: Final = 64
"""Longest tool name or field path quoted back. Tool names are at most 64 characters
(OpenAI's rule, enforced by `@tool`), so a longer one is certainly not a tool."""

MAX_QUOTED_VALUE_CHARS: Final = 60
"""Longest argument value quoted back: its start tells a small model which value was wrong;
the rest costs tokens on every retry."""

MAX_QUOTED_MESSAGE_CHARS: Final = 1_000
"""Longest message quoted back (a validator's or a tool's `ModelRetry` text, which may
embed the model's own values)."""

MAX_FEEDBACK_FIELDS: Final = 10
"""Most field errors listed in one feedback message; the rest are counted. A model that sent
hundreds of unknown keys needs the first few to see the pattern, not all of them."""


def shorten(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with `...` appended when it was longer."""
    return text if len(text) <= limit else text[:limit] + "..."
