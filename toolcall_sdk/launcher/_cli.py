"""What `toolcall-sdk launch` does; the command's options are declared in `toolcall_sdk.cli`.

Standard output gets what a user copies (the dry-run command, the base URL and the client
snippet); standard error gets progress, warnings and diagnoses.
"""

from __future__ import annotations

import contextlib
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from types import FrameType
from typing import TextIO, Unpack

from rich.console import Console
from rich.text import Text

from toolcall_sdk._console import cli_console, plain
from toolcall_sdk.embeds._model import hidden_size_of
from toolcall_sdk.launcher._command import (
    DEFAULT_GPU_MEMORY_UTILIZATION,
    DEFAULT_HOST,
    DEFAULT_MAX_MODEL_LEN,
    DEFAULT_PORT,
    LaunchPlan,
    plan_launch,
)
from toolcall_sdk.launcher._diagnosis import Diagnosis, diagnose, read_log_tail
from toolcall_sdk.launcher._errors import (
    LaunchError,
    ParallelLayoutError,
    ServerExitedError,
    ServerStartError,
    UnknownModelFamilyError,
)
from toolcall_sdk.launcher._parallel import ParallelOptions
from toolcall_sdk.launcher._process import DEFAULT_STARTUP_TIMEOUT, Server, start_server
from toolcall_sdk.launcher._snippet import client_snippet

__all__ = ["run_launch"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2  # the command line cannot be turned into a server command
# Seconds between the plain "Waiting for ..." lines when stderr is not a terminal.
_PLAIN_PROGRESS_EVERY = 15.0


class _Terminated(Exception):
    """SIGTERM or SIGHUP arrived: stop the server like on Ctrl-C."""


def run_launch(
    model: str,
    *,
    extra_args: Sequence[str] = (),
    family: str | None = None,
    tool_call_parser: str | None = None,
    tool_parser_plugin: str | None = None,
    chat_template: str | None = None,
    reasoning_parser: str | None = None,
    max_model_len: int | None = DEFAULT_MAX_MODEL_LEN,
    gpu_memory_utilization: float | None = DEFAULT_GPU_MEMORY_UTILIZATION,
    port: int = DEFAULT_PORT,
    host: str = DEFAULT_HOST,
    api_key: str | None = None,
    served_model_name: str | None = None,
    enable_prompt_embeds: bool = False,
    compact_json: bool | None = None,
    vllm_command: str | None = None,
    templates_dir: str | None = None,
    dry_run: bool = False,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    log_file: str | None = None,
    env: Mapping[str, str] | None = None,
    out: TextIO | None = None,
    err: Console | None = None,
    **parallel: Unpack[ParallelOptions],
) -> int:
    """Plan, then print or run, a vLLM server for a model.

    Args:
        model: Model id or local directory.
        extra_args: vLLM arguments given after `--`.
        family: A registry family name instead of detection.
        tool_call_parser: Parser override.
        tool_parser_plugin: A `--tool-parser-plugin` file.
        chat_template: Chat template override (`none` for none).
        reasoning_parser: Reasoning parser override (`none` for none).
        max_model_len: `--max-model-len`, None for vLLM's default.
        gpu_memory_utilization: `--gpu-memory-utilization`, None for vLLM's default.
        port: Port.
        host: Bind address.
        api_key: API key clients must send (masked in all output).
        served_model_name: `--served-model-name`.
        enable_prompt_embeds: Add `--enable-prompt-embeds`.
        compact_json: Whitespace-free JSON grammars; None lets the vLLM version decide.
        vllm_command: The command that starts vLLM, in shell syntax.
        templates_dir: A folder holding vLLM's example chat templates.
        dry_run: Print the command and return.
        startup_timeout: Seconds to wait for `/health`.
        log_file: Where the server's output goes.
        env: Extra environment variables for the server.
        out: Where copyable output goes; standard output by default.
        err: Console for progress and diagnoses; standard error by default.
        **parallel: The parallel layout (`ParallelOptions`, docs/scaling.md).

    Returns:
        The exit status.
    """
    # Plain writes for what users copy: Rich would wrap, crop or render markup in it.
    out = out or sys.stdout
    err = err or cli_console(stderr=True, soft_wrap=True)
    try:
        plan = plan_launch(
            model,
            family=family,
            tool_call_parser=tool_call_parser,
            tool_parser_plugin=tool_parser_plugin,
            chat_template=chat_template,
            reasoning_parser=reasoning_parser,
            max_model_len=max_model_len,
            gpu_memory_utilization=gpu_memory_utilization,
            port=port,
            host=host,
            api_key=api_key,
            served_model_name=served_model_name,
            enable_prompt_embeds=enable_prompt_embeds,
            compact_json=compact_json,
            extra_args=extra_args,
            command=vllm_command,
            templates_dir=templates_dir,
            **parallel,
        )
    except (UnknownModelFamilyError, ParallelLayoutError) as exc:
        _error(err, str(exc))
        return EXIT_USAGE
    if plan.family is not None:
        err.print(
            Text(f"{plan.family.title} ({plan.family.name}): ", style="bold")
            + Text(plan.family.notes)
        )
    for warning in plan.warnings:
        err.print(Text("warning: ", style="yellow bold") + Text(warning))
    if dry_run:
        # The environment the server needs goes in front, so the line runs when pasted.
        assignments = [f"{key}={shlex.quote(value)}" for key, value in (env or {}).items()]
        print(" ".join([*assignments, plan.display()]), file=out, flush=True)
        return EXIT_OK
    return _run(plan, out, err, startup_timeout=startup_timeout, log_file=log_file, env=env)


def _run(
    plan: LaunchPlan,
    out: TextIO,
    err: Console,
    *,
    startup_timeout: float,
    log_file: str | None,
    env: Mapping[str, str] | None,
) -> int:
    try:
        server = start_server(plan, log_path=log_file, env=env)
    except LaunchError as exc:
        _error(err, str(exc))
        return EXIT_FAILED
    err.print(Text("command: ", style="bold") + Text(plan.display()))
    err.print(Text("log: ", style="bold") + Text(str(server.log_path)))
    with _signals_raise():
        try:
            return _supervise(server, out, err, startup_timeout)
        except (KeyboardInterrupt, _Terminated):
            err.print("Stopping vLLM...")
            with _signals_kill(server):
                server.stop()
            err.print("vLLM stopped.")
            return EXIT_OK
        finally:
            with _signals_kill(server):
                server.stop()


def _supervise(server: Server, out: TextIO, err: Console, startup_timeout: float) -> int:
    plan = server.plan
    if plan.headless:
        return _supervise_headless(server, err)
    try:
        with err.status(Text(f"Starting vLLM for {plan.model}...")) as status:
            said = [0.0]

            def progress(elapsed: float) -> None:
                line = f"Waiting for {plan.health_url} ({elapsed:.0f}s; log: {server.log_path})"
                status.update(Text(line))
                # Without a terminal the spinner draws nothing: a plain line now and then.
                if not err.is_terminal and elapsed - said[0] >= _PLAIN_PROGRESS_EVERY:
                    said[0] = elapsed
                    err.print(line, markup=False, highlight=False)

            server.wait_ready(startup_timeout, on_wait=progress)
    except ServerStartError as exc:
        if isinstance(exc, ServerExitedError):
            _error(err, f"vLLM exited with status {exc.returncode} before it was ready.")
        else:
            _error(err, str(exc))
        _print_tail(err, exc.log_tail, server)
        _print_diagnosis(err, exc.diagnosis, server)
        return EXIT_FAILED
    # With --enable-prompt-embeds the client should know the width it checks tensors against.
    embeds = "--enable-prompt-embeds" in plan.argv
    snippet = client_snippet(
        server.base_url,
        server.model,
        api_key=plan.api_key is not None,
        hidden_size=hidden_size_of(plan.model) if embeds else None,
    )
    print(f"vLLM is ready: {server.base_url}  (model: {server.model})", file=out)
    print(f"\n{snippet}\n", file=out, flush=True)
    err.print("Press Ctrl-C to stop the server.")
    return _wait_for_exit(server, err)


def _supervise_headless(server: Server, err: Console) -> int:
    """A worker node: engines only, no /health to wait for and no client to print."""
    err.print(
        plain(
            f"vLLM runs headless for {server.plan.model}: engines only, no API server on this "
            "node; clients use the head node's. Press Ctrl-C to stop it."
        )
    )
    return _wait_for_exit(server, err)


def _wait_for_exit(server: Server, err: Console) -> int:
    returncode = server.process.wait()
    server.stop()
    _error(err, f"vLLM exited on its own with status {returncode}.")
    _print_tail(err, read_log_tail(server.log_path), server)
    _print_diagnosis(err, diagnose(read_log_tail(server.log_path, 400)), server)
    return returncode if returncode > 0 else EXIT_FAILED if returncode < 0 else EXIT_OK


def _error(err: Console, message: str) -> None:
    err.print(Text("error: ", style="red bold") + Text(message))


def _print_tail(err: Console, tail: str, server: Server) -> None:
    if not tail.strip():
        err.print(f"(the log {server.log_path} is empty)", markup=False)
        return
    err.print(f"--- last lines of {server.log_path} ---", markup=False, crop=False)
    err.print(tail, markup=False, highlight=False, crop=False)
    err.print("---", markup=False)


def _print_diagnosis(err: Console, diagnosis: Diagnosis | None, server: Server) -> None:
    if diagnosis is None:
        err.print(f"No known cause recognised; read the whole log: {server.log_path}", markup=False)
        return
    err.print(Text("likely cause: ", style="bold") + Text(str(diagnosis)))


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _termination_signals() -> list[signal.Signals]:
    return [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """Turn SIGTERM/SIGHUP into an exception, so they stop the server like Ctrl-C does, and
    make sure Ctrl-C raises KeyboardInterrupt."""
    if not _in_main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise _Terminated(signal.Signals(signum).name)

    previous = {s: signal.signal(s, handler) for s in _termination_signals()}
    # Ctrl-C stops the server whatever SIGINT handler the process inherited: a library
    # (or an embedding application) may have replaced Python's default one.
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


@contextlib.contextmanager
def _signals_kill(server: Server) -> Iterator[None]:
    """While stopping: a second Ctrl-C (or SIGTERM) kills the server at once."""
    if not _in_main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        server.kill()

    signals = [signal.SIGINT, *_termination_signals()]
    previous = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
