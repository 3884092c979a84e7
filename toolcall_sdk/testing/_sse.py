"""Render an answer as a Server-Sent Events stream of `ChatCompletionChunk`s.

The chunk sequence follows what vLLM and OpenAI send:

1. a role chunk, `{"role": "assistant", "content": ""}`;
2. the content, `chunk_size` characters per chunk;
3. per tool call, a first delta with `index`, `id`, `type`, `function.name` and empty
   `arguments`, then the arguments, `chunk_size` characters per delta;
4. an empty delta carrying `finish_reason`;
5. if the request set `stream_options.include_usage`, a chunk with no choices and the
   usage (the earlier chunks then carry `"usage": null`, as OpenAI's do);
6. `data: [DONE]`.
"""

from __future__ import annotations

from openai.types.chat import ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import (
    Choice,
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)

from ._render import CREATED, CompletionPlan
from ._replies import FinishReason

__all__ = ["DONE", "encode_event", "stream_events"]

DONE = b"data: [DONE]\n\n"
"""The sentinel event that ends an OpenAI-compatible stream."""


def encode_event(data: str) -> bytes:
    """Frame one SSE `data:` event.

    Args:
        data: The event data, a single line of JSON.

    Returns:
        The framed event, ending with the blank line that terminates it.
    """
    return f"data: {data}\n\n".encode()


def stream_events(answer: CompletionPlan, *, chunk_size: int, include_usage: bool) -> list[bytes]:
    """The SSE events of a streamed answer, `[DONE]` included.

    Args:
        answer: The answer to stream.
        chunk_size: How many characters of content or arguments go in one chunk.
        include_usage: Whether to end with a usage chunk (`stream_options.include_usage`).

    Returns:
        One framed event per chunk, in order.
    """
    deltas: list[ChoiceDelta] = [ChoiceDelta(role="assistant", content="")]
    deltas += [ChoiceDelta(content=piece) for piece in _split(answer.content or "", chunk_size)]
    for index, call in enumerate(answer.tool_calls):
        head = ChoiceDeltaToolCall(
            index=index,
            id=call.id,
            type="function",
            function=ChoiceDeltaToolCallFunction(name=call.name, arguments=""),
        )
        deltas.append(ChoiceDelta(tool_calls=[head]))
        deltas += [
            ChoiceDelta(
                tool_calls=[
                    ChoiceDeltaToolCall(
                        index=index, function=ChoiceDeltaToolCallFunction(arguments=piece)
                    )
                ]
            )
            for piece in _split(call.arguments, chunk_size)
        ]

    chunks = [_chunk(answer, delta, None, include_usage) for delta in deltas]
    chunks.append(_chunk(answer, ChoiceDelta(), answer.finish_reason, include_usage))
    if include_usage:
        chunks.append(
            ChatCompletionChunk(
                id=answer.completion_id,
                object="chat.completion.chunk",
                created=CREATED,
                model=answer.model,
                choices=[],
                usage=answer.usage,
            )
        )
    events = [encode_event(chunk.model_dump_json(exclude_unset=True)) for chunk in chunks]
    events.append(DONE)
    return events


def _chunk(
    answer: CompletionPlan,
    delta: ChoiceDelta,
    finish_reason: FinishReason | None,
    include_usage: bool,
) -> ChatCompletionChunk:
    # Explicit `None`s are written as `null` (fields left unset are omitted), matching
    # OpenAI: `finish_reason` is null until the last chunk, `usage` null until the usage one.
    choice = Choice(index=0, delta=delta, finish_reason=finish_reason)
    chunk = ChatCompletionChunk(
        id=answer.completion_id,
        object="chat.completion.chunk",
        created=CREATED,
        model=answer.model,
        choices=[choice],
    )
    if include_usage:
        chunk.usage = None
    return chunk


def _split(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]
