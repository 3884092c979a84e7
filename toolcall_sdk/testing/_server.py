"""Carry out a `ServerAction` over real HTTP: a threaded server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ._core import ScriptCore, ServerAction

__all__ = ["serve"]

_POLL_INTERVAL = 0.05
"""How often `serve_forever` checks for shutdown; the default 0.5 s would slow every test."""


class _ScriptServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 resets connections when many clients connect at
    # once (an async client opening its pool for hundreds of concurrent calls).
    request_queue_size = 1024

    def __init__(self, core: ScriptCore, port: int = 0) -> None:
        self.core = core
        self.stopping = threading.Event()
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (getfqdn), which can take seconds
        # on machines without DNS; the name is never used here.
        socketserver.TCPServer.server_bind(self)
        self.server_name = "127.0.0.1"
        self.server_port = self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeouts, closed pools) is normal here, not worth a traceback.
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        """Ends idle keep-alive connections, whose threads would otherwise block exit."""
        with self._open_lock:
            connections = list(self._open)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, each response would wait
    # for the client's delayed ACK (about 40 ms on Linux loopback).
    disable_nagle_algorithm = True
    server: _ScriptServer

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Keeps test output clean; `ScriptedModel.requests` is the log."""

    def _serve(self) -> None:
        body = self._read_body()
        headers: dict[str, str] = {}
        for key, value in self.headers.items():
            key = key.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        action = self.server.core.handle(self.command, self.path, headers, body)
        # Waiting on the event lets the server stop at once, even mid-delay.
        if (action.delay and self.server.stopping.wait(action.delay)) or action.disconnect:
            self._drop()
            return
        try:
            self._write(action)
        except OSError:  # the client hung up (e.g. it timed out); nobody left to answer
            self.close_connection = True

    def _read_body(self) -> bytes:
        if "chunked" not in self.headers.get("transfer-encoding", "").lower():
            length = int(self.headers.get("content-length") or 0)
            return self.rfile.read(length) if length else b""
        # httpx sends iterator bodies chunked; leaving them unread would corrupt the next
        # request on this keep-alive connection.
        parts: list[bytes] = []
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return b"".join(parts)

    def _write(self, action: ServerAction) -> None:
        self.send_response(action.status)
        for key, value in action.headers:
            self.send_header(key, value)
        if action.events is None and not action.pace:
            self.send_header("Content-Length", str(len(action.body)))
            self.end_headers()
            self.wfile.write(action.body[: action.cut])  # cut: fewer bytes than announced
            if action.cut is not None:
                self._drop()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for piece in _pieces(action):
                # One HTTP chunk per event (or paced piece), flushed: a real stream.
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                if action.pace and self.server.stopping.wait(action.pace):
                    return  # the server is stopping: leave the client a cut stream
            if action.cut is not None:
                self._drop()  # no closing chunk: the body ends mid-stream
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            self.close_connection = True  # the client stopped reading (a deadline, a test)

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _pieces(action: ServerAction) -> Iterator[bytes]:
    left = action.cut
    for piece in _all_pieces(action):
        if left is None:
            yield piece
            continue
        if piece[:left]:
            yield piece[:left]
        left -= min(left, len(piece))
        if not left:
            return


def _all_pieces(action: ServerAction) -> Iterator[bytes]:
    parts = action.events if action.events is not None else (action.body,)
    for part in parts:
        if action.piece:
            for start in range(0, len(part), action.piece):
                yield part[start : start + action.piece]
        else:
            yield part
    while action.repeat is not None:
        yield action.repeat


@contextlib.contextmanager
def serve(core: ScriptCore, port: int = 0) -> Iterator[str]:
    """Serves `core` on 127.0.0.1 until the block exits.

    Args:
        core: The script core.
        port: The port; 0 takes a free one.

    Yields:
        The base URL, `http://127.0.0.1:PORT/v1`.
    """
    server = _ScriptServer(core, port)
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": _POLL_INTERVAL},
        name=f"ScriptedModel server :{server.server_port}",
        daemon=True,
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.stopping.set()
        server.shutdown()
        server.drop_connections()
        server.server_close()  # joins the connection threads
        thread.join()
