"""The async client's openai clients, bound to one event loop at a time.

An httpx connection pool belongs to the event loop it first ran on: its connections are
that loop's transports. `asyncio.run()` closes its loop when it returns, so a client made
once (at module level, in a notebook) and used by a second `asyncio.run()` would reach
for a pooled connection of a closed loop and fail with "Event loop is closed".

`LoopClients` notes the loop its clients were last used on. On another loop it builds
the clients the SDK made itself anew; the old ones are dropped, not closed (closing a
connection needs the loop it belongs to, which is usually gone). Clients the user passed
(`http_client=`, `openai_client=`) cannot be rebuilt: used on another loop they raise
`InvalidArgumentError` before anything is sent, unless their transport holds no
connections (an `httpx2.MockTransport`, such as the scripted model's), which any loop
may use. The loop is held by a weak reference, so a loop that is gone is "another loop"
and is never kept alive by the client.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable

import httpx2
import openai

from toolcall_sdk._errors import InvalidArgumentError

__all__ = ["LoopClients"]

_Build = Callable[[], list[openai.AsyncOpenAI]]


class LoopClients:
    """The openai clients of an `AsyncToolCallClient`, for the event loop that runs now.

    Args:
        build: Makes the clients; called once here, and again on each new loop when
            `given` is None.
        given: The name of the user's argument the clients wrap (`"http_client"`,
            `"openai_client"`), None when the SDK made them and may make them again.
        http_client: The user's httpx client, when `given` names one: its transport says
            whether it holds connections bound to a loop.
    """

    __slots__ = ("_build", "_clients", "_given", "_loop", "_pooled")

    def __init__(
        self, build: _Build, *, given: str | None = None, http_client: object = None
    ) -> None:
        self._build = build
        self._given = given
        self._pooled = given is not None and _holds_connections(http_client)
        self._clients = build()
        self._loop: weakref.ref[asyncio.AbstractEventLoop] | None = None

    def current(self) -> list[openai.AsyncOpenAI]:
        """The clients to use on the running loop (built anew when the loop changed).

        Outside a running loop nothing is bound yet, and the clients are returned as they
        are: the loop that first sends a request binds them.

        Raises:
            InvalidArgumentError: The user's client holds connections of another loop.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self._clients
        if self._loop is not None and self._loop() is not loop:
            self._rebind()
        self._loop = weakref.ref(loop)
        return self._clients

    def closable(self) -> list[openai.AsyncOpenAI]:
        """The clients `close()` may close on the running loop: those bound to it, or to
        none yet. Connections of another loop cannot be closed from this one."""
        if self._loop is None:
            return self._clients
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return []
        return self._clients if self._loop() is loop else []

    def _rebind(self) -> None:
        if self._given is None:
            self._clients = self._build()
            return
        if self._pooled:
            raise InvalidArgumentError(
                f"this AsyncToolCallClient was given {self._given}=, whose pooled "
                "connections belong to the event loop it was first used on, and it is now "
                "used on another loop (each asyncio.run() starts a new one, and closes it at "
                "the end). A client you pass cannot be rebuilt for the new loop. Create the "
                f"AsyncToolCallClient and its {self._given} inside the loop that uses them "
                "(in the coroutine given to asyncio.run), or leave "
                f"{self._given}= out: the clients the SDK makes itself are rebuilt for each "
                "new loop"
            )


def _holds_connections(http_client: object) -> bool:
    # httpx has no public way to ask a client for its transport. A MockTransport answers
    # in-process and keeps no connection, so any loop may use it; anything else (or a
    # client whose insides moved) is taken to pool connections bound to a loop.
    transport = getattr(http_client, "_transport", None)
    return not isinstance(transport, httpx2.MockTransport)
