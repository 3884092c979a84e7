"""`TrafficRecorder`: traffic entries appended to JSON Lines files in one folder.

Many threads and several processes may write to one folder at once. Each entry is one line,
written whole by a single `write` on a file opened `O_APPEND`, under an exclusive lock: a
lock per folder within the process, and `fcntl.flock` on `traffic.lock` in the folder across
processes. When `traffic.jsonl` would pass `max_bytes` it is renamed, under the same lock, to
`traffic-<UTC timestamp>-<n>.jsonl`, so no line is torn or lost across a rotation.

Where `fcntl` does not exist (Windows), only the in-process lock and `O_APPEND` remain: the
threads of one process are safe, several processes writing to one folder are not (lines of
two processes may interleave, and a rotation fails while another process holds the file).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from toolcall_sdk._errors import InvalidArgumentError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "CURRENT_FILE",
    "DEFAULT_MAX_BYTES",
    "Recorder",
    "Redact",
    "TrafficRecorder",
    "plain_json",
]

CURRENT_FILE = "traffic.jsonl"
_LOCK_FILE = "traffic.lock"
# A file a person can still open in an editor and a reader loads whole (the eval's reader
# reads one file at a time into memory); at ~2 KB an entry, some 30,000 calls a file.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
# The conversations are the users' words: readable by the owner only, like a private log.
_FILE_MODE = 0o600
_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)

Redact = Callable[[dict[str, Any]], "dict[str, Any] | None"]


def plain_json(value: Any) -> Any:
    """A JSON value for what `json` cannot write itself (found in users' messages)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return list(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return str(value)


# Built once: `json.dumps` with options builds an encoder on every call. ASCII (the default)
# so that no character splits a line for a reader that breaks on U+2028 or U+0085; no NaN,
# which is not JSON.
_LINE = json.JSONEncoder(separators=(",", ":"), allow_nan=False, default=plain_json)


class Recorder(Protocol):
    """What `record=` takes besides a folder: anything that stores one entry at a time.

    `record(entry)` gets each entry as a dict of JSON values (the format of
    docs/recording.md). It may raise: the client logs the error and the call goes on.
    """

    def record(self, entry: dict[str, Any]) -> None:
        """Store one entry."""


# One lock per folder for the whole process, whichever recorder writes: two clients given
# the same folder then queue here, with or without fcntl.
_FOLDER_LOCKS: dict[str, threading.Lock] = {}
_REGISTRY_LOCK = threading.Lock()


def _register_folder(key: str) -> None:
    with _REGISTRY_LOCK:
        _FOLDER_LOCKS.setdefault(key, threading.Lock())


def _fresh_locks_after_fork() -> None:
    # A lock another thread held at fork() stays held forever in the child, whose copy of
    # that thread does not exist: the child starts with free ones (recorders look theirs up
    # by folder at each write, so those made before the fork get the new one too).
    global _REGISTRY_LOCK
    _REGISTRY_LOCK = threading.Lock()
    for key in _FOLDER_LOCKS:
        _FOLDER_LOCKS[key] = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_locks_after_fork)


class TrafficRecorder:
    """Append traffic entries to `traffic.jsonl` in `folder`, rotating it by size.

    Safe under many threads and several processes writing to one folder: each entry is
    one line written whole by one `write` on a file opened `O_APPEND`, under an exclusive
    lock (a per-folder thread lock, and `fcntl.flock` on `traffic.lock` in the folder).
    When the file would pass `max_bytes`, it is renamed under the lock to
    `traffic-<UTC timestamp>-<n>.jsonl` (`n` counts the rotations of that second from
    0001, so the names sort in the order the files were filled) and a new one begun; an
    entry larger than `max_bytes` gets a file of its own. On platforms without `fcntl`
    (Windows) only the thread lock and `O_APPEND` remain: the threads of one process are
    safe, several processes sharing a folder are not.

    Lines are ASCII JSON (other characters escaped), so a reader that splits on any line
    break (`str.splitlines`) still sees whole entries. Files are created readable by their
    owner only: they hold the users' conversations.

    Args:
        folder: Where the files go; created if missing.
        max_bytes: The size past which the current file is rotated (default 64 MiB).
        redact: Called with each entry (a dict of JSON values) before it is written;
            returns the entry to write (changed or not), or None to drop it.

    Raises:
        InvalidArgumentError: `max_bytes` is not a positive int, `redact` is not callable,
            or the folder cannot be created.
    """

    __slots__ = ("_current", "_folder", "_lock_key", "_lock_path", "max_bytes", "redact")

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        redact: Redact | None = None,
    ) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise InvalidArgumentError(f"max_bytes must be a positive int (got {max_bytes!r})")
        if redact is not None and not callable(redact):
            raise InvalidArgumentError(
                "redact must be a function taking the entry dict and returning it (or None "
                f"to drop it) (got {redact!r})"
            )
        path = Path(folder)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidArgumentError(
                f"the traffic folder {str(path)!r} cannot be created: {exc}; give record= a "
                "folder this process may write to"
            ) from exc
        self._folder = path
        self._current = path / CURRENT_FILE
        self._lock_path = path / _LOCK_FILE
        self._lock_key = os.path.realpath(path)
        _register_folder(self._lock_key)
        self.max_bytes = max_bytes
        self.redact = redact

    @property
    def folder(self) -> Path:
        """The folder the files are written to."""
        return self._folder

    @property
    def path(self) -> Path:
        """The file entries are appended to now (`traffic.jsonl`)."""
        return self._current

    def __repr__(self) -> str:
        return f"TrafficRecorder({str(self._folder)!r}, max_bytes={self.max_bytes})"

    def record(self, entry: dict[str, Any]) -> None:
        """Redact `entry`, then append it as one line.

        Raises:
            OSError: The file could not be written (the client logs it and goes on).
            ValueError: The entry holds a value JSON cannot represent (NaN, a circle).
        """
        if self.redact is not None:
            kept = self.redact(entry)
            if kept is None:
                return
            entry = kept
        self._append((_LINE.encode(entry) + "\n").encode("ascii"))

    def _append(self, data: bytes) -> None:
        with _FOLDER_LOCKS[self._lock_key]:
            if fcntl is None:  # pragma: no cover - Windows
                self._write(data)
                return
            # Opened per write, not kept: a descriptor inherited across fork() would share
            # its lock with the parent, and the lock must exclude the parent too.
            lock_fd = os.open(self._lock_path, _LOCK_FLAGS, _FILE_MODE)
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX)
                self._write(data)
            finally:
                os.close(lock_fd)  # releases the flock

    def _write(self, data: bytes) -> None:
        # The current file is opened by name each time: another process may have rotated
        # the one this process wrote to last.
        fd = os.open(self._current, _OPEN_FLAGS, _FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            if size and size + len(data) > self.max_bytes:
                os.close(fd)
                fd = -1
                os.rename(self._current, self._rotated_name())
                fd = os.open(self._current, _OPEN_FLAGS, _FILE_MODE)
            written = os.write(fd, data)
            while written < len(data):  # a regular file takes it whole, but a short write
                written += os.write(fd, data[written:])  # must not lose the rest
        finally:
            if fd >= 0:
                os.close(fd)

    def _rotated_name(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        number = 1
        while True:
            candidate = self._folder / f"traffic-{stamp}-{number:04d}.jsonl"
            if not candidate.exists():  # under the lock: no writer takes it meanwhile
                return candidate
            number += 1
