"""Serving the proxy: `serve_proxy` (blocking, for the CLI) and `serve_in_thread` (tests)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Unpack

import uvicorn
from starlette.applications import Starlette

from toolcall_sdk.proxy._app import create_app
from toolcall_sdk.proxy._options import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    ProxyConfigError,
    ProxyOptions,
    is_loopback,
)

__all__ = ["check_bind", "serve_in_thread", "serve_proxy"]

# How long `serve_in_thread` waits for uvicorn to start before giving up.
_STARTUP_TIMEOUT_S = 30.0
_STARTUP_POLL_S = 0.01
# TCP's ports. Port 0 (any free port) is refused: callers could not find the proxy
# (`serve_in_thread` takes a free port and says which).
_MIN_PORT, _MAX_PORT = 1, 65535


def check_bind(host: str, api_key: str | None, port: int = DEFAULT_PORT) -> None:
    """Check where the proxy would listen, before anything starts.

    Raises:
        ProxyConfigError: `port` is not 1-65535, `host` is empty, or `host` is not loopback
            and there is no `api_key`.
    """
    # Checked here: uvicorn would fail on them only once started, with a traceback.
    if not isinstance(port, int) or isinstance(port, bool) or not _MIN_PORT <= port <= _MAX_PORT:
        raise ProxyConfigError(f"--port must be between {_MIN_PORT} and {_MAX_PORT} (got {port!r})")
    if not host.strip():
        raise ProxyConfigError("--host must not be empty: give an address, e.g. 127.0.0.1")
    if api_key is None and not is_loopback(host):
        raise ProxyConfigError(
            f"--host {host} exposes the proxy beyond this machine: give --api-key KEY "
            "(callers then send Authorization: Bearer KEY), or bind 127.0.0.1"
        )


def serve_proxy(
    upstream: str | Sequence[str],
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    log_level: str = "info",
    **options: Unpack[ProxyOptions],
) -> None:
    """Run the proxy until interrupted (Ctrl-C).

    Args:
        upstream: The upstream's `/v1` URL, or several.
        host: The address to bind; anything but loopback needs `api_key`.
        port: The port.
        log_level: uvicorn's log level.
        **options: See `ProxyOptions`.

    Raises:
        ProxyConfigError: Invalid options (a port outside 1-65535, an unknown log level
            ...), or a non-loopback `host` without `api_key`.
    """
    check_bind(host, options.get("api_key"), port)
    log_level = log_level.lower()
    if log_level not in uvicorn.config.LOG_LEVELS:
        raise ProxyConfigError(
            f"--log-level must be one of {', '.join(uvicorn.config.LOG_LEVELS)} (got {log_level!r})"
        )
    app = create_app(upstream, **options)
    # The upstream's own Date and Server headers are relayed on pass-through; uvicorn's
    # would double them.
    uvicorn.run(
        app, host=host, port=port, log_level=log_level, server_header=False, date_header=False
    )


@contextlib.contextmanager
def serve_in_thread(app: Starlette, *, host: str = DEFAULT_HOST) -> Iterator[str]:
    """Serve `app` with uvicorn in a background thread on a free port, until the block exits.

    Meant for tests and benchmarks: point any OpenAI client at the URL it yields.

    Args:
        app: From `create_app`.
        host: The loopback address to bind.

    Yields:
        The proxy's base URL, `http://127.0.0.1:PORT/v1`.

    Raises:
        RuntimeError: uvicorn did not start within 30 seconds.
    """
    # IPPROTO_TCP spelled out: asyncio switches Nagle off only on sockets whose protocol
    # says TCP, and without that every small response waits for a delayed ACK (~40 ms).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", server_header=False, date_header=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listener]}, name=f"proxy :{port}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + _STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            listener.close()
            raise RuntimeError("the proxy did not start; see uvicorn's log above")
        time.sleep(_STARTUP_POLL_S)
    try:
        yield f"http://{host}:{port}/v1"
    finally:
        server.should_exit = True
        thread.join()
        listener.close()
