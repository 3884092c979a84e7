"""Gemma 4 format: a call in Gemma's own object notation between tool-call tokens.

    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>

Keys are bare (they may hold spaces); strings sit between `<|"|>` tokens, unescaped (quotes,
braces, newlines and even tool-call tags inside are text); numbers, `true`, `false` and
`null` are bare; objects and arrays nest. Text before and after calls is kept. A call whose
`<tool_call|>` never comes (the output ran into `max_tokens`), or whose body is not
`call:name{...}`, is no call (the latter stays text).
"""

from __future__ import annotations

import re
from typing import Any, Final

from toolcall_sdk.parsing._json import MAX_DEPTH, dumps, loads
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import RegionStream, Scanner, ValueScanner
from toolcall_sdk.parsing._types import ParsedCall, ParseResult

__all__ = ["END", "FORMAT", "QUOTE", "START", "Gemma4Stream", "parse"]

FORMAT: Final = "gemma4"
START: Final = "<|tool_call>"
END: Final = "<tool_call|>"
QUOTE: Final = '<|"|>'
_CALL: Final = re.compile(r"[ \t\r\n]*call:([A-Za-z0-9_.:/\-]+)[ \t\r\n]*\{")
_BLANK: Final = " \t\r\n"
_SCALAR_END: Final = re.compile(r"[,}\]]")
_BLANK_RUN: Final = re.compile(r"[ \t\r\n]+")
_NOT_IN_KEY: Final = re.compile(r'[{}\[\],]|<\|"\|>')


def parse(text: str) -> ParseResult:
    """Read every Gemma 4 call in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without them.
    """
    return Gemma4Stream.parse_text(text)


class _Malformed(ValueError):
    pass


class _Reader:
    """Reads Gemma's object notation: `{key:value,...}`, `[...]`, `<|"|>text<|"|>`."""

    __slots__ = ("pos", "text")

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos

    def _blank(self) -> None:
        found = _BLANK_RUN.match(self.text, self.pos)
        if found is not None:
            self.pos = found.end()

    def _expect(self, char: str) -> bool:
        self._blank()
        if self.text.startswith(char, self.pos):
            self.pos += len(char)
            return True
        return False

    def object(self, depth: int) -> dict[str, Any]:
        """Read from after a `{` to its `}`."""
        if depth > MAX_DEPTH:
            raise _Malformed("nested too deep")
        out: dict[str, Any] = {}
        if self._expect("}"):
            return out
        while True:
            self._blank()
            colon = self.text.find(":", self.pos)
            if colon < 0:
                raise _Malformed("a key without a value")
            key = self.text[self.pos : colon].strip(_BLANK)
            if not key or _NOT_IN_KEY.search(key):
                raise _Malformed(f"not a key: {key!r}")
            self.pos = colon + 1
            out[key] = self.value(depth)
            if self._expect("}"):
                return out
            if not self._expect(","):
                raise _Malformed("expected , or }")

    def array(self, depth: int) -> list[Any]:
        """Read from after a `[` to its `]`."""
        if depth > MAX_DEPTH:
            raise _Malformed("nested too deep")
        out: list[Any] = []
        if self._expect("]"):
            return out
        while True:
            out.append(self.value(depth))
            if self._expect("]"):
                return out
            if not self._expect(","):
                raise _Malformed("expected , or ]")

    def value(self, depth: int) -> Any:
        self._blank()
        text, pos = self.text, self.pos
        if text.startswith(QUOTE, pos):
            end = text.find(QUOTE, pos + len(QUOTE))
            if end < 0:
                raise _Malformed("an unterminated string")
            self.pos = end + len(QUOTE)
            return text[pos + len(QUOTE) : end]
        if text.startswith("{", pos):
            self.pos += 1
            return self.object(depth + 1)
        if text.startswith("[", pos):
            self.pos += 1
            return self.array(depth + 1)
        found = _SCALAR_END.search(text, pos)
        stop = found.start() if found else len(text)
        word = text[pos:stop].strip(_BLANK)
        self.pos = stop
        try:
            value = loads(word)
        except ValueError:
            raise _Malformed(f"not a value: {word!r}") from None
        if isinstance(value, (dict, list, str)):
            raise _Malformed(f"not a bare value: {word!r}")
        return value


def call_from_body(body: str, raw: str) -> ParsedCall | None:
    """Read the text between `<|tool_call>` and `<tool_call|>`; None when it is not a call."""
    found = _CALL.match(body)
    if found is None:
        return None
    reader = _Reader(body, found.end())
    try:
        arguments = reader.object(1)
        text = dumps(arguments)
    except (_Malformed, ValueError, RecursionError):
        return None
    if body[reader.pos :].strip(_BLANK):
        return None
    return ParsedCall(found.group(1), text, raw)


class Gemma4Stream(RegionStream):
    """Incremental Gemma 4 parser (see `RegionStream`)."""

    format = FORMAT
    parsers = ("gemma4",)
    markers = (START,)
    _PROSE_TAGS = TagSet(START)
    _REGIONS = frozenset({START})

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return ValueScanner(body, END, {QUOTE: QUOTE})

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        if not closed:
            return []
        call = call_from_body(region[len(START) : -len(END)], region)
        return None if call is None else [call]
