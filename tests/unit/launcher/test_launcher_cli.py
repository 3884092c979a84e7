"""`toolcall-sdk launch --dry-run`: the printed vLLM command, through the real CLI."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import COMMAND_ENV, EXAMPLES_ENV, FAMILIES, ModelFamily
from toolcall_sdk.launcher._vllm import vllm_package_dir

PINNED = {
    COMMAND_ENV: "vllm serve",
    EXAMPLES_ENV: None,
    "VLLM_API_KEY": None,
    "TOOLCALL_API_KEY": None,
}


def _dry_run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(app, ["launch", *args, "--dry-run"], env={**PINNED, **(env or {})})


def _argv(result: Result) -> list[str]:
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout  # one line, ready to paste
    return shlex.split(lines[0].replace("****", "MASKED"))


def test_qwen_acceptance() -> None:
    result = _dry_run("Qwen/Qwen2.5-7B-Instruct")

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("vllm serve Qwen/Qwen2.5-7B-Instruct ")
    assert "--enable-auto-tool-choice --tool-call-parser hermes" in result.stdout
    assert "--host 127.0.0.1" in result.stdout


def test_llama_acceptance() -> None:
    result = _dry_run("meta-llama/Llama-3.1-8B-Instruct")

    assert result.exit_code == 0, result.output
    assert "--tool-call-parser llama3_json" in result.stdout
    assert "--chat-template examples/tool_chat_template_llama3.1_json.jinja" in result.stdout
    assert "not on this machine" in result.stderr


def test_mistral_acceptance() -> None:
    result = _dry_run("mistralai/Mistral-7B-Instruct-v0.3")

    assert result.exit_code == 0, result.output
    assert "--tool-call-parser mistral" in result.stdout
    assert "--tokenizer-mode mistral --config-format mistral --load-format mistral" in (
        result.stdout
    )


@pytest.mark.skipif(vllm_package_dir() is not None, reason="vLLM is installed for this Python")
def test_dry_run_works_without_vllm(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["launch", "Qwen/Qwen2.5-7B-Instruct", "--dry-run"],
        env={COMMAND_ENV: None, "PATH": str(tmp_path)},
    )

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("vllm serve Qwen/Qwen2.5-7B-Instruct ")
    assert "vLLM was not found here" in result.stderr


@pytest.mark.parametrize(
    "family", [f for f in FAMILIES if f.examples and f.patterns], ids=lambda f: f.name
)
def test_every_family_dry_run(family: ModelFamily) -> None:
    result = _dry_run(family.examples[0])

    assert result.exit_code == 0, result.output
    argv = _argv(result)
    assert argv[argv.index("--tool-call-parser") + 1] == family.tool_call_parser
    if family.chat_template is None:
        assert "--chat-template" not in argv
    else:
        assert argv[argv.index("--chat-template") + 1] == f"examples/{family.chat_template}"
    if family.reasoning_parser is None:
        assert "--reasoning-parser" not in argv
    else:
        assert argv[argv.index("--reasoning-parser") + 1] == family.reasoning_parser
    for arg in family.extra_args:
        assert arg in argv


def test_family_option() -> None:
    result = _dry_run("mistralai/Mistral-7B-Instruct-v0.3", "--family", "mistral-hf")

    assert "--chat-template examples/tool_chat_template_mistral_parallel.jinja" in result.stdout
    assert "--tokenizer-mode" not in result.stdout


def test_local_directory(tmp_path: Path) -> None:
    model = tmp_path / "tiny-demo"
    model.mkdir()
    config = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}
    (model / "config.json").write_text(json.dumps(config), encoding="utf-8")

    result = _dry_run(str(model), "--served-model-name", "tiny")

    assert result.exit_code == 0, result.output
    argv = _argv(result)
    assert argv[2] == str(model)
    assert argv[argv.index("--tool-call-parser") + 1] == "hermes"
    assert argv[argv.index("--served-model-name") + 1] == "tiny"


def test_unknown_model() -> None:
    result = _dry_run("acme/secret-model-7b")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert "No tool-calling family is known for 'acme/secret-model-7b'" in result.stderr
    assert "--tool-call-parser NAME" in result.stderr
    assert "llama3_json" in result.stderr


def test_unknown_model_with_explicit_parser() -> None:
    result = _dry_run("acme/secret-model-7b", "--tool-call-parser", "pythonic")

    assert result.exit_code == 0, result.output
    assert "--tool-call-parser pythonic" in result.stdout


def test_api_key_is_masked() -> None:
    result = _dry_run("Qwen/Qwen2.5-7B-Instruct", "--api-key", "sk-very-secret")

    assert result.exit_code == 0, result.output
    assert "sk-very-secret" not in result.output
    assert "--api-key ****" in result.stdout


def test_api_key_from_the_environment_is_masked() -> None:
    result = _dry_run("Qwen/Qwen2.5-7B-Instruct", env={"VLLM_API_KEY": "sk-env-secret"})

    assert "sk-env-secret" not in result.output
    assert "--api-key ****" in result.stdout


def test_the_clients_api_key_variable_is_read() -> None:
    result = _dry_run("Qwen/Qwen2.5-7B-Instruct", env={"TOOLCALL_API_KEY": "sk-toolcall"})

    assert result.exit_code == 0, result.output
    assert "sk-toolcall" not in result.output
    assert "--api-key ****" in result.stdout


def test_extra_args_after_double_dash() -> None:
    result = CliRunner().invoke(
        app,
        [
            "launch",
            "Qwen/Qwen2.5-7B-Instruct",
            "--dry-run",
            "--",
            "--enforce-eager",
            "--dtype",
            "float32",
        ],
        env=PINNED,
    )

    assert result.exit_code == 0, result.output
    assert _argv(result)[-3:] == ["--enforce-eager", "--dtype", "float32"]


def test_host_port_and_sizes() -> None:
    result = _dry_run(
        "Qwen/Qwen2.5-72B-Instruct",
        "--host",
        "0.0.0.0",
        "--port",
        "9000",
        "--tensor-parallel-size",
        "4",
        "--max-model-len",
        "0",
    )

    argv = _argv(result)
    assert argv[argv.index("--host") + 1] == "0.0.0.0"
    assert argv[argv.index("--port") + 1] == "9000"
    assert argv[argv.index("--tensor-parallel-size") + 1] == "4"
    assert "--max-model-len" not in argv
    assert "without --api-key" in result.stderr


def test_prompt_embeds_warning() -> None:
    result = _dry_run("Qwen/Qwen2.5-7B-Instruct", "--enable-prompt-embeds")

    assert "--enable-prompt-embeds" in result.stdout
    assert "trusted clients only" in result.stderr
