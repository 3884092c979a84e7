"""`./scripts/demo.sh --stop`: it stops exactly the server a `--keep` run left, nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "scripts" / "demo.sh"
PORT = "8765"


def _stop(state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(state), "TOOLCALL_DEMO_PORT": PORT}
    return subprocess.run(
        ["bash", str(DEMO), "--stop"], capture_output=True, text=True, env=env, timeout=120
    )


def _pidfile(state: Path) -> Path:
    return state / "toolcall-sdk" / f"demo-{PORT}.pid"


def _spawn(*argv: str) -> subprocess.Popen[bytes]:
    # A stand-in whose command line reads like the launcher's (or not), and that ends on TERM.
    code = (
        "import signal, sys, time; "
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0)); time.sleep(60)"
    )
    return subprocess.Popen([sys.executable, "-c", code, *argv])


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc (Linux)")
def test_stop_ends_the_kept_launcher_and_removes_its_pidfile(tmp_path: Path) -> None:
    launcher = _spawn("toolcall-sdk", "launch", "--demo", "0.5b", "--port", PORT)
    bystander = _spawn("something", "else")
    try:
        _pidfile(tmp_path).parent.mkdir(parents=True)
        _pidfile(tmp_path).write_text(f"{launcher.pid}\n")
        time.sleep(0.3)  # the stand-ins are running

        done = _stop(tmp_path)

        assert done.returncode == 0, done.stderr
        assert launcher.wait(timeout=30) == 0  # it got SIGTERM and ended
        assert bystander.poll() is None  # nothing else was touched
        assert not _pidfile(tmp_path).exists()
        assert f"stopping the demo server on port {PORT} (pid {launcher.pid})" in done.stdout
    finally:
        for process in (launcher, bystander):
            process.kill()
            process.wait()


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc (Linux)")
def test_a_pidfile_naming_another_program_stops_nothing(tmp_path: Path) -> None:
    other = _spawn("an", "unrelated", "program")  # the pid was reused after a crash
    try:
        _pidfile(tmp_path).parent.mkdir(parents=True)
        _pidfile(tmp_path).write_text(f"{other.pid}\n")

        done = _stop(tmp_path)

        assert done.returncode == 0, done.stderr
        assert other.poll() is None
        assert not _pidfile(tmp_path).exists()
        assert done.stdout.strip() == (
            f"demo.sh: process {other.pid} is no longer the demo server; removing the stale "
            f"{_pidfile(tmp_path)}"
        )
    finally:
        other.kill()
        other.wait()


def test_stop_without_a_kept_server_says_so(tmp_path: Path) -> None:
    done = _stop(tmp_path)
    assert done.returncode == 0
    assert done.stdout.strip() == (
        f"demo.sh: no demo server was left running on port {PORT} (no {_pidfile(tmp_path)})"
    )
