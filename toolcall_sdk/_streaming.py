"""Reassembling a streamed chat completion, and turning its chunks into `stream()` events.

`StreamAccumulator` rebuilds the message a non-streamed request would give. `AnswerEvents`
does that too and, chunk by chunk, says what a UI may show: text, calls starting, argument
text. Both are free of I/O, shared by the sync and async clients, and read chunks as the
JSON objects the server sent (dicts), the way `_body` decodes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolcall_sdk._events import ContentDelta, ToolArgumentsDelta, ToolCallEvent, ToolCallStarted
from toolcall_sdk._recovery import recovered_call_id
from toolcall_sdk.parsing import (
    ArgumentsDelta,
    ParsedCallStarted,
    StreamEvent,
    StreamParser,
    TextDelta,
)

__all__ = ["AnswerEvents", "StreamAccumulator"]


@dataclass(slots=True)
class _CallSoFar:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StreamAccumulator:
    """Feed `ChatCompletionChunk`s in order; read the whole message at the end.

    Tool-call fragments are joined by their `index`, the way OpenAI and vLLM stream them:
    the first fragment of a call carries its id and name, later ones only argument text.
    `done` records whether the stream said it was complete (`[DONE]` or a finish reason).
    Choices after the first (a request's `n`) are gathered apart, in `others` by index.
    """

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _CallSoFar] = field(default_factory=dict)
    finish_reason: str | None = None
    # The last `usage` object a chunk carried, as sent: `_usage` decides what it counts for.
    reported_usage: dict[str, Any] | None = None
    chunks: int = 0
    others: dict[int, StreamAccumulator] = field(default_factory=dict)

    def add(self, chunk: dict[str, Any]) -> None:
        """Take one chunk (a `chat.completion.chunk` object as the server sent it)."""
        self.chunks += 1
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.reported_usage = usage
        for index, choice in _later_choices(chunk):
            self.others.setdefault(index, StreamAccumulator()).add({"choices": [choice]})
        for choice in _first_choices(chunk):
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            content = delta.get("content")
            if content and isinstance(content, str):
                self.content.append(content)
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str):
                self.reasoning.append(reasoning)
            for fragment in _fragments(delta):
                self._add_fragment(fragment)

    def _add_fragment(self, fragment: dict[str, Any]) -> None:
        pending = self.calls.setdefault(_index(fragment), _CallSoFar())
        if fragment.get("id"):
            pending.id = str(fragment["id"])
        function = fragment.get("function")
        if isinstance(function, dict):
            if function.get("name"):
                pending.name += str(function["name"])
            if function.get("arguments"):
                pending.arguments.append(str(function["arguments"]))

    def message(self) -> dict[str, Any]:
        """The assistant message, shaped like a non-streamed `message.model_dump()`."""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self.content) if self.content else None,
        }
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": pending.id or f"call_{index}",
                    "type": "function",
                    "function": {"name": pending.name, "arguments": "".join(pending.arguments)},
                }
                for index, pending in sorted(self.calls.items())
            ]
        return message


class AnswerEvents:
    """The events of one streamed answer, computed as its chunks arrive.

    Calls the server parsed (`delta.tool_calls`) are announced by their index. When
    `content_format` is set, the content is read with the split-tag-safe `StreamParser`: a
    call the server's parser left in the text is announced as a call (with the id recovery
    will give it), and markup, even half a tag, is never released as text.

    Args:
        attempt: The stage-2 attempt number (0 for a plain answer).
        content_format: The format to read calls in the content with (a format, model id
            or `"auto"`), or None to pass the content through as text.
        schemas: The offered tools' parameter schemas by name (the request's `tools`):
            formats that read calls to offered tools only need them.
    """

    __slots__ = ("_announced", "_attempt", "_parser", "accumulator")

    def __init__(
        self,
        *,
        attempt: int,
        content_format: str | None,
        schemas: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.accumulator = StreamAccumulator()
        self._attempt = attempt
        self._parser = (
            StreamParser(content_format, schemas=schemas) if content_format is not None else None
        )
        self._announced: set[int] = set()

    def add(self, chunk: dict[str, Any]) -> list[ToolCallEvent]:
        """Take one chunk (a dict as sent); return the events it completes, in order."""
        self.accumulator.add(chunk)
        events: list[ToolCallEvent] = []
        for choice in _first_choices(chunk):
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            content = delta.get("content")
            if content and isinstance(content, str):
                events.extend(self._content(content))
            for fragment in _fragments(delta):
                events.extend(self._fragment(fragment))
        return events

    def close(self) -> list[ToolCallEvent]:
        """Say the stream ended: release held-back text; announce calls never named."""
        events: list[ToolCallEvent] = []
        if self._parser is not None:
            events.extend(self._from_parser(self._parser.close()))
        for index, pending in sorted(self.accumulator.calls.items()):
            if index not in self._announced:  # its name never came
                events.append(self._started(index, pending.id, pending.name))
                events.extend(self._arguments(index, "".join(pending.arguments)))
        return events

    def _content(self, text: str) -> list[ToolCallEvent]:
        if self._parser is None:
            return [ContentDelta(text, self._attempt)]
        return self._from_parser(self._parser.feed(text))

    def _from_parser(self, parsed: list[StreamEvent]) -> list[ToolCallEvent]:
        events: list[ToolCallEvent] = []
        for item in parsed:
            if isinstance(item, TextDelta):
                events.append(ContentDelta(item.text, self._attempt))
            elif isinstance(item, ParsedCallStarted):
                call_id = recovered_call_id(self._attempt, item.index)
                events.append(ToolCallStarted(item.index, call_id, item.name, self._attempt))
            elif isinstance(item, ArgumentsDelta):
                events.append(ToolArgumentsDelta(item.index, item.text, self._attempt))
            # ParsedCallFinished adds nothing a UI needs: validation says whether the call stands.
        return events

    def _fragment(self, fragment: dict[str, Any]) -> list[ToolCallEvent]:
        # The accumulator has already taken this chunk: it holds the call's id, name and
        # the argument text so far, whichever fragments they came in.
        index = _index(fragment)
        if index in self._announced:
            function = fragment.get("function")
            text = function.get("arguments") if isinstance(function, dict) else None
            return self._arguments(index, str(text) if text else None)
        pending = self.accumulator.calls[index]
        if not pending.name:  # announce a call by its name; its arguments wait till then
            return []
        started = self._started(index, pending.id, pending.name)
        return [started, *self._arguments(index, "".join(pending.arguments))]

    def _started(self, index: int, call_id: str | None, name: str) -> ToolCallStarted:
        self._announced.add(index)
        # The same fallback id the accumulated message gets.
        return ToolCallStarted(index, call_id or f"call_{index}", name, self._attempt)

    def _arguments(self, index: int, text: str | None) -> list[ToolCallEvent]:
        return [ToolArgumentsDelta(index, text, self._attempt)] if text else []


def _later_choices(chunk: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The chunk's choices after the first, each with its index and as choice 0."""
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        return []
    return [
        (c["index"], {**c, "index": 0})
        for c in choices
        if isinstance(c, dict) and isinstance(c.get("index"), int) and c["index"] > 0
    ]


def _first_choices(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    # Choice 0 alone: the others (a request's `n`) are gathered by `_later_choices`.
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        return []
    return [c for c in choices if isinstance(c, dict) and (c.get("index") or 0) == 0]


def _fragments(delta: dict[str, Any]) -> list[dict[str, Any]]:
    # Only call objects in a list are read; anything else in their place carries no call.
    fragments = delta.get("tool_calls")
    if not isinstance(fragments, list):
        return []
    return [fragment for fragment in fragments if isinstance(fragment, dict)]


def _index(fragment: dict[str, Any]) -> int:
    index = fragment.get("index")
    return index if isinstance(index, int) else 0
