"""The demo package's command line, cache layout and serve command; the converter's config."""

from __future__ import annotations

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
from toolcall_sdk.launcher._demo import demo_dtype
from toolcall_sdk.launcher._demo_models import DEMO_MODELS
from toolcall_sdk.vllm_plugin import PLUGIN_FLAG
from toolcall_sdk_demo import SERVE_ENV, default_model_dir, demo_model, serve_command
from toolcall_sdk_demo._convert import CONVERTED_MARKER, is_converted


def _run_demo(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {"TOOLCALL_DEMO_CACHE": str(cache), "PATH": "/usr/bin:/bin"}
    if "PYTHONPATH" in os.environ:  # a checkout run without installing demo-model
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run(
        [sys.executable, "-m", "toolcall_sdk_demo", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_import_never_imports_torch() -> None:
    code = (
        "import sys, toolcall_sdk, toolcall_sdk_demo, toolcall_sdk_demo.__main__;"
        "heavy = {'torch', 'transformers', 'tokenizers', 'vllm', 'gguf'} & set(sys.modules);"
        "print(sorted(heavy)); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_cache_folder_honours_the_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TOOLCALL_DEMO_CACHE", str(tmp_path))
    assert default_model_dir(demo_model("0.5b")).parent == tmp_path / "0.5b"
    assert default_model_dir(demo_model("1.5b")).parent == tmp_path / "1.5b"


def test_cache_folder_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLCALL_DEMO_CACHE", raising=False)
    folder = default_model_dir(demo_model())
    assert folder.parts[-4:-1] == ("toolcall-sdk", "demo-models", "0.5b")


@pytest.mark.parametrize("key", sorted(DEMO_MODELS))
def test_cli_path_prints_the_cache_folder(tmp_path: Path, key: str) -> None:
    done = _run_demo("path", "--model", key, cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(default_model_dir_in(tmp_path, key))


def default_model_dir_in(cache: Path, key: str) -> Path:
    return cache / key / default_model_dir(demo_model(key)).name


def test_cli_refuses_an_unknown_model_in_one_line(tmp_path: Path) -> None:
    done = _run_demo("path", "--model", "7b", cache=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "error: no demo model is called '7b': choose one of "
        "0.5b (Qwen/Qwen2.5-Coder-0.5B-Instruct), 1.5b (Qwen/Qwen2.5-Coder-1.5B-Instruct)"
    ]


def test_serve_command_runs_the_cpu_build_with_the_plugin_parser(tmp_path: Path) -> None:
    command = serve_command(tmp_path, model=demo_model("1.5b"), port=8123, python="py")
    assert command[:3] == ["py", "-m", "vllm.entrypoints.openai.api_server"]
    joined = " ".join(command)
    assert f"--model {tmp_path} " in joined
    assert "--served-model-name Qwen/Qwen2.5-Coder-1.5B-Instruct" in joined
    assert "--enable-auto-tool-choice --tool-call-parser toolcall_" in joined
    assert PLUGIN_FLAG in joined
    assert "--max-model-len 4096" in joined
    assert "--port 8123 --host 127.0.0.1" in joined
    assert f"--dtype {demo_dtype()} --enforce-eager" in joined
    assert SERVE_ENV == {"VLLM_CPU_KVCACHE_SPACE": "1"}


def test_serve_command_is_the_launchers(tmp_path: Path) -> None:
    # The launcher alone builds vLLM command lines: the demo package asks it.
    api_server = ["py", "-m", "vllm.entrypoints.openai.api_server"]
    planned = build_command(tmp_path, port=8001, **demo_options(tmp_path, command=api_server))
    assert serve_command(tmp_path, port=8001, python="py") == planned


def test_serve_command_asks_for_compact_json() -> None:
    command = serve_command(Path("/m"), python="py")
    config = command[command.index("--structured-outputs-config") + 1]
    assert json.loads(config) == {"backend": "xgrammar", "disable_any_whitespace": True}


def test_a_conversion_counts_only_for_the_pinned_file(tmp_path: Path) -> None:
    model = demo_model()
    assert not is_converted(tmp_path, model)
    (tmp_path / CONVERTED_MARKER).write_text(json.dumps({"gguf_sha256": "0" * 64}))
    assert not is_converted(tmp_path, model)
    (tmp_path / CONVERTED_MARKER).write_text(json.dumps({"gguf_sha256": model.gguf_sha256}))
    assert is_converted(tmp_path, model)
    (tmp_path / CONVERTED_MARKER).write_text("{half")
    assert not is_converted(tmp_path, model)
