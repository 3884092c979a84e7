"""One request on its way, free of I/O: where it goes, how long it may take, how it is read.

The sender (`_sender`) sends a request for both twins through an `Exchange`: it asks the
balancer (`_balancer`) which server each try goes to and tells it how the try ended, gives
the request's timeout within the call's deadline, and `AnswerReader` turns the bytes that
come back (a JSON body or an event stream) into an `Answer` and, when the answer is shown
live, into `stream()` events as they arrive.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import httpx2
import openai

from toolcall_sdk._balancer import Balancer, Lease, Pin
from toolcall_sdk._body import BodyReader, Limits, SseDecoder
from toolcall_sdk._errors import MalformedResponseError, ServerConnectionError
from toolcall_sdk._events import ToolCallEvent
from toolcall_sdk._pipeline import Answer
from toolcall_sdk._results import Usage
from toolcall_sdk._streaming import AnswerEvents, StreamAccumulator
from toolcall_sdk._usage import trusted_usage

__all__ = ["AnswerReader", "Exchange", "answer_from_body", "server_fault"]


class Exchange:
    """One request: its body, how it is read, which servers it tried, its time budget."""

    __slots__ = (
        "_balancer",
        "_lease",
        "_pin",
        "events",
        "kwargs",
        "limits",
        "stage",
        "started",
        "stream",
        "tried",
    )

    def __init__(
        self,
        *,
        kwargs: dict[str, Any],
        stage: str,
        stream: bool,
        events: AnswerEvents | None,
        balancer: Balancer,
        pin: Pin | None,
        limits: Limits,
    ) -> None:
        self.kwargs = kwargs
        self.stage = stage
        self.stream = stream
        self.events = events  # None: read silently (a broken stream is then retried whole)
        self.limits = limits
        self.tried: list[int] = []  # the server of each try, in order
        self.started = time.monotonic()
        self._balancer = balancer
        self._pin = pin
        self._lease: Lease | None = None

    @property
    def tries(self) -> int:
        """Tries sent so far."""
        return len(self.tried)

    @property
    def server(self) -> int:
        """The server of the latest try (the first server before any)."""
        return self.tried[-1] if self.tried else 0

    def acquire(self) -> int:
        """The server for the next try, counted as busy there until `release`."""
        self.release(None)
        self._lease = self._balancer.acquire(tried=self.tried, pin=self._pin)
        self.tried.append(self._lease.server)
        return self._lease.server

    def release(self, error: BaseException | None) -> None:
        """The try is over: answered (`error` None) or failed; once per try, later calls
        do nothing."""
        lease, self._lease = self._lease, None
        if lease is not None:
            ok = True if error is None else (False if server_fault(error) else None)
            self._balancer.release(lease, ok=ok)

    def has_untried(self) -> bool:
        """Whether a server this request has not tried is there to fail over to (the next
        try then waits for nothing: it has no reason to)."""
        return self._balancer.has_untried(self.tried)

    def timeout(self, per_request: float) -> float:
        """This try's timeout: the client's, cut to what is left of the call's deadline.

        Raises:
            DeadlineExceededError: Nothing is left.
        """
        self.limits.check_time("waiting to send a request")
        remaining = self.limits.remaining()
        return per_request if remaining is None else min(per_request, remaining)

    def reader(self) -> AnswerReader:
        """A fresh reader for this try's response."""
        return AnswerReader(self)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


class AnswerReader:
    """Bytes of one response in, `stream()` events out as they complete, the `Answer` last."""

    __slots__ = ("_accumulator", "_body", "_events", "_exchange", "_sse")

    def __init__(self, exchange: Exchange) -> None:
        self._exchange = exchange
        self._events = exchange.events
        self._body: BodyReader | None = None
        self._sse: SseDecoder | None = None
        if not exchange.stream:
            self._body = BodyReader(exchange.limits)
            self._accumulator = StreamAccumulator()
        else:
            self._sse = SseDecoder(exchange.limits)
            events = exchange.events
            self._accumulator = events.accumulator if events is not None else StreamAccumulator()

    def feed(self, data: bytes) -> list[ToolCallEvent]:
        """Take the next bytes; return the live events they complete (none when silent)."""
        if self._body is not None:
            self._body.feed(data)
            return []
        assert self._sse is not None
        return self._take(self._sse.feed(data))

    def finish(self) -> tuple[list[ToolCallEvent], Answer]:
        """The body ended: the last events, and the answer.

        Raises:
            MalformedResponseError: The body is not a chat completion.
            ServerConnectionError: The stream ended before the server said it was complete.
        """
        latency = self._exchange.elapsed()
        request = self._exchange.kwargs["body"]
        if self._body is not None:
            return [], answer_from_body(self._body.json(), latency, request)
        assert self._sse is not None
        events = self._take(self._sse.close())
        accumulator = self._accumulator
        if accumulator.chunks == 0:
            raise MalformedResponseError("the server closed the stream without sending a chunk")
        if not (self._sse.done or accumulator.finish_reason):
            # A cut stream may hold half the calls: never take it for a whole answer.
            raise ServerConnectionError(
                "the stream ended before the server said it was complete (no finish reason, "
                "no [DONE]): the connection broke or the server stopped mid-answer"
            )
        if self._events is not None:
            events.extend(self._events.close())
        message = accumulator.message()
        answer = Answer(
            message=message,
            finish_reason=accumulator.finish_reason,
            usage=trusted_usage(accumulator.reported_usage, request=request, message=message),
            latency_s=latency,
            others=tuple(
                Answer(
                    message=other.message(),
                    finish_reason=other.finish_reason,
                    usage=Usage(),
                    latency_s=latency,
                )
                for _, other in sorted(accumulator.others.items())
            ),
        )
        return events, answer

    def _take(self, chunks: list[dict[str, Any]]) -> list[ToolCallEvent]:
        if self._events is None:
            for chunk in chunks:
                self._accumulator.add(chunk)
            return []
        events: list[ToolCallEvent] = []
        for chunk in chunks:
            events.extend(self._events.add(chunk))
        return events


def server_fault(error: BaseException) -> bool:
    """Whether a failed try says its server is unwell: it could not be reached, dropped or
    cut the connection, timed out, or answered 5xx. Other failures (4xx, a bad body, the
    call's deadline, a cancelled task) say nothing about the server."""
    if isinstance(error, openai.APIStatusError):
        return error.status_code >= 500
    return isinstance(
        error, (openai.APIConnectionError, httpx2.TransportError, ServerConnectionError)
    )


def answer_from_body(body: Any, latency: float, request: Mapping[str, Any]) -> Answer:
    """The `Answer` of a non-streamed chat completion (the decoded JSON body), whose
    usage is read against `request`, the request's JSON body (`_usage`).

    Raises:
        MalformedResponseError: It has no `choices[0].message`.
    """
    choices = body.get("choices") if isinstance(body, dict) else None
    listed = choices if isinstance(choices, list) else []
    # In index order (a request's `n`): the first is the answer, the others are kept apart.
    read = sorted(
        ((_index(choice, n), _choice(choice, body)) for n, choice in enumerate(listed)),
        key=lambda item: item[0],
    )
    if not read or read[0][1] is None:
        raise MalformedResponseError(
            "the server answered without a choice/message; it is not a chat completion",
            body=str(body)[:500],
        )
    message, finish_reason = read[0][1]
    # A later choice without a message is left out rather than failing the first's answer.
    others = [r for _, r in read[1:] if r is not None]
    return Answer(
        message=message,
        finish_reason=finish_reason,
        usage=trusted_usage(body.get("usage"), request=request, message=message),
        latency_s=latency,
        others=tuple(
            Answer(message=m, finish_reason=f, usage=Usage(), latency_s=latency) for m, f in others
        ),
    )


def _index(choice: Any, position: int) -> int:
    index = choice.get("index") if isinstance(choice, dict) else None
    return index if isinstance(index, int) and not isinstance(index, bool) else position


def _choice(choice: Any, body: Any) -> tuple[dict[str, Any], str | None] | None:
    """One choice's message and finish reason; None when it holds no message."""
    if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
        return None
    message = _without_nulls(choice["message"])
    message.setdefault("content", None)
    _check_tool_calls(message.get("tool_calls"), body)
    finish_reason = choice.get("finish_reason")
    return message, finish_reason if isinstance(finish_reason, str) else None


def _check_tool_calls(tool_calls: Any, body: Any) -> None:
    # A server builds tool_calls itself (the model only writes text), so a list of call
    # objects each with a function object, or nothing, is the only shape a working server
    # sends; any other is a server bug that no retry of the model can fix.
    if tool_calls is None or (
        isinstance(tool_calls, list)
        and all(
            isinstance(call, dict) and isinstance(call.get("function", {}), dict)
            for call in tool_calls
        )
    ):
        return
    raise MalformedResponseError(
        "the server answered with tool_calls that are not a list of call objects "
        '({"id", "type", "function": {"name", "arguments"}}); it is not a chat completion',
        body=str(body)[:500],
    )


def _without_nulls(value: dict[str, Any]) -> dict[str, Any]:
    # The message as the client's readers expect it: absent, not null, for unset fields.
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        if isinstance(item, dict):
            item = _without_nulls(item)
        elif isinstance(item, list):
            item = [_without_nulls(x) if isinstance(x, dict) else x for x in item if x is not None]
        out[key] = item
    return out
