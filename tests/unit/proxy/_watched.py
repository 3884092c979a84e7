"""A transport toward the upstream that tells when the proxy opened a response and when it
closed it: wraps the real one (local HTTP) or the scripted model's in-process one."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator

import httpx2


class WatchedUpstream(httpx2.AsyncBaseTransport):
    """`opened` and `closed` are `threading.Event`s: the proxy may run in its own thread.

    Args:
        inner: The transport that does the work; a local HTTP one by default.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx2.AsyncHTTPTransport()
        self.opened = threading.Event()
        self.closed = threading.Event()

    def client(self) -> httpx2.AsyncClient:
        """A client for the proxy's `http_client=` option."""
        return httpx2.AsyncClient(transport=self)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        self.opened.set()
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_Watched(response.stream, self.closed),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Watched(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, closed: threading.Event) -> None:
        self._inner = inner
        self._closed = closed

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._inner:
            yield part

    async def aclose(self) -> None:
        await self._inner.aclose()
        self._closed.set()  # only once the response is released
