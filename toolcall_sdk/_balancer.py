"""Which server gets the next request, when `base_url` names several. No I/O.

Each request goes to the healthy server with the fewest requests outstanding (sent, not yet
answered), ties taken in turn (round robin), so a server slowed by long answers gets fewer
new requests. A try that fails on the server's side (the connection refused, reset or cut
mid-stream, a timeout, a 5xx) marks its server unhealthy: it is skipped while another
server is usable. After `BalancePolicy.cooldown` seconds one request, a trial, may go to it
again (half-open); the trial's success makes it healthy, its failure starts another
cool-down. The health check is that lazy trial, a real request, rather than a `GET /health`
probe: vLLM answers `/health` while its engine can still fail requests, and a probe would
need a thread or a timer that outlives the call. A failed trial costs one try, which the
transport layer then sends elsewhere.

With `affinity="call"` the requests of one call (routing, feedback retries, the steps of
`run()`) follow the server the call's first request went to while it stays healthy, so vLLM
reuses the conversation's prefix cache; when that server fails, the call moves and stays
where it moved.

When no server is usable (all unhealthy, or all tried by this request already) a request
still goes out, to the least busy of the others: the balancer never refuses to send, it
only orders. Failover resends a request; it never re-runs a business function (those run
in the pipeline, after a whole answer).

`Balancer` is thread-safe (one lock, held for a few list operations and never across I/O),
so the sync client may be shared by threads and the async one used from one event loop.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from toolcall_sdk._errors import InvalidArgumentError

__all__ = ["AFFINITIES", "BalancePolicy", "Balancer", "Lease", "Pin", "ServerState"]

Affinity = Literal["call", "none"]
AFFINITIES: Final = ("call", "none")
# Long enough that a server that is down is not retried every few requests, short enough
# that a restarted vLLM is back in the rotation soon after it answers again.
DEFAULT_COOLDOWN: Final = 10.0


@dataclass(frozen=True, slots=True)
class BalancePolicy:
    """How a client with several `base_url`s spreads its requests and fails over.

    Attributes:
        affinity: `"call"` (default): the requests of one `call()`, `run()`, `stream()` or
            `resume()` go to the server its first request went to, while that server is
            healthy, so vLLM's prefix cache is reused across feedback retries and steps.
            `"none"`: every request goes to the least busy healthy server.
        cooldown: Seconds a server marked unhealthy is skipped before one trial request
            may go to it again.
        clock: Replaces `time.monotonic` (a test switch: move time without sleeping).
    """

    affinity: Affinity = "call"
    cooldown: float = DEFAULT_COOLDOWN
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.affinity not in AFFINITIES:
            raise InvalidArgumentError(
                f"BalancePolicy.affinity must be one of {', '.join(map(repr, AFFINITIES))} "
                f"(got {self.affinity!r})"
            )
        cooldown = self.cooldown
        if (
            isinstance(cooldown, bool)
            or not isinstance(cooldown, (int, float))
            or not math.isfinite(cooldown)
            or cooldown < 0
        ):
            raise InvalidArgumentError(
                f"BalancePolicy.cooldown must be a number of seconds >= 0 (got {cooldown!r})"
            )
        if self.clock is not None and not callable(self.clock):
            raise InvalidArgumentError("BalancePolicy.clock must be a function returning seconds")


@dataclass(frozen=True, slots=True)
class ServerState:
    """One server as the balancer sees it (a snapshot, for debugging and metrics).

    Attributes:
        url: The server's base URL.
        healthy: False from a failed try until a trial request succeeds.
        outstanding: Requests sent to it and not answered yet.
        sent: Requests sent to it since the client was made.
        failures: Failed tries in a row (0 once it answers).
        retry_in: Seconds until a trial may go to it; 0 when one may now; None when healthy.
    """

    url: str
    healthy: bool
    outstanding: int
    sent: int
    failures: int
    retry_in: float | None


class Pin:
    """The server one call's requests stick to (`affinity="call"`); None until it sends."""

    __slots__ = ("server",)

    def __init__(self) -> None:
        self.server: int | None = None


@dataclass(frozen=True, slots=True)
class Lease:
    """One try on one server, from `Balancer.acquire` to `Balancer.release`."""

    server: int
    trial: bool  # sent while the server was unhealthy: its outcome decides its health


class _ServerSlot:
    __slots__ = ("failures", "healthy", "outstanding", "retry_at", "sent", "trials", "url")

    def __init__(self, url: str) -> None:
        self.url = url
        self.healthy = True
        self.outstanding = 0
        self.sent = 0
        self.failures = 0
        self.retry_at = 0.0
        self.trials = 0  # trial requests in flight

    def usable(self, now: float) -> bool:
        # One trial at a time: while it is out, the server stays skipped.
        return self.healthy or (self.trials == 0 and now >= self.retry_at)


class Balancer:
    """Least outstanding requests over healthy servers, ties in turn; see the module doc.

    Args:
        urls: The servers, in the order of `base_url`.
        policy: Affinity, cool-down and clock.
    """

    def __init__(self, urls: Sequence[str], policy: BalancePolicy) -> None:
        if not urls:
            raise InvalidArgumentError("base_url must name at least one server")
        self.policy = policy
        self._clock = policy.clock or time.monotonic
        self._servers = [_ServerSlot(url) for url in urls]
        self._lock = threading.Lock()
        self._turn = 0  # where the round robin among equally busy servers starts

    def __len__(self) -> int:
        return len(self._servers)

    def pin(self) -> Pin | None:
        """A fresh pin for one call, or None when requests are not pinned."""
        return Pin() if self.policy.affinity == "call" else None

    def acquire(self, *, tried: Collection[int] = (), pin: Pin | None = None) -> Lease:
        """Choose the server for one try and count it as outstanding there.

        Args:
            tried: Servers this request already failed on; others are preferred.
            pin: The call's pin: its server is kept while healthy, and it follows the choice.

        Returns:
            The lease; hand it to `release` once the try is over, whatever its end.
        """
        with self._lock:
            servers = self._servers
            if len(servers) == 1:
                index = 0
            else:
                now = self._clock()
                usable = [i for i, s in enumerate(servers) if i not in tried and s.usable(now)]
                pinned = pin.server if pin is not None else None
                if pinned is not None and pinned in usable and servers[pinned].healthy:
                    index = pinned
                else:
                    # Nothing usable: send anyway, preferring servers this request has not tried.
                    fallback = [i for i in range(len(servers)) if i not in tried]
                    index = self._least(usable or fallback or range(len(servers)))
            server = servers[index]
            server.outstanding += 1
            server.sent += 1
            trial = not server.healthy
            if trial:
                server.trials += 1
        if pin is not None:
            pin.server = index
        return Lease(index, trial)

    def release(self, lease: Lease, *, ok: bool | None) -> None:
        """End a try: `ok` True (answered), False (failed on the server's side), None (no
        sign either way: a 4xx, a cancelled or abandoned request)."""
        with self._lock:
            server = self._servers[lease.server]
            server.outstanding -= 1
            if lease.trial:
                server.trials -= 1
            if ok is True and (server.healthy or lease.trial):
                # An answer sent before the server failed says nothing about it now: only a
                # trial brings it back.
                server.healthy = True
                server.failures = 0
            elif ok is False and (server.healthy or lease.trial):
                server.healthy = False
                server.failures += 1
                server.retry_at = self._clock() + self.policy.cooldown

    def has_untried(self, tried: Collection[int]) -> bool:
        """Whether a usable server is left that this request has not tried."""
        with self._lock:
            now = self._clock()
            return any(i not in tried and s.usable(now) for i, s in enumerate(self._servers))

    def states(self) -> list[ServerState]:
        """A snapshot of every server, in `base_url` order."""
        with self._lock:
            now = self._clock()
            return [
                ServerState(
                    url=s.url,
                    healthy=s.healthy,
                    outstanding=s.outstanding,
                    sent=s.sent,
                    failures=s.failures,
                    retry_in=None if s.healthy else max(s.retry_at - now, 0.0),
                )
                for s in self._servers
            ]

    def _least(self, candidates: Collection[int]) -> int:
        """The least busy candidate; among equals, the next in turn after the last chosen."""
        count = len(self._servers)
        least = min(self._servers[i].outstanding for i in candidates)
        for step in range(count):
            index = (self._turn + step) % count
            if index in candidates and self._servers[index].outstanding == least:
                self._turn = index + 1
                return index
        raise AssertionError("unreachable: a candidate has the least outstanding count")
