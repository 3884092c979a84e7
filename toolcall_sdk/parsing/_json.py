"""JSON pieces shared by the JSON-based formats: call objects, broken calls, a bracket walker.

The walker follows JSON text as it arrives without reading any character twice; the
non-streaming parsers use it too whenever they need the end of a value that `json` cannot
decode, so a streamed text and the whole text always agree on where a value ends.

Decoding and encoding run in `pydantic_core` (Rust), two to three times faster than the
standard library on call-sized objects, which is most of what a parser spends; the
results are exactly the standard library's. Where the two libraries differ (`jiter`
rejects escaped lone surrogates, which `json` reads; `to_json` writes `1e-05` as
`0.00001`, writes `Infinity`, and fails on lone surrogates) the standard library decides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Final

from pydantic_core import PydanticSerializationError, from_json, to_json

from toolcall_sdk.parsing._types import ParsedCall

__all__ = [
    "DONE",
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "MORE",
    "OBJECT",
    "JsonWalker",
    "broken_call",
    "call_from_json",
    "call_from_value",
    "decode_at",
    "dumps",
    "dumps_literal",
    "loads",
    "normalise_arguments",
    "too_deep",
    "value_end",
]

# Compact output, unicode kept as written: the client compares and shows these strings.
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Strict JSON: Python's json would read NaN and Infinity, which no other JSON reader takes.
_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)
_JSON_BLANK: Final = " \t\n\r"
# Deeper values are not decoded (they are kept as text). Real arguments nest a few levels;
# the limit keeps every decoder far from Python's recursion limit, so whether a value
# decodes never depends on how deep the caller's stack happens to be.
MAX_DEPTH: Final = 100
# Longer number text is not turned into a number (the repairs leave it a string). Python
# refuses integers past 4,300 digits and converts long ones in quadratic time.
MAX_NUMBER_CHARS: Final = 100
_BRACKET_OR_QUOTE: Final = re.compile(r'[\[{\]}"]')
# `JSONEncoder.encode` builds a C encoder on every call; values decoded from text cannot be
# circular, so one encoder without the cycle check serves every call.
_C_ENCODE: Final[Callable[[Any, int], tuple[str, ...] | list[str]] | None] = (
    c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, False)
    if c_make_encoder is not None
    else None
)

ARGUMENT_KEYS: Final = ("arguments", "parameters")
_ABSENT: Final = object()  # no value (`None` is one)
_ARGUMENT_KEYS_RAW: Final = frozenset({'"arguments"', '"parameters"'})
_NAME_KEY_RAW: Final = '"name"'

_NAME_RE: Final = re.compile(r'"name"\s*:\s*("(?:[^"\\]|\\.)*")', re.DOTALL)
_ARGS_RE: Final = re.compile(r'"(?:arguments|parameters)"\s*:\s*')
_SCALAR_END_RE: Final = re.compile(r"[,}\]]")
_OUTSIDE: Final = re.compile(r'[\[\]{}",:]')
_INSIDE: Final = re.compile(r'["\\]')

# advance() results.
MORE: Final = 0  # the text ran out
OBJECT: Final = 1  # an object at the key depth closed (more may follow)
DONE: Final = 2  # the value the walker started on closed

# JsonWalker.args_state values.
_NO_ARGS, _ARGS_AFTER_COLON, _ARGS_CONTAINER, _ARGS_STRING, _ARGS_DONE = range(5)
# JsonWalker.expect values (inside a keyed object).
_KEY, _COLON, _VALUE, _AFTER_VALUE = range(4)


def _unlike_stdlib(text: str) -> bool:
    """Whether `to_json` text may differ from `json.dumps` text of the same value.

    They differ only in floats written in exponent form (Python writes `1e-05`, `to_json`
    `0.00001`; `to_json` always signs its exponent) or below 1e-4, and in the non-finite
    constants `json.dumps` refuses here. Each pair is a rare character, tested first at
    memchr speed, then the piece such text must hold (a regular expression costs several
    times more). A piece inside a string (`"re-do"`) only costs the slower exact path.
    """
    return (
        ("-" in text and "e-" in text)
        or ("+" in text and "e+" in text)
        or ("." in text and ".0000" in text)
        or ("I" in text and "Infinity" in text)
        or ("N" in text and "NaN" in text)
    )


def dumps(value: Any) -> str:
    """Compact JSON text of a value made of JSON types, non-ASCII characters kept.

    The text is exactly `json.dumps(value, ensure_ascii=False, separators=(",", ":"),
    allow_nan=False)`, for dicts with string keys, lists, strings, ints, floats, bools and
    None. Other types (tuples, sets, bytes) take `dumps_literal`.

    Raises:
        TypeError: The value has no JSON form.
        ValueError: The value holds NaN or an infinity, or is circular.
    """
    if type(value) is str:
        return encode_basestring(value)
    try:
        text: str = to_json(value).decode()
    except PydanticSerializationError:  # lone surrogates; the standard library decides
        return dumps_literal(value)
    return dumps_literal(value) if _unlike_stdlib(text) else text


def dumps_literal(value: Any) -> str:
    """`dumps` for any value `json` encodes: tuples become lists; sets, bytes and complex
    numbers raise TypeError (`to_json` would encode sets and bytes).

    Raises:
        TypeError: The value has no JSON form.
        ValueError: The value holds NaN or an infinity, or is circular.
    """
    if _C_ENCODE is None or isinstance(value, str):
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def too_deep(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether brackets in `text[start:end]` (outside strings) nest deeper than `MAX_DEPTH`."""
    stop = len(text) if end is None else end
    if text.count("[", start, stop) + text.count("{", start, stop) <= MAX_DEPTH:
        return False
    depth = 0
    pos = start
    while True:
        found = _BRACKET_OR_QUOTE.search(text, pos, stop)
        if found is None:
            return False
        c = found.group()
        pos = found.end()
        if c == '"':
            pos = value_end(text, found.start())
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth -= 1


def loads(text: str) -> Any:
    """What `json.loads` returns for text (NaN and Infinity refused), never deeper than
    `MAX_DEPTH`.

    Raises:
        ValueError: `text` is not one JSON value (blank space around it allowed), or nests
            too deep.
    """
    try:
        value = from_json(text, allow_inf_nan=False)
    except ValueError:
        # Only an escape can make the two disagree (`jiter` refuses lone surrogates): other
        # texts need not be read twice.
        if "\\u" in text:
            return _loads_stdlib(text)
        raise
    except TypeError:  # a str holding a lone surrogate cannot be handed to `jiter` at all
        return _loads_stdlib(text)
    # The counts settle almost every text: only one with many brackets needs the walk.
    if text.count("[") + text.count("{") > MAX_DEPTH and too_deep(text):
        raise ValueError("nested too deep")
    return value


def _loads_stdlib(text: str) -> Any:
    text = text.strip(_JSON_BLANK)
    found = decode_at(text, 0)
    if found is None:
        raise ValueError("not a JSON value, or nested too deep")
    value, end = found
    if end != len(text):
        raise ValueError(f"extra data after JSON at {end}")
    return value


def normalise_arguments(text: str) -> str:
    """Compact JSON when `text` is valid JSON, else `text` unchanged."""
    try:
        return dumps(loads(text))
    except (ValueError, RecursionError):
        return text


def _decode_string(quoted: str) -> str:
    try:
        value = loads(quoted)
    except (ValueError, RecursionError):
        return quoted[1:-1]
    return value if isinstance(value, str) else quoted[1:-1]


def call_from_json(text: str, raw: str) -> ParsedCall:
    """Read a `{"name": ..., "arguments"|"parameters": ...}` object.

    Args:
        text: The JSON text of the object (surrounding whitespace allowed).
        raw: The source span to record on the call.

    Returns:
        The call; when `text` is not a JSON object with a string `name`, the call that
        `broken_call` reads from it.
    """
    try:
        value = loads(text)
    except (ValueError, RecursionError):
        return broken_call(text, raw)
    return call_from_value(value, text, raw)


def call_from_value(value: Any, text: str, raw: str) -> ParsedCall:
    """`call_from_json` for a value already decoded from `text`."""
    if type(value) is dict:
        name = value.get("name")
        if type(name) is str:
            arguments = value.get("arguments", _ABSENT)
            if arguments is _ABSENT:
                arguments = value.get("parameters", {})
            try:
                return ParsedCall(name, dumps(arguments), raw)
            except ValueError:  # a number too large for a float: keep the model's text
                pass
    return broken_call(text, raw)


def decode_at(text: str, start: int) -> tuple[Any, int] | None:
    """Decode the JSON value starting exactly at `text[start]`: `(value, end)`, or None when
    there is none there or it nests deeper than `MAX_DEPTH`."""
    try:
        value, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    if too_deep(text, start, end):
        return None
    return value, end


def broken_call(text: str, raw: str) -> ParsedCall:
    """Salvage a call from text that is not a valid call object.

    The name is the first `"name": "..."` string (`""` if none); the arguments are the value
    after the first `"arguments"`/`"parameters"` key, up to where that value ends or the text
    does, normalised when that piece alone is valid JSON and kept verbatim otherwise (`""`
    when there is no such key), so validation can quote the model's own text back to it.
    """
    match = _NAME_RE.search(text)
    name = _decode_string(match.group(1)) if match else ""
    found = _ARGS_RE.search(text)
    if found is None:
        return ParsedCall(name, "", raw)
    start = found.end()
    arguments = text[start : value_end(text, start)].rstrip()
    return ParsedCall(name, normalise_arguments(arguments), raw)


def value_end(text: str, start: int) -> int:
    """Index just past the JSON value starting at `text[start]`, or `len(text)` if unterminated.

    Broken values end where their brackets balance; scalars end before the next `,`, `}` or
    `]`.
    """
    if start >= len(text):
        return len(text)
    first = text[start]
    if first in "{[":
        walker = JsonWalker(start)
        return walker.end if walker.advance(text, len(text)) == DONE else len(text)
    if first == '"':
        pos = start + 1
        while True:
            found = _INSIDE.search(text, pos)
            if found is None:
                return len(text)
            if text[found.start()] == "\\":
                pos = found.start() + 2
            else:
                return found.start() + 1
    found = _SCALAR_END_RE.search(text, start)
    return found.start() if found else len(text)


class JsonWalker:
    """Follows the brackets and strings of one JSON value as its text arrives.

    Each `advance` reads only text it has not read before. With `key_depth` set, it also
    follows the objects at that depth (1: the value itself is the object; 2: objects inside
    a top-level array) and records their `"name"` string and the span of their
    `"arguments"`/`"parameters"` value, for streaming previews.

    Attributes:
        pos: The next index to read.
        end: Index just past the value once it closed, else -1.
        name: The object's `"name"` string once read.
        object_start: Where the current keyed object began.
    """

    __slots__ = (
        "args_end",
        "args_from",
        "args_start",
        "args_state",
        "depth",
        "end",
        "expect",
        "in_string",
        "key",
        "key_depth",
        "keyed",
        "name",
        "object_start",
        "pos",
        "string_start",
    )

    def __init__(self, start: int, key_depth: int = 0) -> None:
        self.pos = start
        self.depth = 0
        self.in_string = False
        self.string_start = 0
        self.end = -1
        self.key_depth = key_depth
        self.keyed = False
        self.object_start = -1
        self.expect = _KEY
        self.key = ""
        self.name: str | None = None
        self.args_state = _NO_ARGS
        self.args_from = -1
        self.args_start = -1
        self.args_end = -1

    def advance(self, text: str, limit: int) -> int:  # noqa: C901 (a lexer step)
        """Read `text[self.pos:limit]`; stop early when an object or the value closes.

        Returns:
            `MORE` when the text ran out, `OBJECT` when an object at the key depth closed
            (call again for the rest), `DONE` when the whole value closed (`end` is set).
        """
        if self.end >= 0:
            return DONE
        pos = self.pos
        depth = self.depth
        kd = self.key_depth
        result = MORE
        while pos < limit:
            if self.in_string:
                found = _INSIDE.search(text, pos, limit)
                if found is None:
                    pos = limit
                    break
                i = found.start()
                if text[i] == "\\":
                    pos = i + 2
                    continue
                pos = i + 1
                self.in_string = False
                if depth == kd and self.keyed:
                    self._string_closed(text, pos)
                continue
            found = _OUTSIDE.search(text, pos, limit)
            if found is None:
                pos = limit
                break
            i = found.start()
            c = text[i]
            pos = i + 1
            if c == '"':
                self.in_string = True
                self.string_start = i
                if depth == kd and self.keyed and self.args_state == _ARGS_AFTER_COLON:
                    self.args_state = _ARGS_STRING
                    self.args_start = i
            elif c == "{" or c == "[":
                if depth == kd and self.keyed and self.args_state == _ARGS_AFTER_COLON:
                    self.args_state = _ARGS_CONTAINER
                    self.args_start = i
                depth += 1
                if depth == kd:
                    self._open(i, c == "{")
            elif c == "}" or c == "]":
                depth -= 1
                if depth <= 0:
                    if depth == 0 and kd == 1:
                        self._close_scalar(i)
                    self.end = pos
                    result = DONE
                    break
                if depth == kd:
                    if self.keyed and self.args_state == _ARGS_CONTAINER:
                        self.args_state = _ARGS_DONE
                        self.args_end = pos
                elif depth == kd - 1:
                    self._close_scalar(i)
                    result = OBJECT
                    break
            elif depth == kd and self.keyed:
                if c == ":":
                    self.expect = _VALUE
                    if self.args_state == _NO_ARGS and self.key in _ARGUMENT_KEYS_RAW:
                        self.args_state = _ARGS_AFTER_COLON
                        self.args_from = pos
                else:  # ","
                    self._close_scalar(i)
                    self.expect = _KEY
        self.pos = pos
        self.depth = depth
        return result

    def shift(self, offset: int) -> None:
        """Move every stored index left by `offset` (the text lost that many characters)."""
        self.pos -= offset
        self.string_start -= offset
        for attr in ("end", "object_start", "args_from", "args_start", "args_end"):
            value = getattr(self, attr)
            if value >= 0:
                setattr(self, attr, value - offset)

    def args_span(self, limit: int) -> tuple[int, int] | None:
        """The arguments value read so far, as `(start, end)`, or None before it begins."""
        state = self.args_state
        if state == _NO_ARGS:
            return None
        if state == _ARGS_AFTER_COLON or (state == _ARGS_DONE and self.args_start < 0):
            return (self.args_from, self.args_end if state == _ARGS_DONE else limit)
        return (self.args_start, self.args_end if state == _ARGS_DONE else limit)

    def _open(self, start: int, keyed: bool) -> None:
        self.keyed = keyed
        self.object_start = start
        self.expect = _KEY
        self.key = ""
        self.name = None
        self.args_state = _NO_ARGS
        self.args_from = self.args_start = self.args_end = -1

    def _close_scalar(self, at: int) -> None:
        if self.args_state == _ARGS_AFTER_COLON:
            self.args_state = _ARGS_DONE
            self.args_end = at

    def _string_closed(self, text: str, end: int) -> None:
        expect = self.expect
        if expect == _KEY:
            self.key = text[self.string_start : end]
            self.expect = _COLON
        elif expect == _VALUE:
            self.expect = _AFTER_VALUE
            if self.args_state == _ARGS_STRING:
                self.args_state = _ARGS_DONE
                self.args_end = end
            elif self.name is None and self.key == _NAME_KEY_RAW:
                self.name = _decode_string(text[self.string_start : end])
