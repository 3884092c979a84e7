"""Carry out an `Outcome` in-process, as an `httpx2.MockTransport` handler."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx2

from ._core import ScriptCore

__all__ = ["make_transport"]


class _EventStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """Hands SSE events to the client one by one, for sync and async clients alike."""

    def __init__(self, events: tuple[bytes, ...], repeat: bytes | None = None) -> None:
        self._events = events
        self._repeat = repeat

    def __iter__(self) -> Iterator[bytes]:
        yield from self._events
        while self._repeat is not None:  # an endless stream: the client must stop reading
            yield self._repeat

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event
        while self._repeat is not None:
            yield self._repeat


def make_transport(core: ScriptCore) -> httpx2.MockTransport:
    """A transport answering every request from `core`, without any network.

    `delay` replies are answered at once; `disconnect` raises `httpx2.ConnectError`.

    Args:
        core: The script core.

    Returns:
        The transport, usable by `httpx2.Client` and `httpx2.AsyncClient`.
    """

    def handle(request: httpx2.Request) -> httpx2.Response:
        outcome = core.handle(
            request.method, request.url.path, dict(request.headers.items()), request.content
        )
        if outcome.disconnect:
            raise httpx2.ConnectError("ScriptedModel: scripted disconnect()", request=request)
        if outcome.events is not None:
            return httpx2.Response(
                outcome.status,
                headers=list(outcome.headers),
                stream=_EventStream(outcome.events, outcome.repeat),
            )
        return httpx2.Response(outcome.status, headers=list(outcome.headers), content=outcome.body)

    return httpx2.MockTransport(handle)
