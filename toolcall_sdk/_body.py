"""Reading a server's answer within the call's deadline and a size cap: JSON bodies and SSE.

httpx's timeout fires on silence only, so a body that trickles in byte by byte, or an event
stream that never ends, would be read forever and held in memory whole. Every piece of bytes
is checked against the deadline and the cap as it arrives, and a stream counts as complete
only when the server said so (`data: [DONE]` or a finish reason). Free of I/O: the sync and
async clients feed it what they read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import from_json

from toolcall_sdk._errors import (
    DeadlineExceededError,
    MalformedResponseError,
    ResponseTooLargeError,
    TransportError,
)

__all__ = ["MAX_RESPONSE_BYTES", "BodyReader", "Limits", "SseDecoder"]

# Far above any chat answer (a 128k-token answer is a few MB of JSON, its SSE form a few
# times that), far below what hurts a process holding many calls.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
_DONE = "[DONE]"


@dataclass(frozen=True, slots=True)
class Limits:
    """What one answer may cost: a point in time it must arrive by, and a size.

    Attributes:
        deadline_at: The `clock()` value the call must finish by (None: no deadline).
        deadline_s: The call's deadline as configured, for messages.
        max_bytes: Bytes one answer may have.
        clock: The monotonic clock (a test switch).
    """

    deadline_at: float | None = None
    deadline_s: float | None = None
    max_bytes: int = MAX_RESPONSE_BYTES
    clock: Callable[[], float] = time.monotonic

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline_at is None else self.deadline_at - self.clock()

    def check_time(self, doing: str) -> None:
        """Raise `DeadlineExceededError` if the deadline has passed.

        Args:
            doing: What was under way, for the message ("reading the answer").
        """
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            raise self.deadline_error(doing)

    def deadline_error(self, doing: str) -> DeadlineExceededError:
        """The error for a deadline that passed while `doing`."""
        return DeadlineExceededError(
            f"the call's deadline of {self.deadline_s:g} s passed while {doing}; "
            "raise deadline= or lower max_tokens"
        )


@dataclass(slots=True)
class _Budget:
    limits: Limits
    size: int = 0

    def take(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limits.max_bytes:
            raise ResponseTooLargeError(
                f"the server's answer passed {self.limits.max_bytes} bytes; it was dropped. "
                "Lower max_tokens, or raise max_response_bytes= if such answers are expected",
                limit=self.limits.max_bytes,
            )
        self.limits.check_time("the server was still sending its answer")


@dataclass(slots=True)
class BodyReader:
    """Collects a whole JSON body; `json()` decodes it once the body has ended."""

    limits: Limits
    _parts: list[bytes] = field(default_factory=list)
    _budget: _Budget = field(init=False)

    def __post_init__(self) -> None:
        self._budget = _Budget(self.limits)

    def feed(self, data: bytes) -> None:
        """Take the next bytes of the body."""
        self._budget.take(data)
        self._parts.append(data)

    def json(self) -> Any:
        """The decoded body.

        Raises:
            MalformedResponseError: The body is not JSON (or nests beyond any real answer).
        """
        body = b"".join(self._parts)
        try:
            return from_json(body, allow_inf_nan=False)
        except ValueError as exc:
            raise MalformedResponseError(
                f"the server's answer is not JSON ({exc})", body=body[:500].decode(errors="replace")
            ) from exc


@dataclass(slots=True)
class SseDecoder:
    """Splits `text/event-stream` bytes into the JSON objects of its `data:` events.

    Attributes:
        done: The server sent `data: [DONE]`.
    """

    limits: Limits
    done: bool = False
    _buffer: bytes = b""
    _data: list[str] = field(default_factory=list)
    _budget: _Budget = field(init=False)

    def __post_init__(self) -> None:
        self._budget = _Budget(self.limits)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Take the next bytes; return the events they complete, in order."""
        self._budget.take(data)
        self._buffer += data
        events: list[dict[str, Any]] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return events
            line = self._buffer[:end].rstrip(b"\r").decode("utf-8", errors="replace")
            self._buffer = self._buffer[end + 1 :]
            event = self._line(line)
            if event is not None:
                events.append(event)

    def close(self) -> list[dict[str, Any]]:
        """The stream ended: the last event may lack its blank line."""
        events = []
        if self._buffer:
            line = self._buffer.rstrip(b"\r").decode("utf-8", errors="replace")
            self._buffer = b""
            event = self._line(line)
            if event is not None:
                events.append(event)
        event = self._line("")
        if event is not None:
            events.append(event)
        return events

    def _line(self, line: str) -> dict[str, Any] | None:
        if line:
            if line.startswith("data:"):
                self._data.append(line[5:].removeprefix(" "))
            return None  # comments (":"), event:, id:, retry: carry nothing a chat needs
        if not self._data:
            return None
        payload = "\n".join(self._data)
        self._data = []
        if payload.strip() == _DONE:
            self.done = True
            return None
        try:
            event = from_json(payload, allow_inf_nan=False)
        except ValueError as exc:
            raise MalformedResponseError(
                f"the server sent a stream event that is not JSON ({exc})", body=payload[:500]
            ) from exc
        if not isinstance(event, dict):
            raise MalformedResponseError("the server sent a stream event that is not an object")
        if "error" in event and "choices" not in event:
            error = event["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise TransportError(f"the server reported an error in the stream: {message}")
        return event
