"""A process that appends entries to a shared traffic folder (for test_traffic_recorder.py).

Started with multiprocessing's `spawn`: it imports only this module and the recorder.
"""

from __future__ import annotations

from pathlib import Path
from threading import Barrier as ThreadBarrier
from typing import Any

from toolcall_sdk import TrafficRecorder

# About the size of a short recorded call, so a small `max_bytes` rotates often.
PADDING = "x" * 120


def entry(writer: str, number: int) -> dict[str, Any]:
    """The entry number `number` of `writer`: each one names who wrote it and when."""
    return {"version": 1, "writer": writer, "number": number, "padding": PADDING}


def write_entries(
    folder: Path, max_bytes: int, writer: str, count: int, start: Any | ThreadBarrier
) -> None:
    """Wait for every writer at `start`, then append `count` entries through one recorder."""
    recorder = TrafficRecorder(folder, max_bytes=max_bytes)
    start.wait()
    for number in range(count):
        recorder.record(entry(writer, number))
