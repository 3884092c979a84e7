"""Pythonic format (Llama 3.2 1B/3B, Llama 4, ToolACE): a Python list of calls.

    [get_weather(city="Hanoi", days=3), get_time()]
    <|python_start|>[get_weather(city="Hanoi")]<|python_end|>

The list is read with `ast` and each keyword value with `ast.literal_eval`: strings,
numbers, `True`/`False`/`None`, lists, dicts and tuples, nested. Nothing is ever evaluated.
A list that is not made only of calls with literal keyword arguments (positional
arguments, names, expressions, f-strings, sets, bytes) is not a call and stays text.

A list counts where a call can stand: at the start of the text (after blank space), after
`<|python_start|>`, or after another list. `<|python_start|>` and `<|python_end|>` are
removed wherever they are.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Final

from toolcall_sdk.parsing._json import MAX_DEPTH, dumps_literal
from toolcall_sdk.parsing._markup import IDENT, WS, TagSet, lit
from toolcall_sdk.parsing._tagless import TaglessStream
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = [
    "END_TAG",
    "FORMAT",
    "START_TAG",
    "PythonicStream",
    "ValueWalker",
    "calls_from_list",
    "parse",
    "python_value_end",
]

FORMAT: Final = "pythonic"
START_TAG: Final = "<|python_start|>"
END_TAG: Final = "<|python_end|>"

# The opening of a call list: `[name(`.
_CALL_PREFIX: Final = (lit("["), WS, IDENT, WS, lit("("))
_OUTSIDE: Final = re.compile(r"""[\[\](){}'"#]""")
_IN_STRING: Final = {"'": re.compile(r"[\\']"), '"': re.compile(r'[\\"]')}
_NEWLINE: Final = re.compile(r"\r\n|\r|\n")
_LITERAL_ERRORS: Final = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def parse(text: str) -> ParseResult:
    """Read every pythonic call list in `text`.

    Args:
        text: Model output.

    Returns:
        The calls, and the text without the call lists and the `<|python_...|>` tags.
    """
    return PythonicStream.parse_text(text)


def calls_from_list(source: str) -> list[ParsedCall] | None:
    """The calls in a Python list expression, or None unless it is only literal calls.

    Args:
        source: Text of the list, `[` to `]`.

    Returns:
        One call per element (arguments as compact JSON, `raw` the element's source), or
        None when any element is not `name(keyword=literal, ...)`, or it nests deeper than
        `MAX_DEPTH`.
    """
    walker = ValueWalker(0)
    if walker.advance(source, len(source), True) < 0 or walker.deepest > MAX_DEPTH:
        return None
    try:
        tree = ast.parse(source, mode="eval")
    except _LITERAL_ERRORS:
        return None
    node = tree.body
    if not isinstance(node, ast.List) or not node.elts:
        return None
    simple = source.isascii() and "\n" not in source and "\r" not in source
    lines = None if simple else _line_starts(source)
    calls = []
    for element in node.elts:
        if not isinstance(element, ast.Call) or element.args:
            return None
        name = _dotted_name(element.func)
        if name is None:
            return None
        arguments: dict[str, Any] = {}
        for keyword in element.keywords:
            if keyword.arg is None:  # **kwargs
                return None
            try:
                arguments[keyword.arg] = ast.literal_eval(keyword.value)
            except _LITERAL_ERRORS:
                return None
        try:
            text = dumps_literal(arguments)
        except (TypeError, ValueError):  # sets, bytes, complex: no JSON for them
            return None
        calls.append(ParsedCall(name, text, _segment(source, element, lines)))
    return calls


def python_value_end(text: str, start: int) -> int:
    """Index just past the bracket that closes the one at `text[start]` (`(`, `[` or `{`).

    Python strings (quoted either way, triple-quoted too) and comments are skipped, so a
    bracket inside them does not count.

    Returns:
        The index, or -1 when the text ends first or the brackets nest deeper than
        `MAX_DEPTH`.
    """
    walker = ValueWalker(start)
    end = walker.advance(text, len(text), True)
    return end if walker.deepest <= MAX_DEPTH else -1


def _line_starts(source: str) -> list[int]:
    """Where each line starts, lines split as the parser splits them (`\n`, `\r\n`, `\r`)."""
    return [0, *(m.end() for m in _NEWLINE.finditer(source))]


def _segment(source: str, node: ast.expr, lines: list[int] | None) -> str:
    """`ast.get_source_segment`, without re-splitting the whole source for every node."""
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None:
        return ""
    if lines is None:  # one line of ASCII: byte offsets are character offsets
        return source[node.col_offset : end_col]

    def index(line: int, byte_offset: int) -> int:
        start = lines[line - 1]
        stop = lines[line] if line < len(lines) else len(source)
        head = source[start:stop].encode()[:byte_offset]
        return start + len(head.decode(errors="replace"))

    return source[index(node.lineno, node.col_offset) : index(end_line, end_col)]


def _dotted_name(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class ValueWalker:
    """Finds the bracket that closes the one at `start` (a Python list, dict or call, or a
    JSON value) as its text arrives, strings and comments skipped. A quote at the end of
    the text waits for the next characters to tell `'` from `'''`.

    Attributes:
        pos: The next index to read; move it back when the text before it is dropped.
        deepest: The deepest nesting read so far.
    """

    __slots__ = ("deepest", "depth", "pos", "quote")

    def __init__(self, start: int) -> None:
        self.pos = start
        self.depth = 0
        self.deepest = 0
        self.quote = ""  # the delimiter closing the current string, "#" in a comment

    def advance(self, text: str, limit: int, final: bool) -> int:  # noqa: C901 (a lexer step)
        """Read on; return the index just past the closing bracket, or -1 while it is open."""
        pos = self.pos
        try:
            while pos < limit:
                quote = self.quote
                if quote == "#":
                    i = text.find("\n", pos, limit)
                    if i < 0:
                        pos = limit
                        break
                    pos = i + 1
                    self.quote = ""
                elif quote:
                    found = _IN_STRING[quote[0]].search(text, pos, limit)
                    if found is None:
                        pos = limit
                        break
                    i = found.start()
                    if text[i] == "\\":
                        pos = i + 2
                    elif len(quote) == 1:
                        pos = i + 1
                        self.quote = ""
                    elif i + 3 > limit and not final and text[i:limit] == quote[: limit - i]:
                        pos = i  # a closing triple quote may be arriving
                        break
                    elif text.startswith(quote, i):
                        pos = i + 3
                        self.quote = ""
                    else:
                        pos = i + 1
                else:
                    found = _OUTSIDE.search(text, pos, limit)
                    if found is None:
                        pos = limit
                        break
                    i = found.start()
                    c = text[i]
                    if c == "#":
                        self.quote = "#"
                        pos = i + 1
                    elif c in "'\"":
                        if i + 3 > limit and not final and text[i:limit] == c * (limit - i):
                            pos = i  # an opening triple quote may be arriving
                            break
                        self.quote = c * 3 if text.startswith(c * 3, i) else c
                        pos = i + len(self.quote)
                    elif c in "([{":
                        self.depth += 1
                        self.deepest = max(self.deepest, self.depth)
                        pos = i + 1
                    else:
                        self.depth -= 1
                        pos = i + 1
                        if self.depth <= 0:
                            return pos
            return -1
        finally:
            self.pos = pos


class PythonicStream(TaglessStream):
    """Incremental pythonic parser (see `FormatStream`). Calls are known only when their
    list closes, so each arrives as `ParsedCallStarted`, one `ArgumentsDelta`,
    `ParsedCallFinished`."""

    format = FORMAT
    parsers = ("pythonic", "llama4_pythonic")
    markers = (START_TAG,)
    leads = (("[", _CALL_PREFIX),)
    _OPENER = "["
    _SEPARATORS = re.compile(r"[ \t\r\n]*")
    _STEPS = _CALL_PREFIX
    _PROSE_TAGS = TagSet(START_TAG, END_TAG)
    _OPEN_TAGS = frozenset({START_TAG})

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._walker = ValueWalker(0)

    def _begin_region(self, buf: str) -> None:
        self._walker = ValueWalker(self._cand)

    def _region_end(self, buf: str, final: bool) -> int:
        return self._walker.advance(buf, len(buf), final)

    def _region_calls(self, region: str, closed: bool) -> list[ParsedCall] | None:
        return calls_from_list(region) if closed else None

    def _announce(self, call: ParsedCall) -> None:
        if self._emit:
            self._start(call.name)
            self._args(call.arguments)

    def _shift_region(self, offset: int) -> None:
        self._walker.pos -= offset
