"""One build of a model at a time: an exclusive lock file beside the model's cache folder.

The demo and the test suite may both ask for the model on a fresh machine; without the lock
both would download and convert it, and one would read the other's half-written folder.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolcall_sdk_demo._progress import Log, elapsed

__all__ = ["build_lock"]


@contextmanager
def build_lock(path: Path, log: Log, *, every: float = 15.0) -> Iterator[None]:
    """Hold an exclusive lock on `path`; while another process holds it, wait and say so.

    The lock is `flock`, so it is released when its holder dies, however it dies: a killed
    build never leaves a stale lock behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as handle:
        started = time.monotonic()
        said = -every
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - started - said >= every:
                    said = time.monotonic() - started
                    handle.seek(0)
                    holder = handle.read().strip() or "another process"
                    log(
                        f"waiting for {holder} to finish building this model "
                        f"({elapsed(started)}; lock {path})"
                    )
                time.sleep(1.0)
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
