"""Deciding, from a text that is still arriving, whether it can still turn into call markup.

Two tools, shared by every format so that a streamed text and the whole text are read by
the same rules:

- `TagSet` finds fixed tags (`<tool_call>`, `[TOOL_CALLS]`, ...) and says how much of a
  text's end must be held back because it is a proper prefix of a tag (`<`, `<tool`, ...).
- `PrefixMatcher` matches the opening of a tagless call (`{"name": "f", "parameters":` or
  `[f(`), one character at a time, and answers yes, no or not yet.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

__all__ = ["IDENT", "STRING", "WS", "PrefixMatcher", "Step", "TagSet", "lit", "skip"]

_WHITESPACE: Final = frozenset(" \t\r\n")


def skip(run: re.Pattern[str], text: str, pos: int) -> int:
    """The index after the run of `run` (a pattern that may match nothing) at `pos`."""
    found = run.match(text, pos)
    return found.end() if found else pos


class TagSet:
    """A few fixed tags searched for together."""

    __slots__ = ("_firsts", "_longest", "_pattern", "tags")

    def __init__(self, *tags: str) -> None:
        self.tags = tags
        self._longest = max(len(t) for t in tags)
        self._firsts = sorted({t[0] for t in tags})
        # One pass for several tags: `str.find` per tag would read on to the end of the text
        # for each tag that is not there. Longest first, so a tag wins over its own prefix.
        ordered = sorted(tags, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if len(tags) > 1 else None

    @staticmethod
    @lru_cache(maxsize=256)
    def of(*tags: str) -> TagSet:
        """A shared `TagSet` for these tags (for sets made per call or per value)."""
        return TagSet(*tags)

    def find(self, text: str, start: int = 0, end: int | None = None) -> tuple[int, str]:
        """The earliest complete tag in `text[start:end]`, as `(index, tag)`; `(-1, "")` if none.
        Of two tags found at the same index, the longer."""
        pattern = self._pattern
        if pattern is None:
            tag = self.tags[0]
            i = text.find(tag, start, len(text) if end is None else end)
            return (i, tag) if i >= 0 else (-1, "")
        found = pattern.search(text, start, len(text) if end is None else end)
        return (found.start(), found.group()) if found else (-1, "")

    def hold_from(self, text: str, start: int = 0) -> int:
        """Where the held-back end of `text` begins: the longest suffix that is a proper prefix
        of a tag (`len(text)` when there is none). Only the last `longest - 1` characters can
        be such a prefix, so this costs the same however long `text` is."""
        n = len(text)
        lo = max(start, n - self._longest + 1)
        best = n
        for first in self._firsts:
            i = text.find(first, lo)
            while 0 <= i < best:
                tail = text[i:]
                if any(t.startswith(tail) for t in self.tags):
                    best = i
                    break
                i = text.find(first, i + 1)
        return best


# PrefixMatcher steps: (kind, literal alternatives).
Step = tuple[int, tuple[str, ...]]
_LIT, _WS, _STRING, _IDENT = range(4)
WS: Final[Step] = (_WS, ())
STRING: Final[Step] = (_STRING, ())  # a JSON string, quotes included
IDENT: Final[Step] = (_IDENT, ())  # a dotted Python name: [A-Za-z_][A-Za-z0-9_.]*


def lit(*alternatives: str) -> Step:
    """A step matching one of several literal texts (none may be a prefix of another)."""
    return (_LIT, alternatives)


class PrefixMatcher:
    """Matches a short sequence of steps at a fixed start, resumable as text arrives.

    `advance` returns True once the whole sequence matched, False as soon as it cannot,
    and None while it still can. At the end of the text, None means no.
    """

    __slots__ = ("_alts", "_escaped", "_offset", "_step", "_steps", "pos", "result")

    def __init__(self, steps: tuple[Step, ...], start: int) -> None:
        self._steps = steps
        self._step = 0
        self._offset = 0
        self._escaped = False
        self._alts: tuple[str, ...] = steps[0][1]
        self.pos = start
        self.result: bool | None = None

    def advance(self, text: str, limit: int) -> bool | None:  # noqa: C901 (a lexer step)
        """Read `text[self.pos:limit]` until decided."""
        steps = self._steps
        pos = self.pos
        while self.result is None and pos < limit:
            kind = steps[self._step][0]
            c = text[pos]
            done = False
            if kind == _WS:
                if c in _WHITESPACE:
                    pos += 1
                else:
                    done = True
            elif kind == _LIT:
                offset = self._offset
                alts = tuple(a for a in self._alts if a[offset] == c)
                if not alts:
                    self.result = False
                    break
                pos += 1
                self._offset = offset + 1
                self._alts = alts
                done = any(len(a) == offset + 1 for a in alts)
            elif kind == _STRING:
                if self._offset == 0:
                    if c != '"':
                        self.result = False
                        break
                    self._offset = 1
                elif self._escaped:
                    self._escaped = False
                elif c == "\\":
                    self._escaped = True
                elif c == '"':
                    done = True
                pos += 1
            else:  # _IDENT
                if c == "_" or c.isalpha() or (self._offset and (c.isdigit() or c == ".")):
                    self._offset += 1
                    pos += 1
                elif self._offset == 0:
                    self.result = False
                    break
                else:
                    done = True
            if done:
                self._step += 1
                self._offset = 0
                if self._step == len(steps):
                    self.result = True
                else:
                    self._alts = steps[self._step][1]
        self.pos = pos
        return self.result
