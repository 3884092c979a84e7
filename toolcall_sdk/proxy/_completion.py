"""The pipeline's result as the caller expects it: an OpenAI chat completion, its stream
chunks, the `x-toolcall-*` headers, and OpenAI-shaped error bodies.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from toolcall_sdk import (
    Attempt,
    AuthenticationError,
    DeadlineExceededError,
    ModelNotFoundError,
    NoAnswerError,
    RateLimitedError,
    RequestRejectedError,
    ResponseTooLargeError,
    RouterError,
    ServerError,
    ServerTimeoutError,
    ToolCallError,
    ToolCallFailed,
    ToolCallResult,
    TransportError,
    Usage,
)
from toolcall_sdk._schema_tools import arguments_dict

__all__ = [
    "HEADER_ATTEMPTS",
    "HEADER_PARSER_MISS",
    "HEADER_REPAIRS",
    "HEADER_ROUTE",
    "HEADER_ROUTE_BY",
    "Completion",
    "ErrorReply",
    "completion_body",
    "error_reply",
    "failure_summary",
    "sse",
    "stream_chunks",
    "summary_headers",
]

HEADER_ATTEMPTS = "x-toolcall-attempts"
HEADER_PARSER_MISS = "x-toolcall-parser-miss"
HEADER_REPAIRS = "x-toolcall-repairs"
HEADER_ROUTE = "x-toolcall-route"
HEADER_ROUTE_BY = "x-toolcall-route-by"

# Retries ran out: the request was understood, the model could not produce a valid call.
# 422 tells a client not to resend the same request blindly (openai clients do not retry it).
FAILED_STATUS = 422
_DONE = b"data: [DONE]\n\n"


@dataclass(frozen=True, slots=True)
class Completion:
    """One response's identity, shared by the body or every chunk of the stream."""

    id: str
    created: int
    model: str

    @classmethod
    def new(cls, model: str) -> Completion:
        """A fresh id and timestamp for a response about `model`."""
        return cls(id=f"chatcmpl-{uuid.uuid4().hex}", created=int(time.time()), model=model)


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """An error for the caller: the HTTP status and the OpenAI-shaped body."""

    status: int
    body: dict[str, Any]


def assistant_message(result: ToolCallResult) -> dict[str, Any]:
    """The accepted answer as an assistant message with `tool_calls`."""
    message: dict[str, Any] = {"role": "assistant", "content": result.content}
    if result.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    # The validated values (after the deterministic repairs), not the raw text.
                    "arguments": json.dumps(arguments_dict(call.arguments), ensure_ascii=False),
                },
            }
            for call in result.calls
        ]
    return message


def finish_reason(result: ToolCallResult) -> str:
    """`tool_calls` for a call, else `stop` (a plain answer cut by max_tokens reads so too)."""
    return "tool_calls" if result.calls else "stop"


def completion_body(result: ToolCallResult, completion: Completion) -> dict[str, Any]:
    """The `chat.completion` object answering the caller."""
    return {
        "id": completion.id,
        "object": "chat.completion",
        "created": completion.created,
        "model": completion.model,
        "choices": [
            {
                "index": 0,
                "message": assistant_message(result),
                "finish_reason": finish_reason(result),
                "logprobs": None,
            }
        ],
        "usage": usage_body(result.usage),
    }


def usage_body(usage: Usage) -> dict[str, int]:
    """OpenAI's usage object: every hidden request (router, retries) summed."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


def summary_headers(attempts: Sequence[Attempt], *, route: str, route_by: str) -> dict[str, str]:
    """The `x-toolcall-*` headers of one response."""
    return {
        HEADER_ATTEMPTS: str(len(attempts)),
        HEADER_PARSER_MISS: str(sum(1 for attempt in attempts if attempt.parser_miss)),
        HEADER_REPAIRS: str(sum(len(attempt.repairs) for attempt in attempts)),
        HEADER_ROUTE: route,
        HEADER_ROUTE_BY: route_by,
    }


def route_of(result: ToolCallResult) -> str:
    """`call` or `no_call`, as stage 1 decided."""
    return "call" if result.called else "no_call"


def chunk(completion: Completion, delta: dict[str, Any], finish: str | None = None) -> bytes:
    """One `chat.completion.chunk` as a Server-Sent Event."""
    return sse(
        {
            "id": completion.id,
            "object": "chat.completion.chunk",
            "created": completion.created,
            "model": completion.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
    )


def stream_chunks(
    result: ToolCallResult, completion: Completion, *, include_usage: bool, opened: bool
) -> Iterator[bytes]:
    """The rest of a stream once the result is known.

    Args:
        result: The pipeline's result.
        completion: The stream's identity.
        include_usage: Add the usage chunk (the caller's `stream_options`).
        opened: The role chunk (and any text) was already sent.
    """
    if not opened:
        yield chunk(completion, {"role": "assistant", "content": ""})
        if result.content:
            yield chunk(completion, {"content": result.content})
    calls = assistant_message(result).get("tool_calls") or []
    for index, call in enumerate(calls):
        yield chunk(completion, {"tool_calls": [{"index": index, **call}]})
    yield chunk(completion, {}, finish_reason(result))
    if include_usage:
        yield sse(
            {
                "id": completion.id,
                "object": "chat.completion.chunk",
                "created": completion.created,
                "model": completion.model,
                "choices": [],
                "usage": usage_body(result.usage),
            }
        )
    yield _DONE


def sse(data: dict[str, Any]) -> bytes:
    """One `data:` event."""
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


def failure_summary(attempts: Sequence[Attempt]) -> list[dict[str, Any]]:
    """What each hidden attempt was rejected for, without the conversation."""
    return [
        {
            "number": attempt.number,
            "finish_reason": attempt.finish_reason,
            "parser_miss": attempt.parser_miss,
            "problems": [
                {"kind": p.kind, "tool": p.tool_name, "message": p.message}
                for p in attempt.problems
            ],
        }
        for attempt in attempts
    ]


def error_reply(exc: ToolCallError) -> ErrorReply:
    """The status and body for an SDK error raised while serving a request."""
    if isinstance(exc, ToolCallFailed):
        last = exc.attempts[-1].problems if exc.attempts else []
        detail = "; ".join(f"{p.kind}: {p.message}" for p in last) or "no detail"
        body = _error(
            f"the model gave no valid tool call in {len(exc.attempts)} attempt(s); last "
            f"problem(s): {detail}. Every attempt is summarised in error.attempts",
            "tool_call_failed",
        )
        body["error"]["attempts"] = failure_summary(exc.attempts)
        return ErrorReply(FAILED_STATUS, body)
    if isinstance(exc, NoAnswerError):
        # The model, not the caller, failed: no text where only text could answer (an empty
        # answer twice, or a call under tool_choice="none"). Never 200 with nothing in it.
        return ErrorReply(FAILED_STATUS, _error(str(exc), "no_answer"))
    status, kind = _upstream_status(exc)
    message = str(exc)
    if isinstance(exc, ServerError) and exc.server_message:
        message = f"{message} (upstream said: {exc.server_message})"
    # The SDK's advice (raise deadline= or max_response_bytes=) is for its own users; a
    # caller of the proxy can only ask for less.
    if isinstance(exc, ResponseTooLargeError):
        message = (
            f"the upstream's answer was too large: it passed {exc.limit} bytes and was "
            "dropped. Lower max_tokens"
        )
    elif isinstance(exc, DeadlineExceededError):
        message = (
            "the upstream did not finish within the proxy's time limit (its --timeout, "
            "hidden retries included). Lower max_tokens"
        )
    return ErrorReply(status, _error(message, kind))


def bad_request(message: str, *, param: str | None = None) -> ErrorReply:
    """400 for a request the proxy cannot serve as given."""
    return ErrorReply(400, _error(message, "invalid_request_error", param=param))


def _upstream_status(exc: ToolCallError) -> tuple[int, str]:
    if isinstance(exc, AuthenticationError | ModelNotFoundError | RequestRejectedError):
        # The upstream refused the request itself: the caller must change it.
        status = exc.status_code if isinstance(exc, ServerError) else 400
        return status, "invalid_request_error"
    if isinstance(exc, RateLimitedError):
        return 429, "rate_limit_error"
    if isinstance(exc, ServerTimeoutError):
        return 504, "upstream_timeout"
    if isinstance(exc, TransportError | RouterError):
        # The upstream failed the request (dropped, unreadable, too large, an HTTP error):
        # the caller's request was not at fault.
        return 502, "upstream_error"
    return 400, "invalid_request_error"


def _error(message: str, kind: str, *, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind, "param": param}}
