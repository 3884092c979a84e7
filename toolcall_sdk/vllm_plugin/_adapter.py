"""What the plugin sends, worked out without vLLM: model text in, OpenAI-shaped deltas out.

The plugin file (`hermes_buffered.py`) only copies these values into vLLM's own classes, so
every decision (when text is released, when a call starts, what its arguments are) is made
here by `toolcall_sdk.parsing`, in any of its formats, and can be tested where vLLM is not
installed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolcall_sdk.parsing import (
    ArgumentsDelta,
    ParsedCall,
    ParsedCallFinished,
    ParsedCallStarted,
    StreamEvent,
    StreamParser,
    TextDelta,
)

__all__ = [
    "CallPiece",
    "Extracted",
    "FormatDeltas",
    "HermesDeltas",
    "Piece",
    "WholeCall",
    "extract",
    "new_call_id",
]

Schemas = Mapping[str, Mapping[str, Any]]


def new_call_id() -> str:
    """A tool-call id in the form vLLM gives its own (`chatcmpl-tool-` and 32 hex digits)."""
    return f"chatcmpl-tool-{uuid.uuid4().hex}"


@dataclass(frozen=True, slots=True)
class CallPiece:
    """Part of one tool call in a streamed delta (OpenAI's `delta.tool_calls[i]`).

    Attributes:
        index: The call's position among the calls sent in this answer, from 0.
        id: The call id, on the call's first piece only.
        name: The function name, on the call's first piece only.
        arguments: More argument text, or None.
    """

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str | None = None


@dataclass(frozen=True, slots=True)
class Piece:
    """One streamed delta: text released as content, and parts of tool calls.

    Attributes:
        content: Text that can no longer turn into a tag, or None.
        calls: Parts of tool calls, at most one per call index, in index order.
    """

    content: str | None
    calls: tuple[CallPiece, ...]


@dataclass(frozen=True, slots=True)
class WholeCall:
    """One call of a whole answer (vLLM's `ToolCall`).

    Attributes:
        id: The call id.
        name: The function name.
        arguments: The argument text as the model wrote it (what the streamed pieces join
            to), or compact JSON when the model gave none.
    """

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Extracted:
    """A whole answer read at once (vLLM's `ExtractedToolCallInformation`).

    Attributes:
        calls: The calls; empty when the answer is text only.
        content: The text around the calls, or None when there is none but blanks.
    """

    calls: list[WholeCall]
    content: str | None


def extract(
    text: str,
    new_id: Callable[[], str] = new_call_id,
    *,
    format: str = "hermes",
    schemas: Schemas | None = None,
) -> Extracted:
    """Read every call in a whole answer: the streamed pieces of it, joined.

    Reading the whole answer as one delta gives, by construction, the calls and text a
    client assembles from the streamed answer (the only difference: the end of the text
    is known here, so text held back at the very end is released).

    Args:
        text: The model's answer.
        new_id: Makes each call's id.
        format: The format to read (a format, vLLM parser name or model id).
        schemas: Parameter schemas by tool name (types the values of bare-text formats).

    Returns:
        The calls, and the text around them exactly as written.
    """
    deltas = FormatDeltas(format, new_id, schemas=schemas)
    pieces = [p for p in (deltas.feed(text), deltas.close()) if p is not None]
    content = "".join(p.content for p in pieces if p.content)
    ids: dict[int, str] = {}
    for piece in pieces:
        for call in piece.calls:
            if call.id is not None:
                ids[call.index] = call.id
    calls = [
        WholeCall(ids[i], name, args)
        for i, (name, args) in enumerate(zip(deltas.names, deltas.arguments, strict=True))
    ]
    return Extracted(calls, content if content.strip() else None)


class FormatDeltas:
    """Turns an answer in one format, delta by delta, into content and tool-call deltas.

    Text is held back only while it can still become markup (`<tool_call>`,
    `[TOOL_CALLS]`, `<|tool_call>`, ...), whatever the split of the tags into tokens, so no
    part of a tag is ever sent as content. A call is announced (id and name) as soon as the
    format knows its name (for Hermes, Llama 3 JSON, Mistral, Harmony and Qwen3 XML while
    the model writes the call; for the others when the call's markup closes), and its
    argument text follows. Reasoning a format carries itself (Harmony's `analysis`) is not
    sent: vLLM's reasoning parser owns reasoning.

        deltas = FormatDeltas("qwen3_xml")
        for text in model_deltas:
            piece = deltas.feed(text)   # Piece or None
        deltas.close()                  # the rest, once the answer is known to be complete

    Args:
        format: The format to read (a format, vLLM parser name or model id).
        new_id: Makes each call's id.
        schemas: Parameter schemas by tool name (types the values of bare-text formats).
    """

    __slots__ = ("_calls", "_new_id", "_parser", "_sent", "_wire")

    def __init__(
        self,
        format: str,
        new_id: Callable[[], str] = new_call_id,
        *,
        schemas: Schemas | None = None,
    ) -> None:
        self._parser = StreamParser(format, schemas=schemas)
        self._new_id = new_id
        # The parser counts every call; only named ones go out, so they are renumbered.
        self._wire: dict[int, int] = {}
        self._calls: list[str] = []  # name of each call sent, by wire index
        self._sent: list[str] = []  # argument text sent, by wire index

    @property
    def names(self) -> list[str]:
        """The names of the calls sent so far, by index."""
        return list(self._calls)

    @property
    def arguments(self) -> list[str]:
        """The argument text sent so far for each call, by index."""
        return list(self._sent)

    def feed(self, text: str) -> Piece | None:
        """Read the next delta of the answer.

        Returns:
            What to send now, or None when everything new is still held back.
        """
        return self._translate(self._parser.feed(text))

    def close(self) -> Piece | None:
        """Say the answer has ended: release held-back text and finish an open call."""
        return self._translate(self._parser.close())

    def _translate(self, events: list[StreamEvent]) -> Piece | None:
        if not events:
            return None
        if len(events) == 1 and isinstance(events[0], TextDelta):
            return Piece(events[0].text, ())  # most deltas: text released, nothing else
        text: list[str] = []
        pieces: dict[int, CallPiece] = {}
        for event in events:
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ParsedCallStarted):
                if event.name:
                    self._open(event.index, event.name, pieces)
            elif isinstance(event, ArgumentsDelta):
                self._more(event.index, event.text, pieces)
            elif isinstance(event, ParsedCallFinished):
                self._finish(event.index, event.call, text, pieces)
        if not text and not pieces:
            return None
        return Piece("".join(text) or None, tuple(pieces[i] for i in sorted(pieces)))

    def _open(self, index: int, name: str, pieces: dict[int, CallPiece]) -> None:
        wire = self._wire[index] = len(self._calls)
        self._calls.append(name)
        self._sent.append("")
        pieces[wire] = CallPiece(wire, self._new_id(), name)

    def _more(self, index: int, text: str, pieces: dict[int, CallPiece]) -> None:
        wire = self._wire.get(index)
        if wire is None:
            return
        self._sent[wire] += text
        piece = pieces.get(wire) or CallPiece(wire)
        pieces[wire] = CallPiece(wire, piece.id, piece.name, (piece.arguments or "") + text)

    def _finish(
        self, index: int, call: ParsedCall, text: list[str], pieces: dict[int, CallPiece]
    ) -> None:
        # (Markup the parser cannot read comes as text: the client sees the model's words.)
        wire = self._wire.get(index)
        if wire is None:
            self._open(index, call.name, pieces)
            wire = self._wire[index]
        # The preview carries the arguments as written; a call whose arguments never showed
        # in it (no "arguments" key, a body that is not JSON) gets them now in one piece.
        if not self._sent[wire] and call.arguments:
            self._more(index, call.arguments, pieces)


class HermesDeltas(FormatDeltas):
    """`FormatDeltas` for the Hermes format (`<tool_call>` JSON calls).

    Args:
        new_id: Makes each call's id.
    """

    __slots__ = ()

    def __init__(self, new_id: Callable[[], str] = new_call_id) -> None:
        super().__init__("hermes", new_id)
