"""Progress lines for the stages of a build: what is happening, how long it has taken.

Lines go to a sink (stdout by default, flushed): the launcher relays them to the screen while
`launch --demo` waits, so every stage that takes more than a few seconds is visible.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Log", "elapsed", "heartbeat", "print_log"]

Log = Callable[[str], None]


def print_log(line: str) -> None:
    """The default sink: stdout, flushed at once (a pipe would hold lines back)."""
    print(line, flush=True)


def elapsed(started: float) -> str:
    """`1m05s` or `12s` since `started` (a `time.monotonic()` reading)."""
    seconds = int(time.monotonic() - started)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


@contextmanager
def heartbeat(log: Log, what: str, *, every: float = 15.0) -> Iterator[None]:
    """Say `what` now, then every `every` seconds with the time so far, until the block ends.

    For one long call that reports nothing itself (dequantising a model).
    """
    started = time.monotonic()
    log(f"{what} ...")
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            log(f"{what} ... {elapsed(started)}")

    thread = threading.Thread(target=beat, name="demo-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
