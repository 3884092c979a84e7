"""A socket watchdog: the sync client's reads end at the call's deadline.

A blocking socket read waits for as long as its timeout, and httpx sets that timeout once
per request, not per read: a server that falls silent mid-answer holds a sync read past the
call's deadline, up to one `timeout=`. The async client cuts each read with
`asyncio.timeout`; a thread has no such thing. So one daemon thread keeps the deadlines of
the sync responses being read and, when one passes, shuts that response's socket down:
the blocked read returns at once (end of stream), and the reader, seeing `fired`, reports
the deadline rather than a broken connection.

Only sockets are shut, never closed: the reading thread still owns the file descriptor,
which stays valid (and is never reused under it) until the transport closes it.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from typing import Any

__all__ = ["Watch", "socket_of", "watch"]

# Cancelled watches are dropped lazily, when they come due; past this many (a busy client
# with a long deadline) the heap is rebuilt without them so that it stays small.
_MAX_CANCELLED = 1024


class Watch:
    """One response's deadline, as the watchdog holds it."""

    __slots__ = ("at", "cancelled", "fired", "sock")

    def __init__(self, at: float, sock: socket.socket) -> None:
        self.at = at
        self.sock: socket.socket | None = sock
        self.cancelled = False
        self.fired = False

    def cancel(self) -> None:
        """The response was read or closed: its socket is not the watchdog's to shut."""
        _WATCHDOG.cancel(self)


class _Watchdog:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Watch]] = []
        self._order = itertools.count()
        self._cancelled = 0
        self._thread: threading.Thread | None = None

    def add(self, at: float, sock: socket.socket) -> Watch:
        item = Watch(at, sock)
        with self._cond:
            heapq.heappush(self._heap, (at, next(self._order), item))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="toolcall-sdk-watchdog", daemon=True
                )
                self._thread.start()
            elif self._heap[0][2] is item:
                self._cond.notify()  # an earlier deadline than the one it waits for
        return item

    def cancel(self, item: Watch) -> None:
        with self._cond:
            if item.cancelled or item.fired:
                return
            item.cancelled = True
            item.sock = None
            self._cancelled += 1
            if self._cancelled > _MAX_CANCELLED:
                self._heap = [entry for entry in self._heap if not entry[2].cancelled]
                heapq.heapify(self._heap)
                self._cancelled = 0

    def _loop(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)
                    self._cancelled = max(self._cancelled - 1, 0)
                if not self._heap:
                    self._cond.wait()
                    continue
                left = self._heap[0][0] - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                item = heapq.heappop(self._heap)[2]
                item.fired = True
                sock, item.sock = item.sock, None
                if sock is not None:
                    # Under the lock: `cancel` cannot return while the socket is being shut,
                    # so a response read to its end is never cut after it was handed back.
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)


_WATCHDOG = _Watchdog()


def socket_of(response: Any) -> socket.socket | None:
    """The socket a sync httpx response is read from (None: another transport, a mock)."""
    extensions = getattr(response, "extensions", None)
    stream = extensions.get("network_stream") if isinstance(extensions, dict) else None
    get_extra_info = getattr(stream, "get_extra_info", None)
    if get_extra_info is None:
        return None
    sock = get_extra_info("socket")
    return sock if isinstance(sock, socket.socket) else None


def watch(response: Any, seconds: float | None) -> Watch | None:
    """Shut `response`'s socket `seconds` from now unless the watch is cancelled first.

    Returns:
        The watch, or None when there is no deadline or no socket to shut (the read is
        then bounded by the request's timeout alone).
    """
    if seconds is None:
        return None
    sock = socket_of(response)
    if sock is None:
        return None
    return _WATCHDOG.add(time.monotonic() + max(seconds, 0.0), sock)
