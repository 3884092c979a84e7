"""The client-side guard for chat messages that carry prompt embeddings.

A chat message's `content` may be a list of parts; `{"type": "prompt_embeds", "data": ...}`
parts hold base64 `torch.save` tensors (seed 002). Before a request is sent, every such
part is decoded and checked (rank 2, the served model's width, at least one token, finite
values, the size limit), and their tokens together must leave room in `max_model_len`.
Messages without such parts pass without torch being imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from toolcall_sdk._errors import PromptEmbedsError
from toolcall_sdk.embeds._checks import MAX_TENSOR_BYTES, check_fits, check_tensor, check_width
from toolcall_sdk.embeds._codec import decode

__all__ = [
    "PART_TYPE",
    "EmbedsPart",
    "PartShape",
    "check_messages",
    "check_shapes",
    "find_parts",
    "has_prompt_embeds",
    "read_parts",
]

PART_TYPE = "prompt_embeds"
"""The content-part `type` vLLM expands into embedded tokens."""


@dataclass(frozen=True, slots=True)
class PartShape:
    """The `(num_tokens, hidden)` shape of a part that passed the tensor checks."""

    where: str
    shape: tuple[int, int]


@dataclass(frozen=True, slots=True)
class EmbedsPart:
    """One prompt-embeddings content part and where it sits (`messages[1].content[0]`)."""

    where: str
    data: Any


def find_parts(messages: Any) -> list[EmbedsPart]:
    """Every `prompt_embeds` content part in `messages`, in order.

    `messages` is what the clients accept: a string (no parts), or a sequence of message
    dicts or Pydantic message objects. Anything else holds no parts; the client's own
    message checks report it.
    """
    if isinstance(messages, str | bytes) or not isinstance(messages, Iterable):
        return []
    found: list[EmbedsPart] = []
    for index, message in enumerate(messages):
        content = _content(message)
        if isinstance(content, str | bytes) or not isinstance(content, Iterable):
            continue
        for position, part in enumerate(content):
            if _field(part, "type") == PART_TYPE:
                found.append(
                    EmbedsPart(f"messages[{index}].content[{position}]", _field(part, "data"))
                )
    return found


def has_prompt_embeds(messages: Any) -> bool:
    """Whether any message holds a `prompt_embeds` content part."""
    return bool(find_parts(messages))


def check_messages(
    messages: Any,
    hidden_size: int | None,
    max_model_len: int | None,
    *,
    max_tokens: int | None = None,
    max_bytes: int = MAX_TENSOR_BYTES,
) -> int:
    """Check every `prompt_embeds` part of `messages`; return their tokens in total.

    Args:
        messages: The conversation as the client received it.
        hidden_size: The served model's hidden size; None skips the width check.
        max_model_len: The server's context length; None skips the length check.
        max_tokens: The answer's token limit, which must fit beside the prompt.
        max_bytes: The size limit of one tensor.

    Raises:
        PromptEmbedsError: A part is not a valid tensor for this server, or the embedded
            tokens alone leave no room for the answer.
    """
    shapes = read_parts(messages, hidden_size=hidden_size, max_bytes=max_bytes)
    return check_shapes(
        shapes, hidden_size=hidden_size, max_model_len=max_model_len, max_tokens=max_tokens
    )


def read_parts(
    messages: Any, *, hidden_size: int | None = None, max_bytes: int = MAX_TENSOR_BYTES
) -> list[PartShape]:
    """Decode every `prompt_embeds` part and run the checks that need no server limits.

    Raises:
        PromptEmbedsError: A part that is not a valid prompt-embeddings tensor.
    """
    shapes: list[PartShape] = []
    for part in find_parts(messages):
        if not isinstance(part.data, str):
            kind = "nothing" if part.data is None else type(part.data).__name__
            raise PromptEmbedsError(
                f"{part.where}: a prompt_embeds part holds {kind} in 'data'; it needs the "
                "base64 wire string: build the part with toolcall_sdk.embeds.part(tensor)",
                where=part.where,
            )
        tensor = decode(part.data, max_bytes=max_bytes, where=part.where)
        shape = check_tensor(tensor, hidden_size=hidden_size, max_bytes=max_bytes, where=part.where)
        shapes.append(PartShape(part.where, shape))
    return shapes


def check_shapes(
    shapes: Sequence[PartShape],
    *,
    hidden_size: int | None,
    max_model_len: int | None,
    max_tokens: int | None,
) -> int:
    """The width and length checks over parts already read; return their tokens in total.

    Raises:
        PromptEmbedsError: A part of another width, or too many embedded tokens.
    """
    for item in shapes:
        check_width(item.shape, hidden_size, where=item.where)
    total = sum(item.shape[0] for item in shapes)
    if total:
        check_fits(
            total, max_model_len=max_model_len, max_tokens=max_tokens, where="messages", exact=False
        )
    return total


def _content(message: Any) -> Any:
    if isinstance(message, Mapping):
        return message.get("content")
    if isinstance(message, BaseModel):
        return getattr(message, "content", None)
    return None


def _field(part: Any, name: str) -> Any:
    if isinstance(part, Mapping):
        return part.get(name)
    return getattr(part, name, None)
