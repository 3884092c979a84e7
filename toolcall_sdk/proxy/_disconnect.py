"""A caller who hangs up ends its request: the upstream work is cancelled, not finished.

Nothing goes to the caller of a tool request until its answer is validated, so a caller who
gives up (a client timeout, Ctrl-C) is noticed only by watching the connection: ASGI's
`receive()` answers `http.disconnect` once it is gone. The work is then cancelled, and the
SDK closes its upstream response on the way out, so the upstream (vLLM) stops generating for
nobody instead of running on to the end of the answer or the request's deadline.

A streamed answer is watched the same way while it is sent (`CallerStream`), whatever the
ASGI server's spec version, and when it stops its body is closed and what the body holds
released (the upstream response it relays), not left for the garbage collector.

Tasks and `Task.cancel()` (asyncio, as the SDK's async client): one cancellation, delivered
once, so the work's clean-up (closing the upstream response) can still await.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

from starlette.responses import ContentStream, StreamingResponse
from starlette.types import Receive, Scope, Send

__all__ = ["CallerDisconnected", "CallerStream", "unless_disconnected"]

_T = TypeVar("_T")
_DISCONNECT = "http.disconnect"


class CallerDisconnected(Exception):
    """The caller closed its connection before its answer was complete.

    A signal for the proxy, not an error: nobody is left to tell.
    """


async def unless_disconnected(receive: Receive, work: Coroutine[Any, Any, _T]) -> _T:
    """Run `work` until it ends or the caller disconnects, whichever comes first.

    Call it once the request body has been read: every message left is the disconnect.

    Args:
        receive: The request's ASGI `receive`.
        work: What to do for the caller.

    Returns:
        What `work` returned (also when it finished just as the caller left: whoever sends
        it then finds the connection gone).

    Raises:
        CallerDisconnected: The caller left first; `work` was cancelled and has finished
            unwinding (its upstream response is closed).
    """
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait((task, watch), return_when=asyncio.FIRST_COMPLETED)
    finally:
        # Also when this request is itself cancelled (the server stopping): neither task
        # may outlive it.
        watch.cancel()
        task.cancel()
        await asyncio.wait((task, watch))
    if task.cancelled():
        raise CallerDisconnected
    return task.result()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != _DISCONNECT:
        pass  # the rest of a body nobody reads (the proxy reads it whole before this)


class CallerStream(StreamingResponse):
    """A streamed response that stops when the caller hangs up and always closes its body.

    Args:
        content: The body.
        status_code: The status.
        headers: The headers.
        on_close: Awaited once the body is closed, however the response ended: a body that
            never started (the caller left before its first byte) runs no `finally`, so
            what it holds is released here.
    """

    def __init__(
        self,
        content: ContentStream,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        *,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(content, status_code=status_code, headers=headers)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await unless_disconnected(receive, self.stream_response(send))
        except (CallerDisconnected, OSError):
            pass  # OSError: an ASGI 2.4 server's send() to a closed connection
        finally:
            close = getattr(self.body_iterator, "aclose", None)
            try:
                if close is not None:
                    await close()
            finally:
                if self._on_close is not None:
                    await self._on_close()
