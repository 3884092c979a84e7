"""Render an answer as a Server-Sent Events stream of `ChatCompletionChunk`s.

The chunk sequence follows what vLLM and OpenAI send:

1. a role chunk, `{"role": "assistant", "content": ""}`;
2. the content, `chunk_size` characters per chunk;
3. per tool call, a first delta with `index`, `id`, `type`, `function.name` and empty
   `arguments`, then the arguments, `chunk_size` characters per delta;
4. an empty delta carrying `finish_reason`;
   With several choices (a request's `n`), steps 1 to 4 run once per choice, in order,
   each chunk carrying its choice's `index`.
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
    chunks: list[ChatCompletionChunk] = []
    for choice, plan in enumerate((answer, *answer.others)):
        chunks += [
            _chunk(answer, delta, None, include_usage, choice=choice)
            for delta in _deltas(plan, chunk_size)
        ]
        chunks.append(
            _chunk(answer, ChoiceDelta(), plan.finish_reason, include_usage, choice=choice)
        )
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


def _deltas(plan: CompletionPlan, chunk_size: int) -> list[ChoiceDelta]:
    deltas: list[ChoiceDelta] = [ChoiceDelta(role="assistant", content="")]
    deltas += [ChoiceDelta(content=piece) for piece in _split(plan.content or "", chunk_size)]
    for index, call in enumerate(plan.tool_calls):
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
    return deltas


def _chunk(
    answer: CompletionPlan,
    delta: ChoiceDelta,
    finish_reason: FinishReason | None,
    include_usage: bool,
    *,
    choice: int = 0,
) -> ChatCompletionChunk:
    # Explicit `None`s are written as `null` (fields left unset are omitted), matching
    # OpenAI: `finish_reason` is null until the last chunk, `usage` null until the usage one.
    chunk = ChatCompletionChunk(
        id=answer.completion_id,
        object="chat.completion.chunk",
        created=CREATED,
        model=answer.model,
        choices=[Choice(index=choice, delta=delta, finish_reason=finish_reason)],
    )
    if include_usage:
        chunk.usage = None
    return chunk


def _split(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]
