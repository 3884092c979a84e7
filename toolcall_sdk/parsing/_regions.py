"""The engine for formats whose calls sit in marked regions read as a whole.

GLM, Gemma 4, DeepSeek, Kimi and Qwen3 XML open a region with a tag (`<tool_call>`,
`<|tool_call>`, `<｜tool▁calls▁begin｜>`, ...) and close it with another. What closes it
depends on where the reader stands inside it: a closing tag inside a string value or a
JSON string is part of the value. Each format gives a `Scanner` that follows its own
structure, reading each character once, and says where the region ends; the region is then
read whole by the format's `_region`.

- Text outside regions is released as soon as it cannot become a tag; tags of the format
  that are markup but open no region (a stray `</tool_call>`) are removed.
- A region the text ends inside (the output ran into `max_tokens`) gives the calls it
  completed (a section cut in its second call keeps its first) and no text.
- A closed region that holds no call the format can read stays text.

Calls are known when their region closes: each arrives as `ParsedCallStarted`, one
`ArgumentsDelta` with its arguments, `ParsedCallFinished`, unless the format previews them as its
scanner reads them (`_preview_region`: Qwen3 XML sends a call's name, then its parameters one at a
time).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import DONE, JsonWalker, decode_at, dumps, normalise_arguments
from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._types import ParsedCall
from toolcall_sdk.parsing._values import Schemas, parameter_types

_BLANK = " \t\r\n"

__all__ = [
    "ElementSectionStream",
    "JsonSectionScanner",
    "JsonSectionStream",
    "RegionStream",
    "Scanner",
    "ValueScanner",
    "json_span",
]


class Scanner(ABC):
    """Follows one region's structure as its text arrives, to find where it ends."""

    @abstractmethod
    def advance(self, buf: str, final: bool) -> int:
        """Read on; the index just past the region, or -1 while it is open (with `final`:
        the text ended inside it)."""

    @abstractmethod
    def shift(self, offset: int) -> None:
        """Move stored indexes left by `offset`."""


class ValueScanner(Scanner):
    """A region closed by `end`, outside values that run from an opener in `values` to its
    closer: `end` inside a value is part of the value.

    Args:
        pos: Where the region's body starts.
        end: The tag that closes the region.
        values: `{opener: closer}` of the values, e.g. `{'<|"|>': '<|"|>'}`.
        fallback: A value still open when the text ends closes at the first `end` after
            its opener (a model that left out the value's closer).
    """

    __slots__ = ("_closer", "_end", "_fallback", "_opened", "_outside", "_values", "pos")

    def __init__(
        self, pos: int, end: str, values: dict[str, str], *, fallback: bool = False
    ) -> None:
        self.pos = pos
        self._end = end
        self._values = values
        self._outside = TagSet.of(end, *values)
        self._closer: TagSet | None = None
        self._opened = -1
        self._fallback = fallback

    def advance(self, buf: str, final: bool) -> int:
        while True:
            closer = self._closer
            tags = self._outside if closer is None else closer
            i, tag = tags.find(buf, self.pos)
            if i < 0:
                if final and closer is not None and self._fallback:
                    j = buf.find(self._end, self._opened)
                    return j + len(self._end) if j >= 0 else -1
                self.pos = len(buf) if final else tags.hold_from(buf, self.pos)
                return -1
            self.pos = i + len(tag)
            if closer is not None:
                self._closer = None
            elif tag == self._end:
                return self.pos
            else:
                self._closer = TagSet.of(self._values[tag])
                self._opened = i

    def shift(self, offset: int) -> None:
        self.pos -= offset
        self._opened -= offset


class JsonSectionScanner(Scanner):
    """A section of calls whose arguments are JSON (DeepSeek V3, Kimi K2), closed by `end`.

    After each `args` tag the arguments start at the first `{`, unless one of `stops` (a
    call's end, the next call) comes first, and are followed as JSON to their end: any tag
    inside a JSON string is part of it. JSON that never closes leaves the section open.
    """

    __slots__ = ("_args", "_end", "_outside", "_seek", "_stops", "_walker", "pos")

    def __init__(self, pos: int, end: str, args: str, stops: tuple[str, ...]) -> None:
        self.pos = pos
        self._end = end
        self._args = args
        self._outside = TagSet.of(end, args)
        self._seek: TagSet | None = None
        self._walker: JsonWalker | None = None
        self._stops = TagSet.of("{", *stops)

    def advance(self, buf: str, final: bool) -> int:
        while True:
            walker = self._walker
            if walker is not None:
                if walker.advance(buf, len(buf)) != DONE:
                    return -1
                self.pos = walker.end
                self._walker = None
                continue
            tags = self._outside if self._seek is None else self._seek
            i, tag = tags.find(buf, self.pos)
            if i < 0:
                self.pos = len(buf) if final else tags.hold_from(buf, self.pos)
                return -1
            if self._seek is not None:
                self._seek = None
                if tag == "{":
                    # Whole JSON decodes in C; JSON still arriving (or broken) is walked.
                    decoded = decode_at(buf, i)
                    if decoded is not None:
                        self.pos = decoded[1]
                    else:
                        self._walker = JsonWalker(i)
                else:
                    self.pos = i  # a call's end before any arguments: read it outside
                continue
            self.pos = i + len(tag)
            if tag == self._end:
                return self.pos
            self._seek = self._stops

    def shift(self, offset: int) -> None:
        self.pos -= offset
        if self._walker is not None:
            self._walker.shift(offset)


def json_span(text: str, start: int, stops: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the JSON arguments after `start` lie, as `JsonSectionScanner` reads them: from
    the first `{` (unless a tag in `stops` comes first) to where its brackets balance.

    Returns:
        `(start, end)`, or None when no `{` comes first or the JSON never closes.
    """
    brace = text.find("{", start)
    if brace < 0:
        return None
    for stop in stops:
        i = text.find(stop, start, brace)
        if i >= 0:
            return None
    decoded = decode_at(text, brace)
    if decoded is not None:
        return brace, decoded[1]
    walker = JsonWalker(brace)
    if walker.advance(text, len(text)) != DONE:
        return None
    return brace, walker.end


class RegionStream(FormatStream):
    """Base of the region formats; subclasses fill in the class variables and hooks."""

    _PROSE_TAGS: ClassVar[TagSet]  # region openers, and markup removed from the text
    _REGIONS: ClassVar[frozenset[str]]  # the prose tags that open a region

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._mark = 0  # start of unreleased text, or of the current region
        self._scan = 0  # where the search for tags resumes
        self._tag = ""  # the current region's opening tag
        self._scanner: Scanner | None = None
        self._previewed = 0  # calls of the current region `_preview_region` started

    @abstractmethod
    def _open(self, tag: str, start: int, body: int) -> Scanner:
        """The scanner of a region opened by `tag` at `start`, its body from `body`."""

    @abstractmethod
    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        """The calls of a region (`closed` false: the text ended inside it, give the calls
        it completed), or None when a closed region holds none the format can read."""

    def _preview_region(self, buf: str) -> None:  # most formats send no previews
        """Send events for what the scanner has read of the region so far; count each call
        started in `_previewed`, in order (`_region` must then return those calls first)."""

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        if self._scanner is not None:
            self._scanner.shift(offset)

    def _process(self, buf: str, final: bool) -> int:
        n = len(buf)
        tags = self._PROSE_TAGS
        while True:
            scanner = self._scanner
            if scanner is None:
                i, tag = tags.find(buf, self._scan)
                if i < 0:
                    hold = n if final else max(self._mark, tags.hold_from(buf, self._scan))
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : i])
                if tag in self._REGIONS:
                    self._mark = i
                    self._tag = tag
                    self._scanner = self._open(tag, i, i + len(tag))
                else:  # markup outside any region: removed
                    self._mark = self._scan = i + len(tag)
                continue
            end = scanner.advance(buf, final)
            if self._emit:
                self._preview_region(buf)
            if end < 0 and not final:
                return self._mark
            stop = end if end >= 0 else n
            calls = self._region(buf[self._mark : stop], self._tag, end >= 0)
            if calls is None:
                if end >= 0:
                    self._text(buf[self._mark : stop])
            else:
                for call in calls:
                    if self._previewed:
                        self._previewed -= 1
                    elif self._emit:
                        self._start(call.name)
                        self._args(call.arguments)
                    self._finish(call)
            self._previewed = 0
            self._scanner = None
            self._mark = self._scan = stop


class JsonSectionStream(RegionStream):
    """Base of the formats whose calls sit in one section, each call a begin tag, a head, an
    arguments tag, JSON arguments and an end tag (DeepSeek V3, Kimi K2).

    The skeleton is shared: the section opens at `SECTION_BEGIN` and ends at `SECTION_END`
    outside the JSON (`JsonSectionScanner`); each call runs from `CALL_BEGIN` to `CALL_END`,
    and its arguments are the JSON after `ARGS`. A subclass gives the tags and reads the name
    from the head (`_name`). A call whose JSON never closes is no call, and a section the
    text ends inside keeps the calls whose end tag came.
    """

    SECTION_BEGIN: ClassVar[str]
    SECTION_END: ClassVar[str]
    CALL_BEGIN: ClassVar[str]
    ARGS: ClassVar[str]  # between a call's head and its arguments
    CALL_END: ClassVar[str]
    # A closed section with no readable call: text (DeepSeek) or markup only (Kimi).
    EMPTY_IS_TEXT: ClassVar[bool] = False

    @classmethod
    @abstractmethod
    def _name(cls, section: str, head: int, args: int, start: int) -> str:
        """The call's name, from its head `section[head:args]` (and what lies between the
        arguments tag and the JSON, which starts at `start`); "" when it has none."""

    @classmethod
    def _stops(cls) -> tuple[str, ...]:
        return (cls.CALL_END, cls.CALL_BEGIN, cls.SECTION_END)

    @classmethod
    def calls_from_section(cls, section: str, closed: bool = True) -> list[ParsedCall]:
        """The well-formed calls of a section, in order; in a section the text ended inside
        (`closed` false), only those whose end tag came."""
        calls: list[ParsedCall] = []
        stops = cls._stops()
        pos = section.find(cls.CALL_BEGIN)
        while pos >= 0:
            head = pos + len(cls.CALL_BEGIN)
            args = section.find(cls.ARGS, head)
            if args < 0:
                break
            span = json_span(section, args + len(cls.ARGS), stops)
            if span is None:
                break
            start, end = span
            close = section.find(cls.CALL_END, end)
            if close < 0 and not closed:
                break
            stop = len(section) if close < 0 else close + len(cls.CALL_END)
            name = cls._name(section, head, args, start)
            if name:
                arguments = normalise_arguments(section[start:end])
                calls.append(ParsedCall(name, arguments, section[pos:stop]))
            if close < 0:
                break
            pos = section.find(cls.CALL_BEGIN, stop)
        return calls

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return JsonSectionScanner(body, self.SECTION_END, self.ARGS, self._stops())

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        calls = self.calls_from_section(region, closed)
        return None if self.EMPTY_IS_TEXT and closed and not calls else calls


class ElementSectionStream(RegionStream):
    """Base of the formats whose section holds each call as an element with one element per
    argument, the values bare text typed by an attribute or the tool's schema (DeepSeek
    DSML, Kimi K3).

    The skeleton is shared: calls are read in order from `_CALL` to `_CALL_END`, each
    argument from `_ARGUMENT` to `_ARGUMENT_END`, blanks between them allowed; a call or an
    argument the section ends inside ends the reading (the calls before it stay), and a
    closed section with no call stays text. A subclass gives the tags, the name of a call
    (`_call_name`), an argument's key and value (`_argument`), and two rules where the
    formats differ.
    """

    _CALL: ClassVar[re.Pattern[str]]
    _CALL_END: ClassVar[re.Pattern[str]]
    _ARGUMENT: ClassVar[re.Pattern[str]]
    _ARGUMENT_END: ClassVar[re.Pattern[str]]
    # Text other than blanks before a call's end: True stops reading the section (DSML),
    # False drops that call only (Kimi K3, which also drops a call without a name).
    _STRAY_TEXT_STOPS: ClassVar[bool]

    @classmethod
    @abstractmethod
    def _call_name(cls, call: re.Match[str]) -> str:
        """The tool name an opening `_CALL` tag gives."""

    @classmethod
    def _empty(cls, call: re.Match[str]) -> bool:
        """Whether the opening tag is a whole call without arguments (`<... />`)."""
        return False

    @classmethod
    @abstractmethod
    def _argument(
        cls, argument: re.Match[str], raw: str, kinds: Mapping[str, frozenset[str]]
    ) -> tuple[str, Any]:
        """An argument's key and value, from its opening tag, its text and the types the
        tool's schema gives each parameter."""

    @classmethod
    def calls_from_section(cls, section: str, schemas: Schemas | None) -> list[ParsedCall]:
        """The complete, well-formed calls of a section, in order."""
        calls: list[ParsedCall] = []
        pos = 0
        while True:
            call = cls._CALL.search(section, pos)
            if call is None:
                return calls
            name = cls._call_name(call)
            if cls._empty(call):
                calls.append(ParsedCall(name, "{}", call.group(0)))
                pos = call.end()
                continue
            kinds = parameter_types(schemas, name)
            arguments: dict[str, Any] = {}
            pos = call.end()
            while True:
                argument = cls._ARGUMENT.search(section, pos)
                end = cls._CALL_END.search(section, pos)
                if end is not None and (argument is None or end.start() < argument.start()):
                    stray = bool(section[pos : end.start()].strip(_BLANK))
                    if stray and cls._STRAY_TEXT_STOPS:
                        return calls
                    if not stray and (name or cls._STRAY_TEXT_STOPS):
                        raw = section[call.start() : end.end()]
                        calls.append(ParsedCall(name, dumps(arguments), raw))
                    pos = end.end()
                    break
                if argument is None or section[pos : argument.start()].strip(_BLANK):
                    return calls  # cut off, or not this format
                close = cls._ARGUMENT_END.search(section, argument.end())
                if close is None:
                    return calls
                key, value = cls._argument(argument, section[argument.end() : close.start()], kinds)
                arguments[key] = value
                pos = close.end()

    def _region(self, region: str, tag: str, closed: bool) -> list[ParsedCall] | None:
        calls = self.calls_from_section(region, self._schemas)
        return None if closed and not calls else calls
