"""Qwen2.5-Coder format: call objects written as plain JSON, fenced or bare, for offered tools.

Qwen2.5-Coder-Instruct is served with the Hermes template, but under `tool_choice="auto"` it
writes no `<tool_call>` tags: it writes the call object itself, in a Markdown fence or on a
line of its own, often with text around it::

    Sure! Here is the call:
    ```json
    {"name": "get_weather", "arguments": {"city": "Hanoi"}}
    ```

What counts as a call:

- a value opening a line (or the text): a call object `{"name": ..., "arguments": {...}}`
  (`"parameters"` reads like `"arguments"`), a list of them or xLAM's envelope
  `{"tool_calls": [...]}`, in JSON or as a Python literal;
- such values (or Hermes calls) in a fence opened by ```` ```json ```` or a bare ```` ``` ````
  and a line break: the fence is markup, and what else its body holds stays text. A fence
  the text ends inside holds the calls it completed;
- Hermes `<tool_call>` calls anywhere, read by `hermes`. One whose body opens with `{` ends
  where its JSON closes; the blanks and `</tool_call>` after it are markup.

A value counts only when every name in it is an offered tool (the keys of `schemas`, the
request's tools; `resolve_tool_name`), so the calls the model invents for tools nobody
offered (`{"name": "Joke", ...}`) stay text, byte for byte; without `schemas` only Hermes
calls outside fences are read. Anything else is text: JSON that is no call, a value inside a
line of text, a fence in another language (released as it arrives), a value the text ends
inside (unlike a tagged call cut off, which is dropped: without its end nothing marks it as
a call). After calls that opened their line, the blanks and the line break that end it go
too; other text after them on the line stays.

Each call is decided, and sent whole (`ParsedCallStarted`, one `ArgumentsDelta`,
`ParsedCallFinished`), the moment its value, fence or JSON closes: vLLM tells a tool parser
nothing when a stream ends, so a call must not wait for what follows it. Streaming holds back
only what may still be a call: a `{` or `[` opening a line while its opening can still read as
a call (`{"name"`, `[{"arguments"`, ...) and until it closes, a JSON fence until it closes, and
a possible tag or fence start at the end of the text; other text is released at once. The
values are read by the client's reader of what small models write (`_offered.read_lines`), the
tags by `hermes`.
"""

from __future__ import annotations

import re
from typing import Final

from toolcall_sdk.parsing import hermes
from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import DONE, JsonWalker
from toolcall_sdk.parsing._markup import WS, PrefixMatcher, Step, TagSet, lit, skip
from toolcall_sdk.parsing._offered import read_lines
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas
from toolcall_sdk.parsing.pythonic import ValueWalker
from toolcall_sdk.parsing.repair import CALL_IN_TEXT

__all__ = ["FENCE", "FORMAT", "Qwen25CoderStream", "parse"]

FORMAT: Final = "qwen25_coder"
FENCE: Final = "```"

# A fence opens with ``` and an optional language word, then a line break; a fence whose
# language is one of these may hold calls (any other holds code, streamed as text).
_CALL_LANGUAGES: Final = frozenset({"", "json"})
_OPENER: Final = re.compile(r"```([A-Za-z][\w+.\-]*)?[ \t]*\r?\n")
_OPENER_SO_FAR: Final = re.compile(r"```(?:[A-Za-z][\w+.\-]*)?[ \t]*\r?\Z")
_TAGS: Final = TagSet(hermes.START, FENCE, "\n")
_FENCES: Final = TagSet(FENCE)
_INDENT: Final = re.compile(r"[ \t]*")
_BLANK: Final = re.compile(r"[ \t\r\n]*")
# The first keys of the values `read_lines` reads as calls, quoted as JSON or Python writes
# them: a line opening otherwise is released as text at once.
_KEYS: Final = (
    "name",
    "arguments",
    "parameters",
    "id",
    "type",
    "function",
    "tool_calls",
    "thought",
)
_FIRST_KEY: Final = lit(*(q + key + q for q in "\"'" for key in _KEYS))
_OPENINGS: Final[dict[str, tuple[Step, ...]]] = {
    "{": (lit("{"), WS, _FIRST_KEY, WS, lit(":")),
    "[": (lit("["), WS, lit("{"), WS, _FIRST_KEY, WS, lit(":")),
}
(
    _LINE,
    _PROSE,
    _OPENING,
    _VALUE,
    _FENCE_OPEN,
    _JSON_FENCE,
    _OTHER_FENCE,
    _TAG,
    _TAG_CLOSE,
    _AFTER,
) = range(10)


def parse(text: str, schemas: Schemas | None = None) -> ParseResult:
    """Read every Qwen2.5-Coder call in `text`.

    Args:
        text: Model output.
        schemas: Parameter schemas by tool name: their names are the offered tools. Without
            them only Hermes `<tool_call>` calls are read.

    Returns:
        The calls, and the text without their values, fences and tags.
    """
    return Qwen25CoderStream.parse_text(text, schemas)


def _in_format(call: ParsedCall) -> ParsedCall:
    """A call value standing in text is this format's own form, no repair."""
    if CALL_IN_TEXT not in call.repairs:
        return call
    repairs = tuple(r for r in call.repairs if r != CALL_IN_TEXT)
    return ParsedCall(call.name, call.arguments, call.raw, repairs)


class Qwen25CoderStream(FormatStream):
    """Incremental Qwen2.5-Coder parser (see `FormatStream` and the module docstring)."""

    format = FORMAT
    # No vLLM parser reads it (vLLM issue #32926): the SDK plugin's does. No marker: its
    # calls are bare JSON objects, read for its own models only.
    parsers = ()
    markers = ()

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._offered = tuple(schemas or ())
        self._state = _LINE
        self._mark = 0  # start of the text not yet released or dropped
        self._scan = 0  # where reading resumes
        self._cand = 0  # where the current value, fence or tag starts
        self._body = 0  # where the current fence's body or tag's body starts
        self._line_at = 0  # the first non-blank character of the current line
        self._matcher: PrefixMatcher | None = None
        self._value: ValueWalker | None = None
        self._json: JsonWalker | None = None

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        self._cand -= offset
        self._body -= offset
        self._line_at -= offset
        if self._matcher is not None:
            self._matcher.pos -= offset
        if self._value is not None:
            self._value.pos -= offset
        if self._json is not None:
            self._json.shift(offset)

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            if state == _LINE:
                i = skip(_INDENT, buf, self._scan)
                self._text(buf[self._mark : i])
                self._mark = self._scan = i
                if i == n:
                    return n
                self._line_at = self._cand = i
                if buf[i] in _OPENINGS and self._offered:
                    self._matcher = PrefixMatcher(_OPENINGS[buf[i]], i)
                    self._state = _OPENING
                else:
                    self._state = _PROSE
            elif state == _PROSE:
                i, tag = _TAGS.find(buf, self._scan)
                if i < 0:
                    hold = n if final else max(self._mark, _TAGS.hold_from(buf, self._scan))
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : i])
                self._mark = self._cand = i
                if tag == "\n":
                    self._text(tag)
                    self._mark = self._scan = i + 1
                    self._state = _LINE
                elif tag == FENCE:
                    self._state = _FENCE_OPEN
                else:
                    self._body = self._scan = i + len(tag)
                    self._json = None
                    self._state = _TAG
            elif state == _OPENING:
                assert self._matcher is not None
                decided = self._matcher.advance(buf, n)
                if decided is None and not final:
                    return self._mark
                self._matcher = None
                if decided:
                    self._value = ValueWalker(self._cand)
                    self._state = _VALUE
                else:
                    self._state = _PROSE
            elif state == _VALUE:
                if not self._read_value(buf, final):
                    return self._mark
            elif state == _FENCE_OPEN:
                if not self._open_fence(buf, final):
                    return self._mark
            elif state == _JSON_FENCE:
                j = buf.find(FENCE, self._scan)
                if j < 0 and not final:
                    self._scan = max(self._body, n - len(FENCE) + 1)
                    return self._mark
                body_end, end = (j, j + len(FENCE)) if j >= 0 else (n, n)
                # The body reads as an answer would; what it holds besides calls stays.
                inner = Qwen25CoderStream.parse_text(buf[self._body : body_end], self._schemas)
                rest = inner.text if inner.text.strip() else ""
                at_line = self._cand == self._line_at
                self._block(buf, end, inner.calls or None, at_line, rest)
            elif state == _OTHER_FENCE:  # code: text up to its closing fence
                j = buf.find(FENCE, self._scan)
                if j < 0:
                    hold = n if final else max(self._mark, _FENCES.hold_from(buf, self._scan))
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : j + len(FENCE)])
                self._mark = self._scan = j + len(FENCE)
                self._state = _PROSE
            elif state == _TAG:
                end = self._tag_end(buf, final)
                if end < 0:
                    return self._mark
                found = hermes.parse(buf[self._cand : end])
                self._deliver(found.calls)
                self._text(found.text)
                self._mark = self._scan = end
                # A call goes out as its JSON closes (a stream's end is never told); its
                # end tag is read next.
                closed = self._json is not None and self._json.end == end
                self._json = None
                self._state = _TAG_CLOSE if closed and found.calls else _PROSE
            elif state == _TAG_CLOSE:
                if not self._end_tag(buf, final):
                    return self._mark
            elif not self._line_break(buf, final):  # _AFTER
                return self._mark

    def _read_value(self, buf: str, final: bool) -> bool:
        """Follow a value opening a line to its end; False while it is open."""
        assert self._value is not None
        n = len(buf)
        end = self._value.advance(buf, n, final)
        if end < 0:
            if not final:
                return False
            self._value = None
            self._text(buf[self._mark :])  # the text ended inside it: no call
            self._mark = self._scan = n
            self._state = _PROSE
            return True
        self._value = None
        # Decided as it closes, whatever follows on its line: vLLM tells a tool parser
        # nothing when a stream ends, so a call the answer ends with must go out now.
        found = read_lines(buf[self._cand : end], self._offered)
        calls = None
        if found is not None and not found.text.strip():
            calls = [_in_format(call) for call in found.calls]
        self._block(buf, end, calls, at_line=True)
        return True

    def _open_fence(self, buf: str, final: bool) -> bool:
        """Decide whether the ``` at `self._cand` opens a fence; False while undecided."""
        opener = _OPENER.match(buf, self._cand)
        if opener is None:
            if not final and _OPENER_SO_FAR.match(buf, self._cand):
                return False
            self._text(buf[self._mark : self._cand + len(FENCE)])  # not a fence: text
            self._mark = self._scan = self._cand + len(FENCE)
            self._state = _PROSE
            return True
        self._body = self._scan = opener.end()
        if (opener.group(1) or "").lower() in _CALL_LANGUAGES and self._offered:
            self._state = _JSON_FENCE
        else:
            self._text(buf[self._mark : self._body])
            self._mark = self._body
            self._state = _OTHER_FENCE
        return True

    def _tag_end(self, buf: str, final: bool) -> int:
        """Where the Hermes call at `self._cand` ends; -1 while open. A body that opens with
        `{` ends where its JSON closes (its end tag is read after it); any other body, or
        JSON that never closes, at the first `</tool_call>`, as `hermes` ends it."""
        n = len(buf)
        first = skip(_BLANK, buf, self._body)
        if first == n:
            return n if final else -1
        if buf[first] == "{":
            if self._json is None:
                self._json = JsonWalker(first)
            if self._json.advance(buf, n) == DONE:
                return self._json.end
            if not final:
                return -1
        j = buf.find(hermes.END, self._scan)
        if j >= 0:
            return j + len(hermes.END)
        if final:
            return n
        self._scan = max(self._scan, n - len(hermes.END) + 1)
        return -1

    def _end_tag(self, buf: str, final: bool) -> bool:
        """After a Hermes call whose JSON closed: blanks and `</tool_call>` are markup (at the
        end of the text, none is needed); anything else is text. False while undecided."""
        n = len(buf)
        i = skip(_BLANK, buf, self._mark)
        if buf.startswith(hermes.END, i):
            end = i + len(hermes.END)
        elif n - i < len(hermes.END) and buf.startswith(hermes.END[: n - i], i):
            if not final:
                return False
            end = n  # the text ended before the end tag did
        else:
            self._state = _PROSE
            return True
        self._mark = self._scan = end
        self._state = _PROSE
        return True

    def _block(
        self, buf: str, end: int, calls: list[ParsedCall] | None, at_line: bool, rest: str = ""
    ) -> None:
        """A value or fence ends at `end`: its calls and the `rest` of its text, or all its
        text when it holds no call. After calls that opened their line, its end is markup."""
        if calls is None:
            self._text(buf[self._mark : end])
            self._mark = self._scan = end
            self._state = _PROSE
            return
        self._deliver(calls)
        self._text(rest)
        self._mark = self._scan = end
        self._state = _AFTER if at_line else _PROSE

    def _deliver(self, calls: list[ParsedCall]) -> None:
        for call in calls:
            if self._emit:
                self._start(call.name)
                self._args(call.arguments)
            self._finish(call)

    def _line_break(self, buf: str, final: bool) -> bool:
        """After calls that opened their line: the blanks and line break that end it are
        markup; other text after them is text. False while undecided."""
        n = len(buf)
        i = skip(_INDENT, buf, self._mark)
        if i == n or (buf[i] == "\r" and i + 1 == n):
            if not final:
                return False
            self._mark = self._scan = n
            self._state = _LINE
            return True
        if buf.startswith("\r\n", i):
            i += 2
        elif buf[i] in "\r\n":
            i += 1
        else:
            self._state = _PROSE
            return True
        self._mark = self._scan = i
        self._state = _LINE
        return True
