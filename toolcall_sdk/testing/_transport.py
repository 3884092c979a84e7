"""Carry out a `ServerAction` in-process, as an `httpx2.MockTransport` handler."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx2

from ._core import ScriptCore

__all__ = ["make_transport"]


class _EventStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """Hands SSE events to the client one by one, for sync and async clients alike.

    With `cut`, the stream raises `httpx2.ReadError` after that many bytes, as a dropped
    connection does; `chunked`: also when the body ends first (the local server then sends
    no closing chunk), else a body shorter than the cut arrives whole.
    """

    def __init__(
        self,
        events: tuple[bytes, ...],
        repeat: bytes | None = None,
        *,
        cut: int | None = None,
        chunked: bool = True,
        request: httpx2.Request | None = None,
    ) -> None:
        self._events = events
        self._repeat = repeat
        self._cut = cut
        self._chunked = chunked
        self._request = request

    def _pieces(self) -> Iterator[bytes]:
        left = self._cut
        for piece in self._all():
            if left is not None and (len(piece) > left or (len(piece) == left and self._chunked)):
                if left:
                    yield piece[:left]
                raise httpx2.ReadError("ScriptedModel: scripted cut()", request=self._request)
            if left is not None:
                left -= len(piece)
            yield piece
        if left is not None and self._chunked:  # shorter than the cut: no closing chunk
            raise httpx2.ReadError("ScriptedModel: scripted cut()", request=self._request)

    def _all(self) -> Iterator[bytes]:
        yield from self._events
        while self._repeat is not None:  # an endless stream: the client must stop reading
            yield self._repeat

    def __iter__(self) -> Iterator[bytes]:
        yield from self._pieces()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces():
            yield piece


def make_transport(core: ScriptCore) -> httpx2.MockTransport:
    """A transport answering every request from `core`, without any network.

    `delay` replies are answered at once; `disconnect` raises `httpx2.ConnectError`; `cut`
    raises `httpx2.ReadError` while the body is read.

    Args:
        core: The script core.

    Returns:
        The transport, usable by `httpx2.Client` and `httpx2.AsyncClient`.
    """

    def handle(request: httpx2.Request) -> httpx2.Response:
        action = core.handle(
            request.method, request.url.path, dict(request.headers.items()), request.content
        )
        if action.disconnect:
            raise httpx2.ConnectError("ScriptedModel: scripted disconnect()", request=request)
        if action.events is not None or action.cut is not None:
            chunked = action.events is not None or bool(action.pace)
            stream = _EventStream(
                action.events if action.events is not None else (action.body,),
                action.repeat,
                cut=action.cut,
                chunked=chunked,
                request=request,
            )
            return httpx2.Response(action.status, headers=list(action.headers), stream=stream)
        return httpx2.Response(action.status, headers=list(action.headers), content=action.body)

    return httpx2.MockTransport(handle)
