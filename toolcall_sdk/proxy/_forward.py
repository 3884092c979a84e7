"""Pass-through: a request without tools goes to the upstream byte for byte, and back.

Only hop-by-hop headers are dropped (and `Authorization` replaced when the proxy has an
upstream key); the body and the upstream's status, headers and body bytes are relayed as
they are, a stream chunk by chunk as it arrives. A connection that cannot be opened fails
over to the next upstream; once the upstream answered, its answer is the caller's, errors
included (resending a generation the upstream already started is not a proxy's call).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterable

import httpx2

__all__ = ["Forwarder", "Relayed", "hop_by_hop_free"]

# RFC 9110 §7.6.1, plus what the HTTP client sets itself for the new connection.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
    }
)
# Errors raised before the upstream saw the request: safe to send it to the next one.
_NOT_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout)


def hop_by_hop_free(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """`headers` without the hop-by-hop ones (and those the `Connection` header names)."""
    pairs = list(headers)
    named = {
        token.strip().lower()
        for key, value in pairs
        if key.lower() == "connection"
        for token in value.split(",")
    }
    return [(k, v) for k, v in pairs if k.lower() not in _HOP_BY_HOP and k.lower() not in named]


class Relayed:
    """An upstream response being relayed: status, headers, and its body as it arrives."""

    def __init__(self, response: httpx2.Response) -> None:
        self.status = response.status_code
        # Content-Length stays: the raw bytes relayed are exactly the ones it counts.
        self.headers = hop_by_hop_free(response.headers.multi_items())
        self._response = response

    async def body(self) -> AsyncIterator[bytes]:
        """The raw body bytes (still content-encoded, as the upstream sent them)."""
        try:
            if self._response.is_stream_consumed:
                # An in-process transport (tests) hands over a body it has already read.
                yield self._response.content
                return
            async for part in self._response.aiter_raw():
                yield part
        finally:
            await self._response.aclose()

    async def aclose(self) -> None:
        """Release the upstream connection without reading the rest."""
        await self._response.aclose()


class Forwarder:
    """Sends requests to the upstreams in turn through the shared connection pool."""

    def __init__(
        self, upstreams: tuple[str, ...], *, upstream_api_key: str | None, timeout: float
    ) -> None:
        self._upstreams = upstreams
        self._upstream_api_key = upstream_api_key
        self._timeout = timeout
        self._next = itertools.count()

    async def send(
        self,
        client: httpx2.AsyncClient,
        *,
        method: str,
        path: str,
        query: str,
        headers: Iterable[tuple[str, str]],
        body: bytes,
    ) -> Relayed:
        """Open the upstream response for `method path` (the part after `/v1`).

        Raises:
            httpx2.ConnectError: No upstream could be reached (the last one's error).
            httpx2.TimeoutException: The upstream did not answer in time.
        """
        outgoing = self._headers(headers)
        first = next(self._next)
        last_error: Exception | None = None
        for offset in range(len(self._upstreams)):
            base = self._upstreams[(first + offset) % len(self._upstreams)]
            url = f"{base}{path}" + (f"?{query}" if query else "")
            request = client.build_request(
                method, url, headers=outgoing, content=body, timeout=self._timeout
            )
            try:
                return Relayed(await client.send(request, stream=True))
            except _NOT_SENT as exc:
                last_error = exc
        assert last_error is not None  # the loop ran at least once
        raise last_error

    def _headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        kept = [(k, v) for k, v in hop_by_hop_free(headers) if k.lower() != "content-length"]
        if not any(k.lower() == "accept-encoding" for k, _ in kept):
            # Without this the HTTP client would ask for gzip on the caller's behalf, and the
            # caller would get an encoding it never asked for.
            kept.append(("accept-encoding", "identity"))
        if self._upstream_api_key is not None:
            kept = [(k, v) for k, v in kept if k.lower() != "authorization"]
            kept.append(("authorization", f"Bearer {self._upstream_api_key}"))
        return kept
