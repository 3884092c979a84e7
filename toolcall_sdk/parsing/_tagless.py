"""The engine for formats whose calls carry no tag of their own: Llama 3 JSON and pythonic.

Such a call is recognised by where it stands and how it begins. A *call position* is the
first non-blank character of the text, the place right after an opening tag
(`<|python_tag|>`, `<|python_start|>`), or the place after a call and its separators. A
candidate there (`{` or `[`) is held back only while its opening can still match the
format's call prefix; it is released as text the moment it cannot. Separators before a
call are markup; separators that no call follows are text.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import DONE, JsonWalker
from toolcall_sdk.parsing._markup import PrefixMatcher, Step, TagSet, skip
from toolcall_sdk.parsing._types import ParsedCall
from toolcall_sdk.parsing._values import Schemas

__all__ = ["TaglessStream"]

_BLANK: Final = re.compile(r"[ \t\r\n]*")
_START, _SEP, _CAND, _REGION, _PROSE, _SKIP = range(6)


class TaglessStream(FormatStream):
    """Base of the tagless formats; subclasses fill in the class variables and hooks."""

    _OPENER: ClassVar[str]  # the character a call region starts with
    _SEPARATORS: ClassVar[re.Pattern[str]]  # a run of separators between calls
    _STEPS: ClassVar[tuple[Step, ...]]  # the call prefix
    _PROSE_TAGS: ClassVar[TagSet]  # tags (and openers) looked for in prose
    _OPEN_TAGS: ClassVar[frozenset[str]]  # prose tags after which a call position follows
    # Read a rejected candidate to its end as plain text, so nothing inside it (an object
    # nested in ordinary JSON) is taken for a call.
    _SKIP_REJECTED: ClassVar[bool] = False

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._state = _START
        self._mark = 0  # start of the text not yet released or dropped
        self._scan = 0  # where reading resumes
        self._cand = 0  # where the current candidate starts
        self._in_prose = False  # the candidate stands in prose, not at a call position
        self._matcher: PrefixMatcher | None = None
        self._skip: JsonWalker | None = None

    # Hooks --------------------------------------------------------------------------------

    def _prefix(self, buf: str, final: bool) -> bool | None:
        """Decide whether the candidate's opening matches the call prefix (None: not yet)."""
        matcher = self._matcher
        if matcher is None:
            matcher = self._matcher = PrefixMatcher(self._STEPS, self._cand)
        return matcher.advance(buf, len(buf))

    def _begin_region(self, buf: str) -> None:
        """The prefix matched at `self._cand`: get ready to find the region's end."""

    def _region_end(self, buf: str, final: bool) -> int:
        """Index just past the region, or -1 while it is still open."""
        raise NotImplementedError

    def _region_calls(self, region: str, closed: bool) -> list[ParsedCall] | None:
        """The calls a region holds, or None when it is not calls after all (then text)."""
        raise NotImplementedError

    def _announce(self, call: ParsedCall) -> None:
        """Send the preview events of a call found whole (none by default)."""

    def _shift_region(self, offset: int) -> None:
        """Move the region reader's indexes left by `offset`."""

    # Engine -------------------------------------------------------------------------------

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        self._cand -= offset
        if self._matcher is not None:
            self._matcher.pos -= offset
        if self._skip is not None:
            self._skip.shift(offset)
        self._shift_region(offset)

    def _candidate(self, at: int, in_prose: bool) -> None:
        self._state = _CAND
        self._cand = at
        self._in_prose = in_prose
        self._matcher = None  # made on first use: a whole text may decide without it

    def _to_prose(self, mark: int, scan: int) -> None:
        self._state = _PROSE
        self._mark = mark
        self._scan = scan
        self._matcher = None

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            if state in (_START, _SEP):
                pattern = _BLANK if state == _START else self._SEPARATORS
                i = skip(pattern, buf, self._scan)
                if state == _START:
                    self._text(buf[self._mark : i])
                    self._mark = i
                if i == n:
                    self._scan = i
                    if final:
                        self._text(buf[self._mark :])
                        return n
                    return self._mark
                if buf[i] == self._OPENER:
                    self._candidate(i, in_prose=False)
                else:
                    self._text(buf[self._mark : i])
                    self._to_prose(i, i)
            elif state == _CAND:
                decided = self._prefix(buf, final)
                if decided is None and not final:
                    return self._mark
                if decided:
                    self._mark = self._cand  # separators before a call are markup
                    self._state = _REGION
                    self._begin_region(buf)
                else:
                    self._text(buf[self._mark : self._cand])
                    if self._SKIP_REJECTED:
                        self._state = _SKIP
                        self._mark = self._cand
                        self._skip = JsonWalker(self._cand)
                    else:
                        self._to_prose(self._cand, self._cand + 1)
            elif state == _REGION:
                end = self._region_end(buf, final)
                if end < 0 and not final:
                    return self._mark
                closed = end >= 0
                calls = self._region_calls(buf[self._cand : end if closed else n], closed)
                if calls is None:
                    self._to_prose(self._cand, end if closed else n)
                    continue
                for call in calls:
                    self._announce(call)
                    self._finish(call)
                if not closed:
                    self._mark = self._scan = n
                    return n
                self._state = _SEP
                self._mark = self._scan = end
                self._matcher = None
            elif state == _SKIP:
                assert self._skip is not None
                if self._skip.advance(buf, n) == DONE:
                    end = self._skip.end
                    self._skip = None
                    self._text(buf[self._mark : end])
                    self._to_prose(end, end)
                    continue
                self._text(buf[self._mark :])
                self._mark = self._scan = n
                return n
            else:  # _PROSE
                i, tag = self._PROSE_TAGS.find(buf, self._scan)
                if i < 0:
                    hold = (
                        n if final else max(self._mark, self._PROSE_TAGS.hold_from(buf, self._scan))
                    )
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : i])
                if tag == self._OPENER:
                    self._mark = i
                    self._candidate(i, in_prose=True)
                else:
                    self._mark = self._scan = i + len(tag)
                    if tag in self._OPEN_TAGS:
                        self._state = _SEP
