"""Llama 3.1/3.2 JSON format: a bare `{"name": ..., "parameters": {...}}` object.

    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Hanoi"}}

The object counts as a call where a call can stand: at the start of the text (after blank
space), right after `<|python_tag|>` (always removed), or after another call and its
separators (`;` or blank space). There its opening must read `{"name": "...",
"parameters":` (or `"arguments":`); from then on it is a call even when the JSON breaks
(then its arguments are kept verbatim), unless the text ends before its brackets close (the
output ran into `max_tokens`): then it is no call, and dropped. An object elsewhere in prose
counts only when it is valid JSON with exactly a string `name` and an object `parameters` or
`arguments`, nothing else, so ordinary JSON in a sentence stays text.
"""

from __future__ import annotations

import re
from typing import Any, Final

from toolcall_sdk.parsing._json import (
    DONE,
    JsonWalker,
    broken_call,
    call_from_value,
    decode_at,
    loads,
)
from toolcall_sdk.parsing._markup import STRING, WS, PrefixMatcher, TagSet, lit
from toolcall_sdk.parsing._tagless import TaglessStream
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["FORMAT", "PYTHON_TAG", "Llama3JsonStream", "parse"]

FORMAT: Final = "llama3_json"
PYTHON_TAG: Final = "<|python_tag|>"

_STEPS: Final = (
    lit("{"),
    WS,
    lit('"name"'),
    WS,
    lit(":"),
    WS,
    STRING,
    WS,
    lit(","),
    WS,
    lit('"parameters"', '"arguments"'),
    WS,
    lit(":"),
)
# The same prefix as one expression, for whole texts (no partial matches to resume).
_PREFIX_RE: Final = re.compile(
    r'\{[ \t\r\n]*"name"[ \t\r\n]*:[ \t\r\n]*"(?:[^"\\]|\\.)*"[ \t\r\n]*,'
    r'[ \t\r\n]*"(?:parameters|arguments)"[ \t\r\n]*:',
    re.DOTALL,
)
_SHAPES: Final = (frozenset({"name", "parameters"}), frozenset({"name", "arguments"}))
_BROKEN: Final[Any] = object()


def parse(text: str) -> ParseResult:
    """Read every Llama 3 JSON call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without them, their separators and `<|python_tag|>`.
    """
    return Llama3JsonStream.parse_text(text)


def _exact_shape(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.keys() in _SHAPES
        and isinstance(value["name"], str)
        and isinstance(value.get("parameters", value.get("arguments")), dict)
    )


class Llama3JsonStream(TaglessStream):
    """Incremental Llama 3 JSON parser (see `FormatStream`)."""

    format = FORMAT
    parsers = ("llama3_json", "llama4_json")
    markers = (PYTHON_TAG,)
    leads = (("{", _STEPS),)
    _OPENER = "{"
    _SEPARATORS = re.compile(r"[ \t\r\n;]*")
    _STEPS = _STEPS
    _PROSE_TAGS = TagSet(PYTHON_TAG, "{")
    _OPEN_TAGS = frozenset({PYTHON_TAG})
    _SKIP_REJECTED = True

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._walker: JsonWalker | None = None
        self._decoded: Any = _BROKEN

    def _prefix(self, buf: str, final: bool) -> bool | None:
        matcher = self._matcher
        if matcher is None:
            if final:  # the whole opening is here: one expression decides
                return _PREFIX_RE.match(buf, self._cand) is not None
            matcher = self._matcher = PrefixMatcher(_STEPS, self._cand)
        return matcher.advance(buf, len(buf))

    def _begin_region(self, buf: str) -> None:
        self._walker = JsonWalker(self._cand, key_depth=1)
        self._decoded = _BROKEN
        self._sent = self._cand

    def _region_end(self, buf: str, final: bool) -> int:
        walker = self._walker
        assert walker is not None
        if final and walker.pos == self._cand:
            decoded = decode_at(buf, self._cand)
            if decoded is not None:
                self._decoded = decoded[0]
                return decoded[1]
        done = walker.advance(buf, len(buf)) == DONE
        if self._emit and not self._in_prose:
            self._preview(walker, buf, len(buf))
        return walker.end if done else -1

    def _region_calls(self, region: str, closed: bool) -> list[ParsedCall] | None:
        value = self._decoded
        self._decoded = _BROKEN
        if value is _BROKEN:
            try:
                value = loads(region)
            except (ValueError, RecursionError):
                value = _BROKEN
        if self._in_prose:
            if not _exact_shape(value):
                return None
            if self._emit:
                self._start(value["name"])
        elif not closed:  # the text ended inside the call: the model never finished it
            return []
        if value is _BROKEN:
            return [broken_call(region, region)]
        return [call_from_value(value, region, region)]

    def _shift_region(self, offset: int) -> None:
        self._sent -= offset
        if self._walker is not None:
            self._walker.shift(offset)
