"""Calls written outside any format, read only where the offered tool names make them safe.

Small models often answer a forced call in a shape no format defines: the call in a
Markdown fence, a Python dict where JSON belongs, GLM-4's function name on one line and its
JSON arguments on the next, or a Python call without the list brackets. `parse_any(text,
tools=names)` reads these as a last resort, and marks each call with how it was written
(`ParsedCall.repairs`), so the client records it on the attempt. None of it is a guess:

- Python text is read with `ast.literal_eval` (literals only), never evaluated.
- A form without markup of its own (a bare call, a name line, a value standing in text)
  counts only when it fills its lines (a call mentioned inside a sentence is text) and only
  when every name in it is an offered tool (`resolve_tool_name`). A `<tool_call>` tag marks
  a call by itself: its name is left to validation, as for any format.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from typing import Any, Final

from toolcall_sdk.parsing import hermes, pythonic, xlam
from toolcall_sdk.parsing._json import dumps_literal, loads
from toolcall_sdk.parsing._markup import skip
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing.repair import (
    BARE_CALL,
    CALL_IN_TEXT,
    NAME_LINE,
    PYTHON_LITERAL,
    resolve_tool_name,
)

__all__ = ["Fence", "fences", "read_lines", "read_tagged_literals"]

# ```lang\n ... ``` : a language word counts only when a line break follows it (else the
# fence opens on the code itself: ```get_time()```). A fence the text ends inside runs on
# to the end.
_FENCE: Final = re.compile(r"```(?:[A-Za-z][\w+.\-]*[ \t]*\r?\n|[ \t]*\r?\n?)(.*?)(?:```|\Z)", re.S)
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_INDENT: Final = re.compile(r"[ \t]*")
_BLANK: Final = re.compile(r"[ \t\r\n]*")
_SEPARATOR: Final = re.compile(r"[ \t]*[,;]?[ \t]*")
_LITERAL_ERRORS: Final = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
# Python text longer than this is not read as a literal: arguments are never this long, and
# `ast` costs memory in proportion.
_MAX_LITERAL_CHARS: Final = 100_000

Fence = tuple[int, int, int, int]
"""A fenced block: its start and end, and its body's start and end."""


def fences(text: str) -> list[Fence]:
    """The Markdown code fences of `text`, in order."""
    if "```" not in text:
        return []
    return [(m.start(), m.end(), m.start(1), m.end(1)) for m in _FENCE.finditer(text)]


def _literal(source: str) -> tuple[Any, ast.expr] | None:
    """The Python literal `source` holds, and its syntax tree; None when it is not one."""
    if len(source) > _MAX_LITERAL_CHARS:
        return None
    try:
        node = ast.parse(source.strip(), mode="eval").body
        return ast.literal_eval(node), node
    except _LITERAL_ERRORS:
        return None


def _element_nodes(node: ast.expr) -> list[ast.expr]:
    """The syntax nodes of the calls of a literal `call_objects` accepted."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "tool_calls":
                node = value
                break
        else:
            return [node]
    return list(node.elts) if isinstance(node, ast.List) else [node]


def _literal_calls(source: str, repairs: tuple[str, ...]) -> list[ParsedCall] | None:
    """The calls in Python literal text shaped as xLAM calls (see `xlam.call_objects`)."""
    found = _literal(source)
    if found is None:
        return None
    value, node = found
    objects = xlam.call_objects(value)
    if objects is None:
        return None
    source = source.strip()
    calls = []
    for obj, element in zip(objects, _element_nodes(node), strict=False):
        arguments = obj.get("arguments", obj.get("parameters"))
        try:
            text = dumps_literal(arguments)
        except (TypeError, ValueError):  # sets, bytes, complex, NaN: no JSON for them
            return None
        raw = ast.get_source_segment(source, element) or source
        calls.append(ParsedCall(obj["name"], text, raw, repairs))
    return calls if len(calls) == len(objects) else None


def read_tagged_literals(text: str) -> ParseResult | None:
    """Hermes calls whose body is a Python dict: `<tool_call>{'name': 'f', ...}</tool_call>`.

    The body must be a Python literal (not JSON: the `hermes` format reads that) shaped as
    a call, a list of calls or an envelope; `</tool_call>` follows it, or the text ends.

    Returns:
        The calls (repair `python_literal`), or None when there are none.
    """
    calls: list[ParsedCall] = []
    pieces: list[str] = []
    kept = 0
    pos = text.find(hermes.START)
    while pos >= 0:
        body = skip(_BLANK, text, pos + len(hermes.START))
        end = pythonic.python_value_end(text, body) if text[body : body + 1] in ("{", "[") else -1
        found = None
        if end > 0 and not _is_json(text[body:end]):
            found = _literal_calls(text[body:end], (PYTHON_LITERAL,))
        after = skip(_BLANK, text, end) if found else -1
        if found and text.startswith(hermes.END, after):
            after += len(hermes.END)
        elif found and after != len(text):
            found = None  # something else follows the dict: not a call this reader knows
        if found:
            pieces.append(text[kept:pos])
            calls += found
            kept = after
        pos = text.find(hermes.START, max(pos + 1, after))
    if not calls:
        return None
    pieces.append(text[kept:])
    return ParseResult(calls, "".join(pieces), hermes.FORMAT)


def _is_json(source: str) -> bool:
    try:
        loads(source)
    except (ValueError, RecursionError):
        return False
    return True


def read_lines(text: str, tools: Collection[str]) -> ParseResult | None:
    """Calls standing on lines of their own, every name an offered tool.

    - bare Python calls: `math.hypot(x=4, y=5)`, one or several on a line (separated by
      `,` or `;`), or one call's arguments over several lines; keyword arguments with
      literal values only (repair `bare_call`);
    - GLM-4's `name` line followed by a JSON (or Python) object of arguments (`name_line`);
    - a pythonic call list, a JSON call value (`[{"name": ...}]`, `{"tool_calls": [...]}`),
      or the same written as a Python literal, standing at a line start after other text
      (`call_in_text`, `python_literal`).

    A line may be wrapped in single backquotes. Whatever else shares the line makes it text.

    Returns:
        The calls and the text without their lines, or None when there are none.
    """
    calls: list[ParsedCall] = []
    pieces: list[str] = []
    kept = 0
    pos = 0
    n = len(text)
    while pos < n:
        found = _line(text, pos, tools)
        if found is not None:
            line_calls, end = found
            pieces.append(text[kept:pos])
            calls += line_calls
            if text.startswith("\r\n", end):
                end += 2
            elif end < n and text[end] in "\r\n":
                end += 1
            kept = pos = end
            continue
        newline = text.find("\n", pos)
        if newline < 0:
            break
        pos = newline + 1
    if not calls:
        return None
    pieces.append(text[kept:])
    # The format the first call comes closest to: Python calls are pythonic; call values
    # and a name line's name and JSON arguments, xLAM's.
    first = calls[0].raw.rstrip()
    python = first.endswith(")") and not first.startswith(("{", "["))
    return ParseResult(calls, "".join(pieces), pythonic.FORMAT if python else xlam.FORMAT)


def _line_end(text: str, pos: int, quoted: bool) -> int:
    """Where the line ends when only blank space (and the closing quote) is left from `pos`;
    -1 when something else is."""
    if quoted:
        pos = skip(_INDENT, text, pos)
        if not text.startswith("`", pos):
            return -1
        pos += 1
    pos = skip(_INDENT, text, pos)
    if pos == len(text) or text[pos] in "\r\n":
        return pos
    return -1


def _line(text: str, pos: int, tools: Collection[str]) -> tuple[list[ParsedCall], int] | None:
    """The calls that fill the line starting at `pos`, and where the line ends."""
    i = skip(_INDENT, text, pos)
    quoted = text.startswith("`", i) and not text.startswith("``", i)
    if quoted:
        i += 1
    if i >= len(text):
        return None
    if text[i] in "{[":
        return _value_line(text, i, quoted, tools)
    name = _NAME.match(text, i)
    if name is None:
        return None
    after = skip(_INDENT, text, name.end())
    if text.startswith("(", after):
        return _call_line(text, i, quoted, tools)
    if quoted:
        return None
    return _name_line(text, name.group(), i, name.end(), tools)


def _offered(calls: list[ParsedCall], tools: Collection[str]) -> bool:
    return all(resolve_tool_name(call.name, tools) is not None for call in calls)


def _call_line(
    text: str, start: int, quoted: bool, tools: Collection[str]
) -> tuple[list[ParsedCall], int] | None:
    calls: list[ParsedCall] = []
    pos = start
    while True:
        name = _NAME.match(text, pos)
        if name is None:
            return None
        opening = skip(_INDENT, text, name.end())
        if not text.startswith("(", opening):
            return None
        end = pythonic.python_value_end(text, opening)
        if end < 0:
            return None  # cut off, or too deep: not a call that stands
        source = text[pos:end]
        found = pythonic.calls_from_list("[" + source + "]")
        if found is None or len(found) != 1:
            return None
        calls.append(ParsedCall(found[0].name, found[0].arguments, source, (BARE_CALL,)))
        pos = skip(_SEPARATOR, text, end)
        line_end = _line_end(text, pos, quoted)
        if line_end >= 0:
            return (calls, line_end) if _offered(calls, tools) else None


def _name_line(
    text: str, name: str, start: int, name_end: int, tools: Collection[str]
) -> tuple[list[ParsedCall], int] | None:
    if resolve_tool_name(name, tools) is None or _line_end(text, name_end, False) < 0:
        return None
    body = skip(_BLANK, text, name_end)
    if not text.startswith("{", body) or "\n" not in text[name_end:body]:
        return None
    end = pythonic.python_value_end(text, body)
    line_end = _line_end(text, end, False) if end > 0 else -1
    if line_end < 0:
        return None
    source = text[body:end]
    repairs: tuple[str, ...] = (NAME_LINE,)
    try:
        arguments = loads(source)
    except (ValueError, RecursionError):
        found = _literal(source)
        if found is None:
            return None
        arguments = found[0]
        repairs = (PYTHON_LITERAL, NAME_LINE)
    if type(arguments) is not dict:
        return None
    try:
        encoded = dumps_literal(arguments)
    except (TypeError, ValueError):
        return None
    return [ParsedCall(name, encoded, text[start:end], repairs)], line_end


def _value_line(
    text: str, start: int, quoted: bool, tools: Collection[str]
) -> tuple[list[ParsedCall], int] | None:
    end = pythonic.python_value_end(text, start)
    line_end = _line_end(text, end, quoted) if end > 0 else -1
    if line_end < 0:
        return None
    source = text[start:end]
    calls: list[ParsedCall] | None = None
    if source.startswith("["):
        listed = pythonic.calls_from_list(source)
        if listed is not None:
            calls = [ParsedCall(c.name, c.arguments, c.raw, (CALL_IN_TEXT,)) for c in listed]
    if calls is None:
        if _is_json(source):
            found = xlam.calls_in_value(source)
            if found is not None:
                calls = [ParsedCall(c.name, c.arguments, c.raw, (CALL_IN_TEXT,)) for c in found]
        else:
            calls = _literal_calls(source, (PYTHON_LITERAL,))
    if not calls or not _offered(calls, tools):
        return None
    return calls, line_end
