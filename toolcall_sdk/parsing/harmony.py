"""Harmony format (gpt-oss): the answer is a sequence of messages on channels.

    <|channel|>analysis<|message|>Need the weather.<|end|>
    <|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json
    <|message|>{"city": "Paris"}<|call|>
    <|start|>assistant<|channel|>final<|message|>Done.

(shown on several lines; the model writes it all on one). The prompt ends with
`<|start|>assistant`, so the text starts inside the first message's header. A header names
the channel and, for a call, the recipient, before or after the channel
(`to=functions.get_weather`); a content type (`<|constrain|>json`, or ` json`) may follow.

What each message is:

- a recipient `functions.NAME`, on any channel: a call; its body is the arguments, followed
  as JSON (Harmony tokens inside a JSON string are text), then `<|call|>` or `<|end|>`;
- `analysis` without a recipient: reasoning (`ParseResult.reasoning`, `ReasoningDelta`),
  up to its `<|end|>` (other tokens inside are text);
- `final`, or `commentary` without a recipient (a preamble): content, up to `<|end|>` or
  `<|return|>`;
- any other recipient (a built-in tool such as `python`) or channel: left out.

A call whose JSON the text ends inside is no call; a header the text ends inside, or that a
token cuts short, is dropped. A text that does not begin like a header (an answer the server
already took out of its messages) is content until a message starts (`<|start|>`,
`<|channel|>`).
"""

from __future__ import annotations

import re
from typing import Final

from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._json import DONE, JsonWalker, normalise_arguments
from toolcall_sdk.parsing._markup import TagSet, lit, skip
from toolcall_sdk.parsing._types import ParsedCall, ParseResult
from toolcall_sdk.parsing._values import Schemas

__all__ = ["CHANNEL", "FORMAT", "START", "HarmonyStream", "parse"]

FORMAT: Final = "harmony"
START: Final = "<|start|>"
CHANNEL: Final = "<|channel|>"
MESSAGE: Final = "<|message|>"
END: Final = "<|end|>"
CALL: Final = "<|call|>"
RETURN: Final = "<|return|>"
_FUNCTIONS: Final = "functions."
_TOKENS: Final = ("<|", START, CHANNEL, MESSAGE, "<|constrain|>", " to=")
_HEADER_ENDS: Final = TagSet(MESSAGE, START, END, CALL, RETURN)
_TEXT_ENDS: Final = TagSet(END, RETURN)
_REASONING_ENDS: Final = TagSet(END)
_SKIPPED_ENDS: Final = TagSet(END, RETURN, CALL)  # a built-in tool's call ends at `<|call|>`
_CALL_ENDS: Final = (CALL, END)
_RAW_CALL_ENDS: Final = TagSet(*_CALL_ENDS)
_LONGEST_END: Final = max(len(t) for t in _CALL_ENDS)
_RECIPIENT: Final = re.compile(r"to=([^\s<]+)")
_CHANNEL_NAME: Final = re.compile(r"<\|channel\|>([^\s<]*)")
_BLANK: Final = re.compile(r"[ \t\r\n]*")
# What a message's body is.
(
    _BEGIN,
    _PROSE,
    _HEADER,
    _CONTENT,
    _REASONING,
    _SKIP,
    _CALL_START,
    _CALL_JSON,
    _CALL_RAW,
    _AFTER_CALL,
) = range(10)
# How the rest of a first header can begin; a text that begins otherwise is plain content
# (an answer the server already took out of its messages) until a message starts.
_HEADER_LEADS: Final = ("to=", "<|", "assistant")
_MESSAGE_STARTS: Final = TagSet(START, CHANNEL)


def parse(text: str) -> ParseResult:
    """Read a Harmony answer.

    Args:
        text: Model output, after the prompt's `<|start|>assistant`.

    Returns:
        The calls, the content (final and preamble messages), and the reasoning.
    """
    return HarmonyStream.parse_text(text)


class HarmonyStream(FormatStream):
    """Incremental Harmony parser (see `FormatStream`)."""

    format = FORMAT
    # A Harmony answer may open with the rest of its first header: ` to=functions.f<|channel|>`.
    parsers = ("openai", "harmony")
    markers = (START, CHANNEL, MESSAGE)
    leads = (("t", (lit("to="),)),)

    def __init__(self, *, events: bool = True, schemas: Schemas | None = None) -> None:
        super().__init__(events=events, schemas=schemas)
        self._state = _BEGIN
        self._mark = 0  # start of the current header, or of the body text not yet sent
        self._scan = 0  # where the search for the next tag resumes
        self._name = ""
        self._walker: JsonWalker | None = None
        self._tokens = False  # a Harmony token was seen: unfinished headers are markup

    def _shift(self, offset: int) -> None:
        self._mark -= offset
        self._scan -= offset
        self._sent -= offset
        if self._walker is not None:
            self._walker.shift(offset)

    def _process(self, buf: str, final: bool) -> int:  # noqa: C901 (a lexer step)
        n = len(buf)
        while True:
            state = self._state
            if state == _BEGIN:
                first = skip(_BLANK, buf, self._scan)
                rest = buf[first : first + 9]
                if any(rest.startswith(lead) for lead in _HEADER_LEADS):
                    self._state = _HEADER
                elif not final and any(lead.startswith(rest) for lead in _HEADER_LEADS):
                    return self._mark  # too short to tell yet
                else:
                    self._state = _PROSE
            elif state == _PROSE:
                i, _ = _MESSAGE_STARTS.find(buf, self._scan)
                if i < 0:
                    hold = n if final else _MESSAGE_STARTS.hold_from(buf, self._scan)
                    self._text(buf[self._mark : hold])
                    self._mark = self._scan = hold
                    return hold
                self._text(buf[self._mark : i])
                self._mark = self._scan = i
                self._state = _HEADER
            elif state == _HEADER:
                i, tag = _HEADER_ENDS.find(buf, self._scan)
                if i < 0:
                    if not final:
                        self._scan = max(self._mark, _HEADER_ENDS.hold_from(buf, self._scan))
                        return self._mark
                    header = buf[self._mark :]
                    if not self._tokens and not any(t in header for t in _TOKENS):
                        self._text(header)  # no Harmony at all: the text is the answer
                    self._mark = self._scan = n
                    return n
                self._tokens = True
                header = buf[self._mark : i]
                self._mark = self._scan = i + len(tag)
                if tag == MESSAGE:
                    self._state = self._body_of(header)
                # Any other token cuts the header short: it is dropped.
            elif state in (_CONTENT, _REASONING, _SKIP):
                ends = (
                    _REASONING_ENDS
                    if state == _REASONING
                    else _SKIPPED_ENDS
                    if state == _SKIP
                    else _TEXT_ENDS
                )
                i, tag = ends.find(buf, self._scan)
                stop = i if i >= 0 else (n if final else ends.hold_from(buf, self._scan))
                piece = buf[self._mark : stop]
                if state == _CONTENT:
                    self._text(piece)
                elif state == _REASONING:
                    self._reason(piece)
                if i < 0:
                    self._mark = self._scan = stop
                    return stop
                self._mark = self._scan = i + len(tag)
                self._state = _HEADER
            elif state == _CALL_START:
                first = skip(_BLANK, buf, self._scan)
                if first == n:
                    if final:
                        return self._dropped(n)
                    return self._mark
                if buf[first] == "{":
                    self._walker = JsonWalker(first)
                    self._mark = self._sent = first
                    self._state = _CALL_JSON
                    if self._emit:
                        self._start(self._name)
                else:
                    self._state = _CALL_RAW
                    self._scan = first
            elif state == _CALL_JSON:
                walker = self._walker
                assert walker is not None
                done = walker.advance(buf, n) == DONE
                upto = min(walker.pos, n)  # an escape may have read one past the text
                if self._emit and upto > self._sent:
                    self._args(buf[self._sent : upto])
                    self._sent = upto
                if not done:
                    if final:
                        return self._dropped(n)
                    return self._mark
                arguments = normalise_arguments(buf[self._mark : walker.end])
                self._finish(ParsedCall(self._name, arguments, buf[self._mark : walker.end]))
                self._walker = None
                self._mark = self._scan = walker.end
                self._state = _AFTER_CALL
            elif state == _CALL_RAW:  # a call whose body is not JSON: up to its end token
                i, tag = _RAW_CALL_ENDS.find(buf, self._scan)
                if i < 0:
                    if final:
                        return self._dropped(n)
                    self._scan = _RAW_CALL_ENDS.hold_from(buf, self._scan)
                    return self._mark
                body = buf[self._mark : i].strip()
                self._finish(ParsedCall(self._name, normalise_arguments(body), body))
                self._mark = self._scan = i + len(tag)
                self._state = _HEADER
            else:  # _AFTER_CALL: the call's end token, if it came
                first = skip(_BLANK, buf, self._scan)
                rest = buf[first : first + _LONGEST_END]
                if not final and any(t.startswith(rest) and t != rest for t in _CALL_ENDS):
                    return self._mark
                for tag in _CALL_ENDS:
                    if rest.startswith(tag):
                        first += len(tag)
                        break
                else:
                    first = self._scan
                self._mark = self._scan = first
                self._state = _HEADER

    def _body_of(self, header: str) -> int:
        """What the body after this header is."""
        recipient = _RECIPIENT.search(header)
        if recipient is not None:
            target = recipient.group(1)
            if target.startswith(_FUNCTIONS) and len(target) > len(_FUNCTIONS):
                self._name = target[len(_FUNCTIONS) :]
                return _CALL_START
            return _SKIP
        channels = _CHANNEL_NAME.findall(header)
        channel = channels[-1] if channels else ""
        if channel == "analysis":
            return _REASONING
        if channel in ("final", "commentary"):
            return _CONTENT
        return _SKIP

    def _dropped(self, n: int) -> int:
        """The text ended inside a call: no call."""
        self._walker = None
        self._mark = self._scan = n
        self._state = _HEADER
        return n
