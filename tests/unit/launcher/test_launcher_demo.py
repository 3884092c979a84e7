"""`toolcall-sdk launch --demo`: the demo model's serve command, and building it first."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import LaunchError
from toolcall_sdk.launcher._demo import demo_python, prepare_demo


def _fake_python(tmp_path: Path, body: str) -> Path:
    """A Python that has vLLM, torch and transformers (it says so to `-c` checks) and runs
    `body` for anything else."""
    script = tmp_path / "python"
    script.write_text('#!/usr/bin/env bash\nif [ "$1" = "-c" ]; then exit 0; fi\n' + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_demo_dry_run_prints_the_cpu_serve_command() -> None:
    command = "/opt/vllm/bin/python -m vllm.entrypoints.openai.api_server"
    result = CliRunner().invoke(app, ["launch", "--demo", "--dry-run", "--vllm-command", command])

    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith(command + " --model ")
    for flag in (
        "--served-model-name toolcall-demo",
        "--tool-call-parser toolcall_hermes --tool-parser-plugin ",
        "--enable-auto-tool-choice",
        "--max-model-len 2048",
        "--dtype float32",
        "--enforce-eager",
        "--host 127.0.0.1",
    ):
        assert flag in line


def test_model_and_demo_are_exclusive() -> None:
    result = CliRunner().invoke(app, ["launch", "Qwen/Qwen2.5-7B-Instruct", "--demo", "--dry-run"])
    assert result.exit_code == 2
    assert "not both" in result.output


def test_model_is_required_without_demo() -> None:
    result = CliRunner().invoke(app, ["launch", "--dry-run"])
    assert result.exit_code == 2
    assert "--demo" in result.output


def test_prepare_demo_builds_with_the_vllm_python(tmp_path: Path) -> None:
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    python = _fake_python(tmp_path, f'echo "training..."\necho "{model_dir}"\n')
    lines: list[str] = []

    prepared = prepare_demo(
        vllm_command=f"{python} -m vllm.entrypoints.openai.api_server", log=lines.append
    )

    assert prepared.model_dir == model_dir
    assert lines[1:] == ["training...", str(model_dir)]
    assert lines[0].startswith(f"building the demo model with {python}")
    assert prepared.env == {"VLLM_CPU_KVCACHE_SPACE": "1"}
    assert prepared.extra_args[:3] == ("--dtype", "float32", "--enforce-eager")


def test_failed_build_says_how_to_fix_it(tmp_path: Path) -> None:
    python = _fake_python(tmp_path, 'echo "ModuleNotFoundError: No module named torch"\nexit 1\n')

    with pytest.raises(LaunchError, match=r"install-vllm-cpu\.sh") as excinfo:
        prepare_demo(
            vllm_command=f"{python} -m vllm.entrypoints.openai.api_server", log=lambda _: None
        )
    assert "No module named torch" in str(excinfo.value)


def test_demo_python_prefers_an_explicit_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLCALL_SDK_VLLM_COMMAND", raising=False)
    assert demo_python("/x/python -m vllm.entrypoints.openai.api_server") == "/x/python"
    monkeypatch.setenv("TOOLCALL_VLLM_VENV", "/nonexistent/venv")
    import sys

    assert demo_python("vllm serve") == sys.executable
