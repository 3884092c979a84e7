"""Reassembling a streamed chat completion into the message a non-streamed one would give."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcall_sdk._results import Usage

__all__ = ["StreamAccumulator"]


@dataclass(slots=True)
class _PendingCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StreamAccumulator:
    """Feed `ChatCompletionChunk`s in order; read the whole message at the end.

    Tool-call fragments are joined by their `index`, the way OpenAI and vLLM stream them:
    the first fragment of a call carries its id and name, later ones only argument text.
    """

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _PendingCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    chunks: int = 0

    def add(self, chunk: Any) -> None:
        """Take one chunk (an `openai.types.chat.ChatCompletionChunk`)."""
        self.chunks += 1
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
        for choice in getattr(chunk, "choices", None) or []:
            if choice.index != 0:
                continue
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                self.content.append(delta.content)
            extra = getattr(delta, "model_extra", None) or {}
            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
            if isinstance(reasoning, str):
                self.reasoning.append(reasoning)
            for fragment in delta.tool_calls or []:
                pending = self.calls.setdefault(fragment.index, _PendingCall())
                if fragment.id:
                    pending.id = fragment.id
                function = fragment.function
                if function is not None:
                    if function.name:
                        pending.name += function.name
                    if function.arguments:
                        pending.arguments.append(function.arguments)

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
