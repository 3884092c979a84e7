"""The sync client's socket watchdog: a due watch shuts its socket, a cancelled one never."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from toolcall_sdk._watchdog import socket_of, watch


class _Stream:
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def get_extra_info(self, info: str) -> Any:
        return self._sock if info == "socket" else None


class _Response:
    def __init__(self, sock: socket.socket) -> None:
        self.extensions = {"network_stream": _Stream(sock)}


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    left, right = socket.socketpair()
    yield left, right
    left.close()
    right.close()


def test_a_due_watch_ends_a_blocked_read(pair: tuple[socket.socket, socket.socket]) -> None:
    left, _ = pair
    guard = watch(_Response(left), 0.0)
    assert guard is not None
    assert left.recv(10) == b""  # the read blocked until the watchdog shut the socket
    assert guard.fired


def test_a_cancelled_watch_leaves_the_socket_alone(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    left, right = pair
    guard = watch(_Response(left), 3600.0)
    assert guard is not None
    guard.cancel()
    right.sendall(b"ok")
    assert left.recv(10) == b"ok"
    assert not guard.fired


def test_nothing_is_watched_without_a_deadline_or_a_socket(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    assert watch(_Response(pair[0]), None) is None
    assert watch(object(), 1.0) is None
    assert socket_of(object()) is None
