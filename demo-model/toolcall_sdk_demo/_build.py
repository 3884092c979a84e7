"""Build a demo model once: fetch, verify, join, convert, under a lock; cached afterwards."""

from __future__ import annotations

import time
from pathlib import Path

from toolcall_sdk.launcher._demo_models import DemoModel
from toolcall_sdk_demo._cache import default_model_dir, model_root
from toolcall_sdk_demo._progress import Log, elapsed, print_log
from toolcall_sdk_demo._resources import check_disk, check_memory

__all__ = ["build_demo_model"]


def build_demo_model(
    model: DemoModel,
    out: Path | None = None,
    *,
    force: bool = False,
    keep_gguf: bool = True,
    log: Log = print_log,
) -> Path:
    """The converted folder of `model`, built first unless the cache holds it.

    Args:
        model: Which demo model (`toolcall_sdk.launcher._demo_models.demo_model(...)`).
        out: Target folder; the cache folder when None.
        force: Convert again even when the folder holds a finished conversion.
        keep_gguf: Keep the verified GGUF beside the folder (a later conversion then needs
            no download).
        log: Progress sink.

    Raises:
        DemoModelError: A hash mismatch, a full disk, too little memory, a missing package or
            an unreadable file, in one line that names what to do.
    """
    from toolcall_sdk_demo._convert import is_converted

    out = out or default_model_dir(model)
    if not force and is_converted(out, model):
        log(f"cached: {out}")
        return out
    root = model_root(model)
    from toolcall_sdk_demo._lock import build_lock

    with build_lock(root.with_name(root.name + ".lock"), log):
        if not force and is_converted(out, model):  # another process built it meanwhile
            log(f"cached: {out}")
            return out
        started = time.monotonic()
        log(f"building {model.title} into {out} (first use only; then cached)")
        check_disk(root, model.disk_gib, f"building {model.title}")
        from toolcall_sdk_demo._fetch import fetch_gguf

        gguf = fetch_gguf(model, root, log)
        check_memory(model.convert_memory_gib, f"converting {model.title}")
        from toolcall_sdk_demo._convert import convert

        convert(model, gguf, out, log)
        if not keep_gguf:
            gguf.unlink(missing_ok=True)
        log(f"built {model.title} in {elapsed(started)}")
    return out
