"""The demo model's config, cache layout, serve command, scoring, and (with torch) a tiny build."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "toolcall_sdk_demo",
    reason="the demo model package is not installed (pip install -e ./demo-model)",
)

from toolcall_sdk.launcher import build_command, demo_options
from toolcall_sdk.vllm_plugin import PLUGIN_FLAG
from toolcall_sdk_demo import (
    SERVE_ENV,
    SERVED_MODEL_NAME,
    DemoConfig,
    config_hash,
    default_model_dir,
    serve_command,
)
from toolcall_sdk_demo._evaluate import Prediction, heldout_examples, parse_hermes, score
from toolcall_sdk_demo._toolbox import demo_tools


def test_import_never_imports_torch() -> None:
    code = (
        "import sys, toolcall_sdk, toolcall_sdk_demo, toolcall_sdk_demo.__main__;"
        "heavy = {'torch', 'transformers', 'tokenizers', 'vllm'} & set(sys.modules);"
        "print(sorted(heavy)); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_config_hash_is_stable_and_sensitive() -> None:
    base = DemoConfig()
    assert config_hash(base) == config_hash(DemoConfig())
    assert len(config_hash(base)) == 16
    assert config_hash(base) != config_hash(DemoConfig(tag_tokens=True))
    assert config_hash(base) != config_hash(dataclasses.replace(base, steps=base.steps + 1))


def test_config_rejects_a_head_size_the_cpu_backend_lacks() -> None:
    with pytest.raises(ValueError, match="head_dim"):
        DemoConfig(head_dim=48)


def test_cache_folder_honours_the_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TOOLCALL_DEMO_CACHE", str(tmp_path))
    folder = default_model_dir(DemoConfig())
    assert folder.parent == tmp_path
    assert folder.name == f"split-tags-{config_hash(DemoConfig())}"
    assert default_model_dir(DemoConfig(tag_tokens=True)).name.startswith("tag-tokens-")


def test_cache_folder_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLCALL_DEMO_CACHE", raising=False)
    assert default_model_dir(DemoConfig()).parent.parts[-2:] == ("toolcall-sdk", "demo-model")


def test_serve_command_runs_the_cpu_build_with_the_plugin_parser(tmp_path: Path) -> None:
    (tmp_path / "tokenizer").mkdir()
    command = serve_command(tmp_path, port=8123, python="py")
    assert command[:3] == ["py", "-m", "vllm.entrypoints.openai.api_server"]
    joined = " ".join(command)
    assert f"--model {tmp_path} " in joined
    assert f"--served-model-name {SERVED_MODEL_NAME}" in joined
    assert f"--enable-auto-tool-choice --tool-call-parser toolcall_hermes {PLUGIN_FLAG} " in joined
    assert "--max-model-len 2048" in joined
    assert "--port 8123 --host 127.0.0.1" in joined
    assert f"--dtype float32 --enforce-eager --tokenizer {tmp_path / 'tokenizer'}" in joined
    assert SERVE_ENV == {"VLLM_CPU_KVCACHE_SPACE": "1"}


def test_serve_command_is_the_launchers(tmp_path: Path) -> None:
    # The launcher alone builds vLLM command lines: the demo package asks it.
    api_server = ["py", "-m", "vllm.entrypoints.openai.api_server"]
    planned = build_command(tmp_path, port=8001, **demo_options(tmp_path, command=api_server))
    assert serve_command(tmp_path, port=8001, python="py") == planned


def test_serve_command_asks_for_compact_json() -> None:
    command = serve_command(Path("/m"), python="py")
    loose = serve_command(Path("/m"), python="py", compact_json=False)

    config = command[command.index("--structured-outputs-config") + 1]
    assert json.loads(config) == {"backend": "xgrammar", "disable_any_whitespace": True}
    assert "--structured-outputs-config" not in loose
    assert [a for a in command if a not in loose] == ["--structured-outputs-config", config]


def test_cli_path_prints_the_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = {"TOOLCALL_DEMO_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}
    if "PYTHONPATH" in os.environ:  # a checkout run without installing demo-model
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    out = subprocess.run(
        [sys.executable, "-m", "toolcall_sdk_demo", "path", "--tag-tokens"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    assert out == str(tmp_path / f"tag-tokens-{config_hash(DemoConfig(tag_tokens=True))}")


def test_strict_tools_are_what_the_sdk_sends() -> None:
    for entry in demo_tools("strict"):
        function = entry["function"]
        assert function["strict"] is True
        assert function["parameters"]["additionalProperties"] is False
        assert function["parameters"]["required"] == list(function["parameters"]["properties"])


def test_parse_hermes_reads_calls_content_and_broken_json() -> None:
    raw = (
        'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo", '
        '"unit": "celsius"}}\n</tool_call><tool_call>\n{"name": "x", "arguments": {"a": '
    )
    pred = parse_hermes(raw + "<|im_end|>")
    assert pred.content == "Sure.\n"
    assert pred.calls[0] == ("get_weather", {"city": "Oslo", "unit": "celsius"})
    assert pred.calls[1][0] == ""
    assert parse_hermes("Hello!<|im_end|>").calls == []


def test_score_counts_tool_choice_copies_and_corrections() -> None:
    examples = heldout_examples(60, seed=3)
    perfect = [
        Prediction(calls=[(c.name, c.arguments) for c in e.expected], content=e.answer)
        for e in examples
    ]
    report = score(examples, perfect)
    assert report["tool_choice"]["rate"] == 1.0
    assert report["copied_fields_all"]["rate"] == 1.0
    assert report["chit_chat_plain_text"]["rate"] == 1.0
    assert report["feedback_corrected_exact"]["rate"] == 1.0
    assert report["feedback_corrected_valid"]["rate"] == 1.0
    # The expected "mistake" turns are mistakes by construction.
    assert report["own_mistake_on_relative_due_date"]["rate"] == 1.0

    silent = score(examples, [Prediction(content="?") for _ in examples])
    assert silent["tool_choice"]["rate"] == 0.0
    assert silent["chit_chat_plain_text"]["rate"] == 1.0
    json.dumps(silent)


def test_a_tiny_build_is_deterministic_and_loads(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch is not installed (needs ./demo-model[train])")
    pytest.importorskip("transformers", reason="transformers is not installed")
    from toolcall_sdk_demo import build_demo_model
    from toolcall_sdk_demo._train import BUILD_INFO, load_tokenizer

    config = DemoConfig(train_examples=64, tokenizer_examples=64, steps=2, batch_size=4)
    logs: list[str] = []
    first = build_demo_model(tmp_path / "a", config, log=logs.append)
    second = build_demo_model(tmp_path / "b", config, log=logs.append)
    assert (first / "model.safetensors").read_bytes() == (second / "model.safetensors").read_bytes()
    info = json.loads((first / BUILD_INFO).read_text())
    assert info["hash"] == config_hash(config)
    # No tokenizer next to config.json: transformers would load it as Qwen2Tokenizer.
    assert not (first / "tokenizer.json").exists()
    tokenizer = load_tokenizer(first)
    pieces = tokenizer.backend_tokenizer.pre_tokenizer.pre_tokenize_str("ORD-12345 83,019,294")
    assert [p for p, _ in pieces] == ["ORD", "-12", "345", "Ġ", "83", ",", "019", ",", "294"]
    assert "<tool_call>" not in tokenizer.get_vocab()
    # Same config again: found, not rebuilt.
    logs.clear()
    build_demo_model(first, config, log=logs.append)
    assert logs == [f"demo model {config_hash(config)} already built at {first}"]
