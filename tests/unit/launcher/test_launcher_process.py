"""Starting, watching and stopping the server, against a fake vLLM (a tiny HTTP server).

The fake takes the same arguments as `python -m vllm.entrypoints.openai.api_server`
(`--model`, `--host`, `--port`, ...), records them, and behaves as `FAKE_MODE` says.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import (
    COMMAND_ENV,
    ServerExitedError,
    ServerStartTimeout,
    serve,
)
from toolcall_sdk.launcher._cli import run_launch
from toolcall_sdk.launcher._process import free_port

FAKE_VLLM = r"""
import json, os, signal, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer

args = sys.argv[1:]
def option(name):
    return args[args.index(name) + 1]

if os.environ.get("FAKE_RECORD"):
    with open(os.environ["FAKE_RECORD"], "w") as f:
        json.dump({"argv": args, "api_key": os.environ.get("VLLM_API_KEY"), "pid": os.getpid()}, f)
mode = os.environ.get("FAKE_MODE", "ok")
print("INFO fake vLLM starting", flush=True)
time.sleep(float(os.environ.get("FAKE_DELAY", "0.05")))
if mode == "exit":
    print(os.environ.get("FAKE_MESSAGE", "boom"), flush=True)
    sys.exit(int(os.environ.get("FAKE_EXIT", "1")))
if mode == "ignore_term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

healthy_since = []

class Health(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()
        healthy_since.append(time.monotonic())
    def log_message(self, *args):
        pass

server = HTTPServer((option("--host"), int(option("--port"))), Health)
print("INFO ready", flush=True)
if mode == "serve_then_exit":  # leave FAKE_LIFETIME seconds after the first /health
    server.timeout = 0.05
    lifetime = float(os.environ.get("FAKE_LIFETIME", "0.2"))
    while not healthy_since or time.monotonic() < healthy_since[0] + lifetime:
        server.handle_request()
    print("INFO leaving on my own", flush=True)
    sys.exit(0)
# Never outlive a test that lost track of it: a hang would stall the whole suite.
server.timeout = 0.2
deadline = time.monotonic() + float(os.environ.get("FAKE_MAX_LIFETIME", "120"))
while time.monotonic() < deadline:
    server.handle_request()
print("INFO fake vLLM outlived its test", flush=True)
sys.exit(3)
"""

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


@pytest.fixture
def fake_vllm(tmp_path: Path) -> list[str]:
    script = tmp_path / "fake_vllm.py"
    script.write_text(FAKE_VLLM, encoding="utf-8")
    return [sys.executable, str(script)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_serve_waits_for_health_and_stops_on_exit(fake_vllm: list[str], tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    log = tmp_path / "vllm.log"

    with serve(
        "Qwen/Qwen2.5-7B-Instruct",
        command=fake_vllm,
        api_key="s3cr3t",
        log_path=log,
        poll_interval=0.05,
        env={"FAKE_RECORD": str(record)},
    ) as server:
        assert server.is_healthy()
        assert server.running
        port = server.plan.port
        assert server.base_url == f"http://127.0.0.1:{port}/v1"
        assert server.model == "Qwen/Qwen2.5-7B-Instruct"
        seen = json.loads(record.read_text())

    assert server.process.returncode is not None
    assert not server.is_healthy()
    assert seen["argv"][:4] == [
        "--model",
        "Qwen/Qwen2.5-7B-Instruct",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
    ]
    assert "s3cr3t" not in seen["argv"]  # the key travels in the environment
    assert seen["api_key"] == "s3cr3t"
    text = log.read_text()
    assert "INFO fake vLLM starting" in text
    assert "--api-key ****" in text
    assert "s3cr3t" not in text


def test_early_exit_reports_the_log_tail_and_cause(fake_vllm: list[str], tmp_path: Path) -> None:
    with (
        pytest.raises(ServerExitedError) as caught,
        serve(
            "Qwen/Qwen2.5-7B-Instruct",
            command=fake_vllm,
            log_path=tmp_path / "vllm.log",
            poll_interval=0.05,
            env={"FAKE_MODE": "exit", "FAKE_MESSAGE": OOM, "FAKE_EXIT": "3"},
        ),
    ):
        pytest.fail("the server must not be yielded")

    error = caught.value
    assert error.returncode == 3
    assert OOM in error.log_tail
    assert error.diagnosis is not None
    assert error.diagnosis.cause.key == "out_of_memory"
    assert "--max-model-len" in str(error)


def test_startup_timeout_stops_the_server(fake_vllm: list[str], tmp_path: Path) -> None:
    record = tmp_path / "record.json"

    with (
        pytest.raises(ServerStartTimeout, match="did not answer"),
        serve(
            "Qwen/Qwen2.5-7B-Instruct",
            command=fake_vllm,
            log_path=tmp_path / "vllm.log",
            startup_timeout=0.3,
            poll_interval=0.05,
            env={"FAKE_DELAY": "30", "FAKE_RECORD": str(record)},
        ),
    ):
        pytest.fail("the server must not be yielded")

    assert not _alive(json.loads(record.read_text())["pid"])


def test_a_server_ignoring_sigterm_is_killed_after_the_grace_period(
    fake_vllm: list[str], tmp_path: Path
) -> None:
    with serve(
        "Qwen/Qwen2.5-7B-Instruct",
        command=fake_vllm,
        log_path=tmp_path / "vllm.log",
        poll_interval=0.05,
        stop_timeout=0.2,
        env={"FAKE_MODE": "ignore_term"},
    ) as server:
        pass

    assert server.process.returncode == -signal.SIGKILL


def test_port_in_use_is_refused_before_starting(fake_vllm: list[str], tmp_path: Path) -> None:
    from toolcall_sdk.launcher import PortInUseError

    with (
        serve(
            "Qwen/Qwen2.5-7B-Instruct",
            command=fake_vllm,
            log_path=tmp_path / "a.log",
            poll_interval=0.05,
        ) as first,
        pytest.raises(PortInUseError, match=str(first.plan.port)),
        serve(
            "Qwen/Qwen2.5-7B-Instruct",
            command=fake_vllm,
            port=first.plan.port,
            log_path=tmp_path / "b.log",
        ),
    ):
        pytest.fail("the second server must not start")


def test_cli_launch_prints_url_and_snippet(fake_vllm: list[str], tmp_path: Path) -> None:
    port = free_port()
    result = CliRunner().invoke(
        app,
        [
            "launch",
            "Qwen/Qwen2.5-7B-Instruct",
            "--port",
            str(port),
            "--log-file",
            str(tmp_path / "vllm.log"),
        ],
        env={
            COMMAND_ENV: " ".join(fake_vllm),
            "FAKE_MODE": "serve_then_exit",
        },
    )

    assert result.exit_code == 0, result.output
    assert f"vLLM is ready: http://127.0.0.1:{port}/v1" in result.stdout
    assert "from toolcall_sdk import ToolCallClient" in result.stdout
    assert f'base_url="http://127.0.0.1:{port}/v1",' in result.stdout
    assert 'model="Qwen/Qwen2.5-7B-Instruct",' in result.stdout
    assert "tools=[...]" in result.stdout
    assert "exited on its own" in result.stderr


def test_cli_early_exit_shows_tail_and_cause(fake_vllm: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "launch",
            "Qwen/Qwen2.5-7B-Instruct",
            "--port",
            str(free_port()),
            "--log-file",
            str(tmp_path / "vllm.log"),
        ],
        env={
            COMMAND_ENV: " ".join(fake_vllm),
            "FAKE_MODE": "exit",
            "FAKE_DELAY": "0",
            "FAKE_MESSAGE": "OSError: [Errno 98] Address already in use",
        },
    )

    assert result.exit_code == 1
    assert "exited with status 1 before it was ready" in result.stderr
    assert "OSError: [Errno 98] Address already in use" in result.stderr
    assert "The port is already taken" in result.stderr
    assert "--port" in result.stderr


# The fake server's own bound (FAKE_MAX_LIFETIME's default): resending longer is useless.
_FAKE_LIFETIME_S = 120


class _SignalWhenReady(io.StringIO):
    """Standard output that sends a signal to this process once the server is ready,
    as a user pressing Ctrl-C (or a supervisor sending SIGTERM) would.

    A signal that lands while Python runs a finaliser is swallowed there ("Exception
    ignored in ..."), so a watcher sends it again each second until the launch returns,
    as a user would press Ctrl-C again: for as long as the fake server lives, because on
    a loaded machine ten tries once were not enough (the fake outlived its test, exit 3).
    """

    def __init__(self, signum: signal.Signals) -> None:
        super().__init__()
        self.signum = signum
        self.returned = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.startswith("vLLM is ready"):
            os.kill(os.getpid(), self.signum)
            threading.Thread(target=self._again, daemon=True).start()
        return written

    def _again(self) -> None:
        for _ in range(_FAKE_LIFETIME_S):
            if self.returned.wait(1.0):
                return
            os.kill(os.getpid(), self.signum)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_cli_forwards_ctrl_c_and_sigterm_and_shuts_down(
    fake_vllm: list[str], tmp_path: Path, signum: signal.Signals
) -> None:
    record = tmp_path / "record.json"
    out = _SignalWhenReady(signum)
    err = Console(file=io.StringIO(), width=200)
    previous = signal.getsignal(signal.SIGTERM)

    code = run_launch(
        "Qwen/Qwen2.5-7B-Instruct",
        port=free_port(),
        vllm_command=" ".join(fake_vllm),
        log_file=str(tmp_path / "vllm.log"),
        out=out,
        err=err,
        env={"FAKE_RECORD": str(record)},
    )
    out.returned.set()

    assert code == 0
    assert "vLLM is ready" in out.getvalue()
    assert "vLLM stopped." in err.file.getvalue()  # type: ignore[attr-defined]
    assert not _alive(json.loads(record.read_text())["pid"])
    assert signal.getsignal(signal.SIGTERM) is previous


def test_cli_snippet_holds_hidden_size_with_prompt_embeds(
    fake_vllm: list[str], tmp_path: Path
) -> None:
    model_dir = tmp_path / "tiny"
    model_dir.mkdir()
    (model_dir / "config.json").write_text(json.dumps({"hidden_size": 256}))
    port = free_port()
    result = CliRunner().invoke(
        app,
        [
            "launch",
            str(model_dir),
            "--tool-call-parser",
            "hermes",
            "--enable-prompt-embeds",
            "--port",
            str(port),
            "--log-file",
            str(tmp_path / "vllm.log"),
        ],
        env={COMMAND_ENV: " ".join(fake_vllm), "FAKE_MODE": "serve_then_exit"},
    )

    assert result.exit_code == 0, result.output
    assert "    hidden_size=256,  # prompt embeddings are checked against it" in result.stdout
    assert "trusted clients only" in result.stderr


def test_ctrl_c_stops_the_server_even_when_sigint_was_ignored_before(
    fake_vllm: list[str], tmp_path: Path
) -> None:
    # An embedding application (or a library) may have replaced Python's SIGINT handler.
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = run_launch(
            "Qwen/Qwen2.5-7B-Instruct",
            port=free_port(),
            vllm_command=" ".join(fake_vllm),
            log_file=str(tmp_path / "vllm.log"),
            out=_SignalWhenReady(signal.SIGINT),
            err=Console(file=io.StringIO(), width=200),
            env={"FAKE_RECORD": str(tmp_path / "record.json")},
        )
        assert code == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # restored afterwards
    finally:
        signal.signal(signal.SIGINT, before)
