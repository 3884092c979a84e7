"""Refuse a build the machine cannot finish: too little free disk, too little memory.

Both are checked before the stage that needs them, so a full disk is one line at the start
and not a half-written file after minutes of work.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from toolcall_sdk.launcher._demo import available_memory_gib
from toolcall_sdk.launcher._demo_models import bytes_to_gib, gib
from toolcall_sdk_demo._cache import CACHE_ENV
from toolcall_sdk_demo._errors import DemoModelError

__all__ = ["check_disk", "check_memory"]


def check_disk(folder: Path, need_gib: float, what: str) -> None:
    """Raise `DemoModelError` when `folder`'s file system has less than `need_gib` free."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = bytes_to_gib(shutil.disk_usage(probe).free)
    if free < need_gib:
        raise DemoModelError(
            f"{what} needs {gib(need_gib)} free in {folder}, and only {gib(free)} is free: "
            f"free some space there, or set {CACHE_ENV} to a folder on a larger disk"
        )


def check_memory(need_gib: float, what: str, *, meminfo: Path = Path("/proc/meminfo")) -> None:
    """Raise `DemoModelError` when less than `need_gib` of memory is available."""
    free = available_memory_gib(meminfo)
    if free is not None and free < need_gib:
        raise DemoModelError(
            f"{what} needs about {gib(need_gib)} of memory, and only {gib(free)} is available: "
            "stop other programs (another vLLM server?) or use the smaller demo model (0.5b)"
        )
