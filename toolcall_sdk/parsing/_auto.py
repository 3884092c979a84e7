"""Reading a text whose format is unknown: the first sign of a format decides.

The signs, in the order they can appear: a text that opens (after blank space) with a Llama 3
JSON call prefix (`{"name": "...", "parameters":`), a pythonic one (`[name(`) or a Harmony
header (`to=functions.f`); otherwise the first tag of any format (`<tool_call>`,
`<function=`, `[TOOL_CALLS]`, `<|python_tag|>`, `<|python_start|>`, DeepSeek's
`<｜tool▁calls▁begin｜>` and DSML sections, `<|tool_call>`, `<|tool_calls_section_begin|>`,
Kimi K3's channel tags, `<|channel|>`, `<|start|>`, `<|message|>`). After `<tool_call>` the
next non-blank character tells Hermes JSON (`{`), Qwen3 XML (`<`) and GLM (a name) apart.
Text before the sign is plain text; from the sign on, that format's own parser reads the rest.
"""

from __future__ import annotations

import re
from typing import Final

from toolcall_sdk.parsing import glm45, hermes, qwen3_xml
from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._markup import PrefixMatcher, TagSet, skip
from toolcall_sdk.parsing._registry import LEADS, MARKERS, STREAMS
from toolcall_sdk.parsing._types import ParseResult, StreamEvent
from toolcall_sdk.parsing._values import Schemas

__all__ = ["AutoStream"]

_BLANK: Final = re.compile(r"[ \t\r\n]*")
# `<tool_call>` is Hermes' marker and the wrapper of Qwen3 XML and GLM too: what follows
# it decides (`_AFTER_WRAPPER`).
_TAG_FORMATS: Final = MARKERS
_TAGS: Final = TagSet(*_TAG_FORMATS)
_LEADS: Final = LEADS
_START, _LEAD, _PROSE, _AFTER_WRAPPER = range(4)


class AutoStream(FormatStream):
    """Detects the format from the first sign of one, then hands over to its parser."""

    format = "auto"

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._state = _START
        self._mark = 0
        self._scan = 0
        self._lead_format = ""
        self._matcher: PrefixMatcher | None = None
        self._delegate: FormatStream | None = None
        self._handoff = ""

    @property
    def detected(self) -> str | None:
        """The format detected so far, or None."""
        return self._delegate.format if self._delegate is not None else None

    def feed(self, delta: str) -> list[StreamEvent]:
        if self._delegate is not None:
            return self._delegate.feed(delta)
        events = super().feed(delta)
        if self._delegate is not None:
            events += self._delegate.feed(self._take_handoff())
        return events

    def close(self) -> list[StreamEvent]:
        if self._delegate is not None:
            self._closed = True
            return self._delegate.close()
        events = super().close()
        if self._delegate is not None:
            events += self._delegate.feed(self._take_handoff())
            events += self._delegate.close()
        return events

    def run_whole(self, text: str) -> None:
        super().run_whole(text)
        if self._delegate is not None:
            self._delegate.run_whole(self._take_handoff())

    def result(self) -> ParseResult:
        own = "".join(self._pieces)
        if self._delegate is None:
            return ParseResult([], own, None)
        inner = self._delegate.result()
        return ParseResult(inner.calls, own + inner.text, inner.format, inner.reasoning)

    def _take_handoff(self) -> str:
        handoff = self._handoff
        self._handoff = ""
        return handoff

    def _hand_over(self, fmt: str, buf: str, at: int) -> int:
        self._text(buf[self._mark : at])
        self._delegate = STREAMS[fmt](events=self._emit, schemas=self._schemas)
        self._handoff = buf[at:]
        return len(buf)

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        if self._matcher is not None:
            self._matcher.pos -= offset

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            if state == _START:
                i = skip(_BLANK, buf, self._scan)
                self._scan = i
                if i == n and not final:
                    return self._mark
                lead = _LEADS.get(buf[i]) if i < n else None
                if lead is None:
                    self._state = _PROSE
                    continue
                self._lead_format = lead[0]
                self._matcher = PrefixMatcher(lead[1], i)
                self._state = _LEAD
            elif state == _LEAD:
                assert self._matcher is not None
                decided = self._matcher.advance(buf, n)
                if decided is None and not final:
                    return self._mark
                if decided:
                    return self._hand_over(self._lead_format, buf, self._mark)
                self._state = _PROSE  # read the opening again, for tags this time
                self._scan = self._mark
                self._matcher = None
            elif state == _PROSE:
                i, tag = _TAGS.find(buf, self._scan)
                if i < 0:
                    hold = n if final else _TAGS.hold_from(buf, self._scan)
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                if tag != hermes.START:
                    return self._hand_over(_TAG_FORMATS[tag], buf, i)
                self._text(buf[self._mark : i])
                self._mark = i
                self._scan = i + len(tag)
                self._state = _AFTER_WRAPPER
            else:  # _AFTER_WRAPPER: `<tool_call>` seen; what follows tells the format
                i = skip(_BLANK, buf, self._scan)
                self._scan = i
                if i == n and not final:
                    return self._mark
                if i == n or buf[i] == "{":
                    fmt = hermes.FORMAT
                elif buf[i] == "<":
                    fmt = qwen3_xml.FORMAT
                else:  # a name: `<tool_call>get_weather<arg_key>...`
                    fmt = glm45.FORMAT
                return self._hand_over(fmt, buf, self._mark)
