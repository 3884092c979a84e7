"""What a newcomer meets on the command line: one-line errors naming what to install, and the
same environment variables as the client."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call


def _one_line_error(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output
    assert len(lines) == 1, output
    return lines[0]


def test_launch_demo_without_vllm_names_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Python without site-packages stands for one where vLLM and torch are not installed.
    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    venv_python.chmod(venv_python.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("TOOLCALL_VLLM_VENV", str(tmp_path / "venv"))
    monkeypatch.delenv("TOOLCALL_SDK_VLLM_COMMAND", raising=False)

    result = CliRunner().invoke(app, ["launch", "--demo"])

    assert result.exit_code == 1
    line = _one_line_error(result.output)
    assert "vllm" in line
    assert "torch" in line
    assert "scripts/install-vllm-cpu.sh" in line


def test_eval_bfcl_without_bfcl_eval_names_the_install_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)  # as if it were not installed
    argv = ["eval", "--bfcl", "simple_python", "--model", "m", "--out", str(tmp_path / "out")]

    result = CliRunner().invoke(app, argv)

    assert result.exit_code == 2
    line = _one_line_error(result.output)
    assert "pip install --no-deps bfcl-eval" in line


def _healthy(request: RecordedRequest) -> Reply:
    if request.tools and request.tool_choice != "none":
        return tool_call(request.tools[0]["function"]["name"], {"city": "Paris", "unit": "celsius"})
    return text("I")


def test_doctor_reads_the_client_environment_variables() -> None:
    model = ScriptedModel(_healthy, model="env-model")

    with model.serve() as base_url:
        env = {
            "TOOLCALL_BASE_URL": base_url,
            "TOOLCALL_MODEL": "env-model",
            "TOOLCALL_API_KEY": "env-key",
        }
        result = CliRunner().invoke(app, ["doctor"], env=env)

    assert model.requests, result.output
    assert "'env-model' is served" in result.output
    chat = model.chat_requests
    assert chat
    assert all(r.headers["authorization"] == "Bearer env-key" for r in chat)
    assert all((r.json or {}).get("model") == "env-model" for r in chat)


def test_eval_reads_the_client_environment_variables(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    weather = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city", "unit"],
            },
        },
    }
    case = {
        "id": "w1",
        "messages": "Weather in Paris?",
        "tools": [weather],
        "expected": {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    }
    cases.write_text(json.dumps(case) + "\n")
    model = ScriptedModel(_healthy, model="env-model")

    with model.serve() as base_url:
        env = {
            "TOOLCALL_BASE_URL": base_url,
            "TOOLCALL_MODEL": "env-model",
            "TOOLCALL_API_KEY": "env-key",
        }
        argv = ["eval", str(cases), "--out", str(tmp_path / "out"), "--no-progress", "-p", "auto"]
        result = CliRunner().invoke(app, argv, env=env)

    assert result.exit_code == 0, result.output
    assert model.chat_requests
    assert all(r.headers["authorization"] == "Bearer env-key" for r in model.requests)
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["meta"]["model"] == "env-model"
