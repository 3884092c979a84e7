"""Getting one request through: transient-failure retries, failover, typed errors.

Transport retries (408, 429, 5xx, dropped connections, timeouts) are separate from model
attempts: they resend the same request, never re-run a business function and never count
against `max_retries`. Each request is bounded by attempts *and* a deadline. Other 4xx
responses, and the 5xx that say the server cannot do this at all (501, 505, ...), are never
retried: the same request would fail the same way.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import openai
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
)

from toolcall_sdk._errors import (
    AuthenticationError,
    ContextLengthExceededError,
    EndpointNotFoundError,
    ModelNotFoundError,
    RateLimitedError,
    RequestRejectedError,
    ServerConnectionError,
    ServerTimeoutError,
    ServerUnavailableError,
    TransportError,
)

__all__ = [
    "RetryPolicy",
    "async_retrying",
    "describe_error",
    "error_body_message",
    "is_transient",
    "retrying",
    "translate_error",
]

logger = logging.getLogger("toolcall_sdk")

# Phrases vLLM (and other OpenAI-compatible servers) use when a request does not fit.
_CONTEXT_PHRASES = (
    "maximum context length",
    "max_model_len",
    "maximum model length",
    "context length",
    "too many tokens",
    "is too long",
)

# 5xx statuses that describe the server, not a passing state: Not Implemented, HTTP Version
# Not Supported, Variant Also Negotiates, Loop Detected, Not Extended, Network
# Authentication Required. Resending the same request cannot succeed.
_PERMANENT_5XX: Final = frozenset({501, 505, 506, 508, 510, 511})
# 408 Request Timeout: the server gave up waiting for the request; a resend may succeed.
_RETRIED_4XX: Final = frozenset({408, 429})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Transport retries for one request.

    Attributes:
        attempts: Tries per request, the first included.
        deadline: Seconds after which no new try starts.
        initial_backoff: First backoff in seconds; doubles each retry.
        max_backoff: Cap of one backoff.
        jitter: Up to this many seconds of random extra wait, so clients that failed
            together do not retry together.
        max_retry_after: Cap on a server's `Retry-After`, in seconds.
        sleep: Replaces `time.sleep` (a test switch: record the backoffs, wait for none).
        async_sleep: Replaces `asyncio.sleep` for the async client.
    """

    attempts: int = 4
    deadline: float = 120.0
    initial_backoff: float = 0.5
    max_backoff: float = 8.0
    jitter: float = 0.5
    max_retry_after: float = 30.0
    sleep: Callable[[float], None] | None = None
    async_sleep: Callable[[float], Awaitable[None]] | None = None

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")
        if self.deadline <= 0:
            raise ValueError("RetryPolicy.deadline must be positive")

    def backoff(self, retry_state: RetryCallState) -> float:
        """Seconds to wait before the next try (tenacity `wait` strategy)."""
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        return self.backoff_after(exc, retry_state.attempt_number)

    def backoff_after(self, error: BaseException | None, tries: int) -> float:
        """Seconds to wait after `tries` tries, the last of which failed with `error`: the
        server's `Retry-After` (capped) when it gave one, else the exponential backoff."""
        retry_after = _retry_after(error)
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        exponent = max(tries - 1, 0)
        base = min(self.initial_backoff * (2**exponent), self.max_backoff)
        return float(base + random.uniform(0, self.jitter))


def is_transient(exc: BaseException) -> bool:
    """Whether resending the same request may succeed."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, ServerConnectionError):  # a stream cut before it said it was complete
        return True
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return status in _RETRIED_4XX or (status >= 500 and status not in _PERMANENT_5XX)
    return False


def retrying(
    policy: RetryPolicy,
    *,
    max_delay: float | None = None,
    wait: Callable[[RetryCallState], float] | None = None,
) -> Retrying:
    """A tenacity controller for the sync client; `max_delay` caps the policy's deadline,
    `wait` replaces its backoff."""
    kwargs = _controller_kwargs(policy, max_delay, wait)
    if policy.sleep is not None:
        kwargs["sleep"] = policy.sleep
    return Retrying(**kwargs)


def async_retrying(
    policy: RetryPolicy,
    *,
    max_delay: float | None = None,
    wait: Callable[[RetryCallState], float] | None = None,
) -> AsyncRetrying:
    """A tenacity controller for the async client (arguments as for `retrying`)."""
    kwargs = _controller_kwargs(policy, max_delay, wait)
    if policy.async_sleep is not None:
        kwargs["sleep"] = policy.async_sleep
    return AsyncRetrying(**kwargs)


def _controller_kwargs(
    policy: RetryPolicy, max_delay: float | None, wait: Callable[[RetryCallState], float] | None
) -> dict[str, Any]:
    # No retry starts, nor backoff is slept, past the request's deadline or the call's.
    deadline = policy.deadline if max_delay is None else min(policy.deadline, max_delay)
    return {
        "stop": stop_after_attempt(policy.attempts) | stop_before_delay(deadline),
        "wait": wait or policy.backoff,
        "retry": retry_if_exception(is_transient),
        "before_sleep": _log_retry,
        "reraise": True,
    }


def _log_retry(retry_state: RetryCallState) -> None:
    outcome = retry_state.outcome
    exc = outcome.exception() if outcome is not None else None
    wait = retry_state.next_action.sleep if retry_state.next_action else 0.0
    logger.warning(
        "transport retry %d after %s; waiting %.2fs",
        retry_state.attempt_number,
        describe_error(exc),
        wait,
    )


def translate_error(exc: BaseException, *, base_url: str, model: str, tries: int) -> TransportError:
    """Map an openai exception to the SDK's typed error, with what to do about it."""
    where = f"{base_url} after {tries} tr{'y' if tries == 1 else 'ies'}"
    if isinstance(exc, openai.APITimeoutError):
        return ServerTimeoutError(
            f"the server at {where} did not answer in time. It may be overloaded or "
            "compiling a grammar for a new schema: raise timeout= or check the server's load"
        )
    if isinstance(exc, openai.APIConnectionError):
        return ServerConnectionError(
            f"could not reach the server at {where} ({_cause(exc)}). Is it running? Start one "
            "with `toolcall-sdk launch MODEL`, or check base_url"
        )
    if not isinstance(exc, openai.APIStatusError):
        return TransportError(f"request to {base_url} failed: {describe_error(exc)}")
    status = exc.status_code
    message = _server_message(exc)
    if status == 429:
        return RateLimitedError(
            f"rate limited by {where}: {message}. Lower the request rate or concurrency",
            status_code=status,
            server_message=message,
        )
    if status == 408:
        return ServerTimeoutError(
            f"the server at {where} timed out the request (HTTP 408: {message}). It may be "
            "overloaded: lower the concurrency or check the server's load"
        )
    if status in _PERMANENT_5XX:
        return RequestRejectedError(
            f"the server at {base_url} cannot serve this request (HTTP {status}: {message}); "
            "retrying cannot help. Check that base_url points at an OpenAI-compatible server",
            status_code=status,
            server_message=message,
        )
    if status >= 500:
        return ServerUnavailableError(
            f"server error {status} from {where}: {message}",
            status_code=status,
            server_message=message,
        )
    if status in (401, 403):
        return AuthenticationError(
            f"the server at {base_url} rejected the credentials (HTTP {status}). Pass the "
            "api_key= that the server was started with (vLLM's --api-key)",
            status_code=status,
            server_message=message,
        )
    if status == 404 and _missing_endpoint(exc.body, message, base_url):
        return EndpointNotFoundError(
            f"nothing answers at {base_url.rstrip('/')}/chat/completions (HTTP 404: {message}). "
            f"base_url must be the server's OpenAI API root, which ends in /v1 for vLLM: "
            f"{_with_v1(base_url)}",
            status_code=status,
            server_message=message,
        )
    if status == 404:
        return ModelNotFoundError(
            f"the server at {base_url} does not serve model {model!r} (HTTP 404: {message}). "
            f"Use a name listed by GET {base_url.rstrip('/')}/models, or the server's "
            "--served-model-name",
            status_code=status,
            server_message=message,
        )
    lowered = message.lower()
    if status in (400, 413) and any(phrase in lowered for phrase in _CONTEXT_PHRASES):
        return ContextLengthExceededError(
            f"the request does not fit the model's context (HTTP {status}: {message}). "
            "Shorten the conversation, lower max_tokens, or start vLLM with a larger "
            "--max-model-len",
            status_code=status,
            server_message=message,
        )
    return RequestRejectedError(
        f"the server at {base_url} rejected the request (HTTP {status}: {message}){_hint(lowered)}",
        status_code=status,
        server_message=message,
    )


def _missing_endpoint(body: object, message: str, base_url: str) -> bool:
    # vLLM's "model does not exist" 404 names the model; a missing route is FastAPI's bare
    # {"detail": "Not Found"}. A base_url without /v1 is the usual cause of the second.
    if "model" in message.lower():
        return False
    if isinstance(body, dict) and str(body.get("detail", "")).lower() == "not found":
        return True
    return not error_body_message(body) or not base_url.rstrip("/").endswith("/v1")


def _with_v1(base_url: str) -> str:
    root = base_url.rstrip("/")
    return root if root.endswith("/v1") else f"{root}/v1"


def _hint(message: str) -> str:
    if "auto" in message and "tool" in message and "enable" in message:
        return (
            ". Start vLLM with --enable-auto-tool-choice and the --tool-call-parser of the "
            "model family (`toolcall-sdk launch MODEL` does both)"
        )
    if "tool_choice" in message or "tool choice" in message:
        return ". The server does not accept this tool_choice; check that vLLM is >= 0.8.3"
    if "strict" in message:
        return ". The server rejects strict tool schemas: pass strict=False to the client"
    if "enable-prompt-embeds" in message or "enable_prompt_embeds" in message:
        return (
            ". The server does not accept prompt embeddings: start vLLM with "
            "--enable-prompt-embeds (trusted clients only)"
        )
    return ""


def error_body_message(body: object) -> str:
    """The message of an error body: OpenAI's `{"error": {"message"}}` or vLLM's flat form."""
    if not isinstance(body, dict):
        return ""
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    text = inner.get("message") if isinstance(inner, dict) else None
    return text if isinstance(text, str) else ""


def _server_message(exc: openai.APIStatusError) -> str:
    return error_body_message(exc.body) or str(exc.message)


def _retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked to wait, or None when it asked nothing usable.

    `Retry-After` is a number of seconds or an HTTP date (RFC 9110). A date is counted from
    the response's own `Date` when it has one, so a skewed client clock does not matter.
    A value that is not a finite non-negative number or a date is ignored (the exponential
    backoff applies); a date already past means "now". The caller caps the result.
    """
    if not isinstance(exc, openai.APIStatusError):
        return None
    value = (exc.response.headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return _seconds_until(value, exc.response.headers.get("date"))
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _seconds_until(http_date: str, server_date: str | None) -> float | None:
    when = _parse_http_date(http_date)
    if when is None:
        return None
    now = _parse_http_date(server_date) if server_date else None
    return max(when - (now if now is not None else time.time()), 0.0)


def _parse_http_date(text: str) -> float | None:
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:  # RFC 9110 dates are GMT
        return None
    return parsed.timestamp()


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return describe_error(cause) if cause is not None else describe_error(exc)


def describe_error(exc: BaseException | None) -> str:
    if exc is None:
        return "no error"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
