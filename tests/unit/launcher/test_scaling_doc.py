"""docs/scaling.md and deploy/k8s/: every launch command written there runs, as written.

Each `toolcall-sdk launch ...` line of the doc's shell blocks goes through the CLI's typer
app with `--dry-run`; the vLLM command it prints must carry the layout flags the line gives.
The Kubernetes manifest's container command must be the one the launcher prints for the
command its header names. Neither can drift from the launcher without failing here.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import COMMAND_ENV, EXAMPLES_ENV

ROOT = Path(__file__).parents[3]
DOC = ROOT / "docs" / "scaling.md"
MANIFEST = ROOT / "deploy" / "k8s" / "vllm.yaml"
PINNED: dict[str, str | None] = {
    COMMAND_ENV: "vllm serve",
    EXAMPLES_ENV: None,
    "VLLM_API_KEY": None,
    "TOOLCALL_API_KEY": None,
}
# Launcher options that reach vLLM under the same name and value.
SAME_FLAGS = frozenset(
    {
        "--host",
        "--port",
        "--served-model-name",
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--data-parallel-size",
        "--distributed-executor-backend",
        "--data-parallel-backend",
        "--nnodes",
        "--node-rank",
        "--master-addr",
        "--master-port",
        "--data-parallel-size-local",
        "--data-parallel-start-rank",
        "--data-parallel-address",
        "--data-parallel-rpc-port",
    }
)
_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Command:
    """One shell command of the doc: environment assignments, then the words."""

    env: dict[str, str]
    words: list[str]
    line: str


def _blocks(kinds: set[str]) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [body for kind, body in _BLOCK.findall(text) if kind in kinds]


def _commands() -> list[Command]:
    commands: list[Command] = []
    for block in _blocks({"console", "bash", "sh", "shell"}):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            env: dict[str, str] = {}
            while words and _ASSIGNMENT.match(words[0]):
                name, _, value = words.pop(0).partition("=")
                env[name] = value
            if words:
                commands.append(Command(env, words, line.strip()))
    return commands


LAUNCHES = [c for c in _commands() if c.words[:2] == ["toolcall-sdk", "launch"]]


def _dry_run(words: list[str], env: dict[str, str]) -> Result:
    """Run `toolcall-sdk launch ...` with `--dry-run` before any `--` (after it, vLLM's)."""
    args = words[1:]
    cut = args.index("--") if "--" in args else len(args)
    args = [*args[:cut], "--dry-run", *args[cut:]]
    return CliRunner().invoke(app, args, env={**PINNED, **env})


def _options(words: list[str]) -> dict[str, str]:
    """The doc command's `--flag value` pairs among SAME_FLAGS, before any `--`."""
    own = words[: words.index("--")] if "--" in words else words
    return {flag: own[i + 1] for i, flag in enumerate(own[:-1]) if flag in SAME_FLAGS}


def test_the_doc_shows_every_layout() -> None:
    lines = [c.line for c in LAUNCHES]
    assert len(lines) >= 12, lines
    joined = "\n".join(lines)
    for flag in ("--distributed-executor-backend ray", "--headless", "--nnodes 2"):
        assert flag in joined
    assert any(c.words[:2] == ["ray", "start"] for c in _commands())
    assert any(c.words[:2] == ["toolcall-sdk", "proxy"] for c in _commands())


@pytest.mark.parametrize("command", LAUNCHES, ids=lambda c: c.line[21:80])
def test_launch_command_runs_as_written(command: Command) -> None:
    result = _dry_run(command.words, command.env)

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    argv = shlex.split(lines[0])
    assert argv[:3] == ["vllm", "serve", command.words[2]]
    for flag, value in _options(command.words).items():
        assert argv[argv.index(flag) + 1] == value, flag
    if "--headless" in command.words:
        assert "--headless" in argv
    if "--" in command.words:
        tail = command.words[command.words.index("--") + 1 :]
        assert argv[-len(tail) :] == tail


def test_python_blocks_compile() -> None:
    blocks = _blocks({"python"})
    assert blocks
    for block in blocks:
        compile(block, str(DOC), "exec")


def _manifest() -> dict[str, dict[str, Any]]:
    documents = list(yaml.safe_load_all(MANIFEST.read_text(encoding="utf-8")))
    return {doc["kind"]: doc for doc in documents}


def _manifest_command() -> list[str]:
    """The launch command the manifest's header says its container runs."""
    for line in MANIFEST.read_text(encoding="utf-8").splitlines():
        text = line.lstrip("# ").strip()
        if text.startswith("toolcall-sdk launch "):
            return shlex.split(text)
    raise AssertionError(f"{MANIFEST} names no toolcall-sdk launch command")


def test_manifest_runs_what_the_launcher_prints() -> None:
    words = _manifest_command()
    assert "--dry-run" in words
    result = CliRunner().invoke(app, words[1:], env=PINNED)
    assert result.exit_code == 0, result.output
    printed = shlex.split(result.stdout)

    container = _manifest()["Deployment"]["spec"]["template"]["spec"]["containers"][0]

    assert container["command"] + container["args"] == printed
    assert " ".join(words) in DOC.read_text(encoding="utf-8")


def test_manifest_service_reaches_the_pods_health_and_port() -> None:
    manifest = _manifest()
    deployment, service = manifest["Deployment"], manifest["Service"]
    pod = deployment["spec"]["template"]
    container = pod["spec"]["containers"][0]
    args = container["args"]
    port = int(args[args.index("--port") + 1])

    assert container["ports"] == [{"name": "http", "containerPort": port}]
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert deployment["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]
    assert service["spec"]["ports"] == [{"name": "http", "port": port, "targetPort": "http"}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/health", "port": "http"}
    # The key comes from a Secret through the environment, never the command line.
    assert "--api-key" not in args
    assert [e["name"] for e in container["env"]] == ["VLLM_API_KEY"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
