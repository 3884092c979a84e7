"""`launch` and the SDK's vLLM tool-parser plugin: when it is used and how it is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import COMMAND_ENV, EXAMPLES_ENV, plan_launch
from toolcall_sdk.vllm_plugin import plugin_path

SERVER = "python -m vllm.entrypoints.openai.api_server"


@pytest.fixture(autouse=True)
def _pinned_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Pin the launcher's command, whatever vLLM this machine has."""
    monkeypatch.setenv(COMMAND_ENV, SERVER)
    monkeypatch.delenv(EXAMPLES_ENV, raising=False)
    monkeypatch.chdir(tmp_path)


def _value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def qwen_dir(root: Path, *, tokens: list[str], where: str = ".") -> Path:
    """A local Qwen2-architecture model folder whose tokenizer has `tokens` added."""
    model = root / "my-finetune"
    model.mkdir()
    (model / "config.json").write_text(
        json.dumps({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]})
    )
    folder = model / where
    folder.mkdir(exist_ok=True)
    tokenizer = {
        "added_tokens": [{"id": i, "content": t} for i, t in enumerate(tokens)],
        "model": {"type": "BPE", "vocab": {"<": 10, "tool": 11, "_call": 12, ">": 13}},
    }
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    return model


def test_the_plugin_parser_loads_the_plugin_file() -> None:
    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct", tool_call_parser="toolcall_hermes")

    assert _value(plan.argv, "--tool-call-parser") == "toolcall_hermes"
    assert _value(plan.argv, "--tool-parser-plugin") == str(plugin_path())
    assert plan.argv.count("--tool-parser-plugin") == 1


def test_vllm_hermes_needs_no_plugin() -> None:
    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct")

    assert _value(plan.argv, "--tool-call-parser") == "hermes"
    assert "--tool-parser-plugin" not in plan.argv


def test_a_plugin_of_your_own() -> None:
    plan = plan_launch(
        "Qwen/Qwen2.5-7B-Instruct", tool_call_parser="mine", tool_parser_plugin="/opt/mine.py"
    )

    assert _value(plan.argv, "--tool-call-parser") == "mine"
    assert _value(plan.argv, "--tool-parser-plugin") == "/opt/mine.py"


def test_a_plugin_flag_after_the_double_dash_is_not_repeated() -> None:
    plan = plan_launch(
        "Qwen/Qwen2.5-7B-Instruct",
        tool_call_parser="toolcall_hermes",
        extra_args=["--tool-parser-plugin=/opt/other.py"],
    )

    assert "--tool-parser-plugin" not in plan.argv
    assert plan.argv[-1] == "--tool-parser-plugin=/opt/other.py"


def test_local_model_whose_tags_are_plain_tokens_gets_the_plugin(tmp_path: Path) -> None:
    model = qwen_dir(tmp_path, tokens=["<|im_start|>", "<|im_end|>"])

    plan = plan_launch(model)

    assert plan.family is not None
    assert plan.family.name == "qwen2.5"
    assert _value(plan.argv, "--tool-call-parser") == "toolcall_hermes"
    assert _value(plan.argv, "--tool-parser-plugin") == str(plugin_path())
    assert any("no <tool_call> token" in w for w in plan.warnings)


def test_local_model_with_a_tag_token_keeps_vllm_hermes(tmp_path: Path) -> None:
    model = qwen_dir(tmp_path, tokens=["<|im_start|>", "<tool_call>", "</tool_call>"])

    plan = plan_launch(model)

    assert _value(plan.argv, "--tool-call-parser") == "hermes"
    assert "--tool-parser-plugin" not in plan.argv
    assert not any("<tool_call>" in w for w in plan.warnings)


def test_tokenizer_in_a_subfolder_or_named_by_flag(tmp_path: Path) -> None:
    model = qwen_dir(tmp_path, tokens=[], where="tokenizer")
    elsewhere = tmp_path / "tok"
    elsewhere.mkdir()
    (elsewhere / "tokenizer.json").write_text(
        json.dumps({"added_tokens": [{"content": "<tool_call>"}], "model": {"vocab": {}}})
    )

    assert _value(plan_launch(model).argv, "--tool-call-parser") == "toolcall_hermes"
    flagged = plan_launch(model, extra_args=["--tokenizer", str(elsewhere)])
    assert _value(flagged.argv, "--tool-call-parser") == "hermes"


def test_an_explicit_parser_is_never_swapped(tmp_path: Path) -> None:
    model = qwen_dir(tmp_path, tokens=[])

    plan = plan_launch(model, tool_call_parser="hermes")

    assert _value(plan.argv, "--tool-call-parser") == "hermes"
    assert "--tool-parser-plugin" not in plan.argv


def test_unreadable_tokenizer_keeps_the_family_parser(tmp_path: Path) -> None:
    model = qwen_dir(tmp_path, tokens=[])
    (model / "tokenizer.json").write_text("not json")

    assert _value(plan_launch(model).argv, "--tool-call-parser") == "hermes"


def test_dry_run_shows_the_plugin(tmp_path: Path) -> None:
    model = qwen_dir(tmp_path, tokens=[])

    result = CliRunner().invoke(app, ["launch", str(model), "--dry-run"])

    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith(f"{SERVER} --model {model} ")
    assert f"--tool-call-parser toolcall_hermes --tool-parser-plugin {plugin_path()}" in line
    assert "no <tool_call> token" in result.stderr


def test_dry_run_passes_a_plugin_option_through() -> None:
    result = CliRunner().invoke(
        app,
        [
            "launch",
            "Qwen/Qwen2.5-7B-Instruct",
            "--tool-call-parser",
            "mine",
            "--tool-parser-plugin",
            "/opt/mine.py",
            "--dry-run",
        ],
    )

    assert result.exit_code == 0, result.output
    assert "--tool-call-parser mine --tool-parser-plugin /opt/mine.py" in result.stdout


@pytest.mark.parametrize(
    "model",
    ["Qwen/Qwen2.5-Coder-0.5B-Instruct", "Qwen/Qwen2.5-Coder-1.5B-Instruct", "qwen2.5-coder-7b"],
)
def test_qwen25_coder_gets_the_plugins_parser_for_its_format(model: str) -> None:
    plan = plan_launch(model)

    assert plan.family is not None
    assert plan.family.name == "qwen2.5-coder"
    assert "--enable-auto-tool-choice" in plan.argv
    assert _value(plan.argv, "--tool-call-parser") == "toolcall_qwen25_coder"
    assert _value(plan.argv, "--tool-parser-plugin") == str(plugin_path())
    assert plan.argv.count("--tool-parser-plugin") == 1
    assert not any("does not register" in w for w in plan.warnings)


def test_qwen25_coder_dry_run_loads_the_plugin() -> None:
    result = CliRunner().invoke(app, ["launch", "Qwen/Qwen2.5-Coder-0.5B-Instruct", "--dry-run"])

    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    assert "--enable-auto-tool-choice --tool-call-parser toolcall_qwen25_coder " in line
    assert f"--tool-parser-plugin {plugin_path()}" in line


def test_every_plugin_parser_named_by_hand_loads_the_plugin() -> None:
    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct", tool_call_parser="toolcall_qwen25_coder")

    assert _value(plan.argv, "--tool-parser-plugin") == str(plugin_path())


def test_qwen25_coder_takes_vllm_hermes_when_asked() -> None:
    plan = plan_launch("Qwen/Qwen2.5-Coder-0.5B-Instruct", tool_call_parser="hermes")

    assert _value(plan.argv, "--tool-call-parser") == "hermes"
    assert "--tool-parser-plugin" not in plan.argv
