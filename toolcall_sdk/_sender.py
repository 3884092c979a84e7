"""The sender: one request's exchange with the servers, free of I/O, shared by both twins.

`send()` is a generator, like the pipeline's `flow()` (httpx's `Auth.auth_flow` is the
model): it yields what it needs done, typed effects, and receives their results.

- `Open(server, timeout, kwargs)`: send the request to that server; the driver sends back
  nothing (the response is its to keep) or throws in the error it raised.
- `Read(within)`: the next bytes of the open response, `b""` at its end. The driver ends a
  read that waits past `within` seconds (the call's deadline) by throwing in TimeoutError,
  and throws in any error of the read; it closes the response after an error, at its end
  and when the next `Open` comes.
- `Sleep(seconds)`: the backoff before the next try.
- `Show(event)`: a live event of the answer, for the consumer of `stream()`.

It returns the `Answer`, or raises the SDK's typed error. Inside it keeps what the twins
used to keep apiece: the try count and the servers tried (failover: no backoff before a
server this request has not tried), the lease on each try's server (released once, as the
try ends), the transport retries (bounded by attempts and by the policy's deadline within
what is left of the call's deadline), stream assembly (`AnswerReader`) and the call's
deadline on every read. The drivers (`ToolCallClient._exchange`, and its async twin)
only open, read, sleep and show.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx2
import openai

from toolcall_sdk._call_tags import TagSupport, carries_tag, untagged
from toolcall_sdk._errors import MalformedResponseError, ToolCallError
from toolcall_sdk._events import ToolCallEvent
from toolcall_sdk._exchange import AnswerReader, Exchange
from toolcall_sdk._pipeline import Answer
from toolcall_sdk._transport import RetryPolicy, describe_error, is_transient, translate_error

__all__ = ["Open", "Read", "SendEffect", "Show", "Sleep", "send"]

logger = logging.getLogger("toolcall_sdk")


@dataclass(frozen=True, slots=True)
class Open:
    """Send the request to server number `server` within `timeout` seconds.

    Attributes:
        server: The index of the server (and of the driver's openai client).
        timeout: The request's timeout, cut to what is left of the call's deadline.
        kwargs: The JSON body and the request options (`_ClientCore._request_kwargs`).
        within: Seconds left of the call's deadline (None: no deadline); the sync driver
            arms its socket watchdog with it.
    """

    server: int
    timeout: float
    kwargs: dict[str, Any]
    within: float | None


@dataclass(frozen=True, slots=True)
class Read:
    """Read the next bytes of the open response within `within` seconds (None: no bound)."""

    within: float | None


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait `seconds` before the next try (the policy's `sleep` or `async_sleep`)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Show:
    """A live event of the answer being read."""

    event: ToolCallEvent


SendEffect = Open | Read | Sleep | Show
Sending = Generator[SendEffect, Any, Answer]


def send(
    exchange: Exchange,
    *,
    retry: RetryPolicy,
    timeout: float,
    base_urls: Sequence[str],
    model: str,
    tags: TagSupport | None = None,
) -> Sending:
    """Get one request answered: tries, failover, backoffs, reading; see the module doc.

    Retried as a whole until something is shown: a live stream is retried only until it
    opens, since a break after its first chunk cannot be taken back from the UI. Every
    read is bounded by the call's deadline and the size cap (`_body`). A request carrying
    a call tag (`_call_tags`) that the server refuses with a 400 or 422 is sent once more
    without it; when that one is answered, `tags` remembers the refusal.

    Raises:
        TransportError: The request could not be answered (its typed subclass).
    """
    try:
        try:
            answer = yield from _tries(exchange, retry, timeout)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as refused:
            if tags is None or not carries_tag(exchange.kwargs["body"]):
                raise
            exchange.kwargs = untagged(exchange.kwargs)
            answer = yield from _tries(exchange, retry, timeout)
            tags.refuse(base_urls[exchange.server], refused)
    except (openai.APIError, httpx2.TransportError, ValueError) as exc:
        raise typed_error(exc, exchange, base_urls=base_urls, model=model) from exc
    _log_answer(exchange, answer)
    return answer


def _tries(exchange: Exchange, retry: RetryPolicy, per_request: float) -> Sending:
    started = time.monotonic()
    remaining = exchange.limits.remaining()
    # No retry starts, nor backoff is slept, past the request's deadline or the call's.
    deadline = retry.deadline if remaining is None else min(retry.deadline, remaining)
    while True:
        server = exchange.acquire()
        try:
            within = exchange.limits.remaining()
            yield Open(server, exchange.timeout(per_request), exchange.kwargs, within)
            if exchange.events is not None:
                break  # a live answer is shown as it comes: never retried once opened
            answer = yield from _answer(exchange, exchange.reader())
        except BaseException as exc:
            exchange.release(exc)
            error = _unbroken(exc)
            if not isinstance(exc, Exception) or not is_transient(error):
                raise
            wait = 0.0 if exchange.has_untried() else retry.backoff_after(error, exchange.tries)
            if exchange.tries >= retry.attempts or time.monotonic() - started + wait >= deadline:
                if error is exc:
                    raise
                raise error from exc
            logger.warning(
                "transport retry %d after %s; waiting %.2fs",
                exchange.tries,
                describe_error(error),
                wait,
            )
            yield Sleep(wait)
            continue
        exchange.release(None)
        return answer
    try:
        answer = yield from _answer(exchange, exchange.reader())
    except BaseException as exc:  # an error, or a stream left early: the try is over
        exchange.release(exc)
        raise
    exchange.release(None)
    return answer


def _answer(exchange: Exchange, reader: AnswerReader) -> Sending:
    """Read the open response to its end; show its live events; the answer."""
    limits = exchange.limits
    while True:
        try:
            data = yield Read(limits.remaining())
        except TimeoutError as exc:
            raise limits.deadline_error("waiting for the server's next bytes") from exc
        if not data:
            break
        for event in reader.feed(data):
            yield Show(event)
    last, answer = reader.finish()
    for event in last:
        yield Show(event)
    return answer


def typed_error(
    exc: Exception, exchange: Exchange, *, base_urls: Sequence[str], model: str
) -> Exception:
    """The SDK's typed error for what ended the exchange."""
    error = _unbroken(exc)
    if isinstance(error, ToolCallError):
        return error
    if not isinstance(error, openai.APIError):  # a 200 whose body is not JSON
        return MalformedResponseError(
            f"the server's answer could not be read: {error}", body=str(error)[:500]
        )
    url = base_urls[exchange.server]
    return translate_error(error, base_url=url, model=model, tries=exchange.tries)


def _unbroken(exc: BaseException) -> BaseException:
    # A body broken while being read is an httpx error; openai's errors say the same of a
    # request (and `is_transient`, `translate_error` read those).
    if isinstance(exc, httpx2.TimeoutException):
        return openai.APITimeoutError(request=exc.request)
    if isinstance(exc, httpx2.TransportError):
        return openai.APIConnectionError(request=exc.request)
    return exc


def _log_answer(exchange: Exchange, answer: Answer) -> None:
    if not logger.isEnabledFor(logging.DEBUG):  # its arguments cost more than the check
        return
    calls = answer.message.get("tool_calls") or []
    logger.debug(
        "%s request: finish=%s calls=%s %.3fs",
        exchange.stage,
        answer.finish_reason,
        [(c.get("function") or {}).get("name") for c in calls],
        answer.latency_s,
    )
