"""Reply builders: what a `ScriptedModel` does with one chat-completions request.

Every builder returns a `Reply`. Successful replies (`text`, `tool_call`, `parallel`,
`tool_calls`) become real `openai` `ChatCompletion` / `ChatCompletionChunk` objects on the
wire, so the client under test runs its real parsing; the others (`http_error`,
`malformed`, `disconnect`, `cut`, `delay`, `trickle`, `endless_stream`) break the exchange in
one specific way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Literal, TypeAlias

from openai.types import CompletionUsage

__all__ = [
    "FinishReason",
    "Reply",
    "choices",
    "cut",
    "delay",
    "disconnect",
    "http_error",
    "malformed",
    "parallel",
    "text",
    "tool_call",
    "tool_calls",
]

FinishReason: TypeAlias = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]
"""The `finish_reason` values `openai` 3.x accepts on a chat completion choice."""

Usage: TypeAlias = tuple[int, int] | CompletionUsage
"""`(prompt_tokens, completion_tokens)`, or a full `openai.types.CompletionUsage`."""


class Reply:
    """One scripted answer. Build it with the module's functions, not by subclassing.

    A script is a list of replies, or a callable returning one per request.
    """

    __slots__ = ()


@dataclass(frozen=True)
class _ScriptedCall:
    name: str
    arguments: str
    id: str | None


@dataclass(frozen=True)
class _Message(Reply):
    """An assistant message: text, tool calls, or both."""

    content: str | None
    tool_calls: tuple[_ScriptedCall, ...]
    finish_reason: FinishReason
    usage: CompletionUsage | None


@dataclass(frozen=True)
class _Choices(Reply):
    """Several assistant messages in one answer, one per choice (a request's `n`)."""

    messages: tuple[_Message, ...]


@dataclass(frozen=True)
class _HttpError(Reply):
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Malformed(Reply):
    raw: bytes
    status: int


@dataclass(frozen=True)
class _Disconnect(Reply):
    pass


@dataclass(frozen=True)
class _Delay(Reply):
    seconds: float
    reply: Reply


@dataclass(frozen=True)
class _Trickle(Reply):
    reply: Reply
    interval: float
    piece: int


@dataclass(frozen=True)
class _Endless(Reply):
    interval: float


@dataclass(frozen=True)
class _Cut(Reply):
    reply: Reply
    after: int


def text(
    content: str, *, finish_reason: FinishReason = "stop", usage: Usage | None = None
) -> Reply:
    """A plain assistant text answer.

    Args:
        content: The assistant message content.
        finish_reason: The choice's `finish_reason`; `"length"` simulates a truncated answer.
        usage: Token counts to report; by default a rough four-characters-per-token estimate.

    Returns:
        The reply.
    """
    return _Message(content, (), finish_reason, _usage(usage))


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str,
    *,
    id: str | None = None,
    finish_reason: FinishReason = "tool_calls",
    usage: Usage | None = None,
) -> Reply:
    """An assistant message with one function tool call.

    Args:
        name: The function name.
        arguments: A mapping, sent JSON-encoded, or a string sent exactly as given, so a
            test can send malformed JSON (`'{"city": "Par'`).
        id: The tool call id; by default `call_1`, `call_2`, ... in the order the model
            serves tool calls.
        finish_reason: The choice's `finish_reason`. vLLM answers a named `tool_choice`
            with `"stop"`, which a test can reproduce here.
        usage: Token counts to report; by default a rough estimate.

    Returns:
        The reply; combine several with `parallel`.
    """
    raw = (
        arguments if isinstance(arguments, str) else json.dumps(dict(arguments), ensure_ascii=False)
    )
    return _Message(None, (_ScriptedCall(name, raw, id),), finish_reason, _usage(usage))


def parallel(
    *replies: Reply, finish_reason: FinishReason | None = None, usage: Usage | None = None
) -> Reply:
    """One assistant message holding every tool call (and text) of `replies`, in order.

    Args:
        *replies: Replies built by `tool_call` or `text`; their texts are concatenated.
        finish_reason: The choice's `finish_reason`; by default `"tool_calls"` if there is
            at least one tool call, else `"stop"`.
        usage: Token counts to report; by default a rough estimate.

    Returns:
        The combined reply.

    Raises:
        ValueError: If `replies` is empty.
        TypeError: If a reply is not an assistant message (for example an `http_error`).
    """
    messages = _assistant_messages(
        replies,
        empty="parallel() needs at least one tool_call() or text() reply",
        other="parallel() combines tool_call() and text() replies, not {!r}",
    )
    calls = tuple(call for message in messages for call in message.tool_calls)
    parts = [message.content for message in messages if message.content is not None]
    content = "".join(parts) if parts else None
    reason: FinishReason = finish_reason or ("tool_calls" if calls else "stop")
    return _Message(content, calls, reason, _usage(usage))


def tool_calls(
    replies: Iterable[Reply],
    *,
    finish_reason: FinishReason | None = None,
    usage: Usage | None = None,
) -> Reply:
    """`parallel` for a list: `tool_calls([tool_call(...), tool_call(...)])`.

    Args:
        replies: Replies built by `tool_call` or `text`.
        finish_reason: As for `parallel`.
        usage: As for `parallel`.

    Returns:
        The combined reply.
    """
    return parallel(*replies, finish_reason=finish_reason, usage=usage)


def choices(*replies: Reply) -> Reply:
    """One answer with a choice per reply, in order, as a server answers a request's `n`.

    Args:
        *replies: Replies built by `text`, `tool_call` or `parallel`; the first is choice 0.
            Each choice keeps its own finish reason; the answer's usage is the first
            choice's prompt tokens and every choice's completion tokens.

    Returns:
        The reply.

    Raises:
        ValueError: If `replies` is empty.
        TypeError: If a reply is not an assistant message.
    """
    messages = _assistant_messages(
        replies,
        empty="choices() needs at least one tool_call(), parallel() or text() reply",
        other="choices() takes assistant message replies, not {!r}",
    )
    return _Choices(tuple(messages))


def _assistant_messages(replies: tuple[Reply, ...], *, empty: str, other: str) -> list[_Message]:
    """The replies as assistant messages; `empty` (ValueError) or `other` (TypeError,
    formatted with the reply) otherwise."""
    if not replies:
        raise ValueError(empty)
    for reply in replies:
        if not isinstance(reply, _Message):
            raise TypeError(other.format(reply))
    return [reply for reply in replies if isinstance(reply, _Message)]


def http_error(
    status: int,
    body: Mapping[str, Any] | str | bytes | None = None,
    *,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    """An HTTP error answer, such as a 500, a 429 with `Retry-After`, or a vLLM 400.

    Args:
        status: The status code, 400 to 599.
        body: A mapping (sent as JSON), or a str or bytes sent as is with a `text/plain`
            content type. By default a vLLM-style error,
            `{"object": "error", "message": "Bad Request", "type": "BadRequestError", "code": 400}`.
        headers: Extra response headers, e.g. `{"Retry-After": "2"}`; a `Content-Type` here
            replaces the default one.

    Returns:
        The reply.

    Raises:
        ValueError: If `status` is not an error status.
    """
    if not 400 <= status <= 599:
        raise ValueError(f"http_error() needs a 4xx or 5xx status, got {status}")
    content_type = "application/json"
    if body is None:
        payload = json.dumps(vllm_error_body(status)).encode()
    elif isinstance(body, Mapping):
        payload = json.dumps(dict(body), ensure_ascii=False).encode()
    else:
        payload = body.encode() if isinstance(body, str) else bytes(body)
        content_type = "text/plain; charset=utf-8"
    extra = dict(headers or {})
    if not any(key.lower() == "content-type" for key in extra):
        extra["content-type"] = content_type
    return _HttpError(status, payload, tuple(extra.items()))


def malformed(raw: bytes | str, status: int = 200) -> Reply:
    """A body that is not a valid chat completion, sent exactly as given.

    The content type is `application/json`, or `text/event-stream` when the request asked
    for a stream, so `malformed("data: {oops\\n\\n")` tests a broken stream.

    Args:
        raw: The body.
        status: The status code.

    Returns:
        The reply.
    """
    return _Malformed(raw.encode() if isinstance(raw, str) else bytes(raw), status)


def disconnect() -> Reply:
    """The connection drops before any response.

    In-process, the transport raises `httpx2.ConnectError`; the local server closes the
    socket without writing a byte. `openai` reports either as `APIConnectionError`.

    Returns:
        The reply.
    """
    return _Disconnect()


def delay(seconds: float, reply: Reply) -> Reply:
    """Answer with `reply`, but only after `seconds` (for client timeout tests).

    Only the local server (`ScriptedModel.serve`) waits. The in-process transport answers
    at once, so a fast test never sleeps by accident.

    Args:
        seconds: How long the server waits before answering, at least 0.
        reply: The answer sent after the wait.

    Returns:
        The reply.

    Raises:
        ValueError: If `seconds` is negative or not finite.
    """
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"delay() needs a finite number of seconds >= 0, got {seconds}")
    return _Delay(seconds, reply)


def trickle(reply: Reply, *, interval: float = 0.01, piece: int = 1) -> Reply:
    """Send `reply`'s body `piece` bytes at a time, `interval` seconds apart.

    A server that never goes silent long enough for a read timeout, yet never finishes in
    time: the client's overall deadline must stop it. Only the local server waits between
    pieces; in-process the pieces come at once.

    Args:
        reply: The answer to send slowly (a message, or `malformed(...)`).
        interval: Seconds between pieces.
        piece: Bytes per piece, at least 1.

    Returns:
        The reply.
    """
    if piece < 1 or not (math.isfinite(interval) and interval >= 0):
        raise ValueError("trickle() needs piece >= 1 and a finite interval >= 0")
    return _Trickle(reply, interval, piece)


def cut(reply: Reply, *, after: int) -> Reply:
    """Send the first `after` bytes of `reply`'s body, then drop the connection.

    A connection lost mid-answer: the body stops short of its `Content-Length`, or, for a
    streamed request, the event stream stops mid-event (no finish reason, no `[DONE]`, no end
    of the chunked body). In-process, reading the body raises `httpx2.ReadError` after those
    bytes. `openai` reports either as `APIConnectionError`.

    Args:
        reply: The answer cut short (a message, `malformed(...)`, `endless_stream()`, ...).
        after: Bytes of the body sent before the drop, at least 0.

    Returns:
        The reply.

    Raises:
        ValueError: If `after` is negative.
    """
    if after < 0:
        raise ValueError(f"cut() needs after >= 0, got {after}")
    return _Cut(reply, after)


def endless_stream(*, interval: float = 0.01) -> Reply:
    """A streamed answer whose text never ends: a content chunk every `interval` seconds,
    never a finish reason nor `[DONE]` (in-process, as fast as the client reads).

    Args:
        interval: Seconds between chunks (the local server only).

    Returns:
        The reply.
    """
    if not (math.isfinite(interval) and interval >= 0):
        raise ValueError("endless_stream() needs a finite interval >= 0")
    return _Endless(interval)


def vllm_error_body(status: int, message: str | None = None) -> dict[str, Any]:
    """The error body vLLM's OpenAI server sends: `{"object": "error", ...}`.

    Args:
        status: The HTTP status code.
        message: The message; by default the status phrase (`"Bad Request"`).

    Returns:
        The body, ready for `json.dumps`.
    """
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    # vLLM names the type after the status: "Bad Request" -> "BadRequestError".
    type_name = "".join(word.capitalize() for word in phrase.replace("-", " ").split())
    if not type_name.endswith("Error"):
        type_name += "Error"
    return {"object": "error", "message": message or phrase, "type": type_name, "code": status}


def _usage(usage: Usage | None) -> CompletionUsage | None:
    if usage is None or isinstance(usage, CompletionUsage):
        return usage
    prompt, completion = usage
    return CompletionUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )
