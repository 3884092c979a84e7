"""Parallel layouts: vLLM's flags for several GPUs and nodes, the checks, headless nodes."""

from __future__ import annotations

import io
import json
import shlex
import socket
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from toolcall_sdk import ToolCallError
from toolcall_sdk.cli import app
from toolcall_sdk.launcher import (
    COMMAND_ENV,
    EXAMPLES_ENV,
    LaunchError,
    LaunchPlan,
    ParallelLayoutError,
    ParallelOptions,
    build_command,
    plan_launch,
    serve,
)
from toolcall_sdk.launcher._cli import run_launch
from toolcall_sdk.launcher._process import free_port

MODEL = "Qwen/Qwen2.5-72B-Instruct"
PINNED: dict[str, str | None] = {
    COMMAND_ENV: "vllm serve",
    EXAMPLES_ENV: None,
    "VLLM_API_KEY": None,
    "TOOLCALL_API_KEY": None,
}

# A worker node's vLLM: no HTTP server at all; it records its argv and leaves after a moment.
FAKE_HEADLESS = r"""
import json, os, sys, time
with open(os.environ["FAKE_RECORD"], "w") as f:
    json.dump({"argv": sys.argv[1:]}, f)
print("INFO engines started, no API server", flush=True)
time.sleep(0.2)
"""


@pytest.fixture(autouse=True)
def _plain_vllm_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(COMMAND_ENV, "vllm serve")
    monkeypatch.delenv(EXAMPLES_ENV, raising=False)


def _after(argv: list[str], flag: str) -> list[str]:
    """The parallel part of a command: from `flag` to the structured-outputs flag."""
    start = argv.index(flag)
    end = argv.index("--structured-outputs-config")
    return argv[start:end]


def test_ray_backend_over_two_nodes_of_eight() -> None:
    argv = build_command(
        MODEL,
        tensor_parallel_size=8,
        pipeline_parallel_size=2,
        distributed_executor_backend="ray",
    )

    assert _after(argv, "--tensor-parallel-size") == [
        "--tensor-parallel-size",
        "8",
        "--pipeline-parallel-size",
        "2",
        "--distributed-executor-backend",
        "ray",
    ]


def test_mp_backend_head_and_headless_worker() -> None:
    def node(rank: int, *, headless: bool = False, host: str = "127.0.0.1") -> LaunchPlan:
        return plan_launch(
            MODEL,
            tensor_parallel_size=8,
            pipeline_parallel_size=2,
            nnodes=2,
            node_rank=rank,
            master_addr="10.0.0.1",
            headless=headless,
            host=host,
            api_key="k",
        )

    head = node(0, host="0.0.0.0")
    worker = node(1, headless=True)

    assert _after(head.argv, "--tensor-parallel-size") == [
        "--tensor-parallel-size",
        "8",
        "--pipeline-parallel-size",
        "2",
        "--nnodes",
        "2",
        "--node-rank",
        "0",
        "--master-addr",
        "10.0.0.1",
    ]
    assert not head.headless
    assert _after(worker.argv, "--nnodes") == [
        "--nnodes",
        "2",
        "--node-rank",
        "1",
        "--master-addr",
        "10.0.0.1",
        "--headless",
    ]
    assert worker.headless
    assert any("--headless runs engines only" in w for w in worker.warnings)


def test_data_parallel_over_two_nodes() -> None:
    secondary = build_command(
        "Qwen/Qwen2.5-7B-Instruct",
        data_parallel_size=16,
        data_parallel_size_local=8,
        data_parallel_start_rank=8,
        data_parallel_address="10.0.0.1",
        data_parallel_rpc_port=13345,
        headless=True,
    )

    assert _after(secondary, "--data-parallel-size") == [
        "--data-parallel-size",
        "16",
        "--data-parallel-size-local",
        "8",
        "--data-parallel-start-rank",
        "8",
        "--data-parallel-address",
        "10.0.0.1",
        "--data-parallel-rpc-port",
        "13345",
        "--headless",
    ]


def test_ray_places_data_parallel_replicas_without_an_address() -> None:
    argv = build_command(
        "Qwen/Qwen2.5-7B-Instruct",
        data_parallel_size=16,
        data_parallel_size_local=8,
        data_parallel_backend="ray",
    )

    assert _after(argv, "--data-parallel-size") == [
        "--data-parallel-size",
        "16",
        "--data-parallel-backend",
        "ray",
        "--data-parallel-size-local",
        "8",
    ]


def test_nothing_given_adds_nothing() -> None:
    argv = build_command("Qwen/Qwen2.5-7B-Instruct", headless=False)

    assert not [a for a in argv if "parallel" in a or a in {"--nnodes", "--headless"}]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tensor_parallel_size": 0}, "--tensor-parallel-size must be an integer >= 1, got 0"),
        ({"nnodes": 2, "node_rank": -1, "master_addr": "h"}, "--node-rank must be an integer"),
        ({"nnodes": 2, "master_addr": "h", "master_port": 70000}, "must be a port (1-65535)"),
        ({"distributed_executor_backend": "uni"}, "must be one of mp, ray, got 'uni'"),
        ({"data_parallel_size": 2, "data_parallel_backend": "slurm"}, "one of mp, ray"),
        ({"node_rank": 1}, "--node-rank needs --nnodes"),
        ({"nnodes": 2, "node_rank": 2, "master_addr": "h"}, "between 0 and 1 for --nnodes 2"),
        ({"nnodes": 2, "master_addr": "h", "distributed_executor_backend": "ray"}, "ray start"),
        (
            {
                "nnodes": 2,
                "master_addr": "h",
                "data_parallel_size": 2,
                "data_parallel_backend": "ray",
            },
            "needs --data-parallel-backend mp",
        ),
        ({"nnodes": 2}, "--nnodes 2 needs --master-addr"),
        ({"nnodes": 2, "master_addr": " "}, "--master-addr is empty"),
        ({"data_parallel_size_local": 2}, "--data-parallel-size-local places data-parallel"),
        ({"data_parallel_size": 1, "data_parallel_start_rank": 0}, "needs --data-parallel-size"),
        (
            {"data_parallel_size": 2, "data_parallel_size_local": 4},
            "--data-parallel-size-local 4 is more than --data-parallel-size 2",
        ),
        (
            {"data_parallel_size": 4, "data_parallel_start_rank": 4, "data_parallel_address": "h"},
            "--data-parallel-start-rank must be below --data-parallel-size 4",
        ),
        (
            {"data_parallel_size": 4, "data_parallel_size_local": 2},
            "need --data-parallel-address",
        ),
    ],
)
def test_contradictions_are_refused_before_anything_starts(
    options: ParallelOptions, message: str
) -> None:
    with pytest.raises(ParallelLayoutError) as caught:
        plan_launch(MODEL, **options)

    assert message in str(caught.value)
    assert isinstance(caught.value, LaunchError)
    assert isinstance(caught.value, ToolCallError)


def test_worker_rank_without_headless_is_a_warning() -> None:
    plan = plan_launch(MODEL, nnodes=2, node_rank=1, master_addr="10.0.0.1")

    assert any("--node-rank 1 without --headless" in w for w in plan.warnings)


def test_headless_node_on_the_network_needs_no_key_warning() -> None:
    worker = plan_launch(MODEL, host="0.0.0.0", headless=True)
    head = plan_launch(MODEL, host="0.0.0.0")

    assert not any("without --api-key" in w for w in worker.warnings)
    assert any("without --api-key" in w for w in head.warnings)


def test_cli_passes_every_flag() -> None:
    result = CliRunner().invoke(
        app,
        [
            "launch",
            MODEL,
            "--tensor-parallel-size",
            "8",
            "--data-parallel-size",
            "2",
            "--distributed-executor-backend",
            "mp",
            "--data-parallel-backend",
            "mp",
            "--nnodes",
            "4",
            "--node-rank",
            "3",
            "--master-addr",
            "10.0.0.1",
            "--master-port",
            "29501",
            "--data-parallel-size-local",
            "1",
            "--data-parallel-start-rank",
            "1",
            "--data-parallel-address",
            "10.0.0.1",
            "--data-parallel-rpc-port",
            "13345",
            "--headless",
            "--dry-run",
        ],
        env=PINNED,
    )

    assert result.exit_code == 0, result.output
    argv = shlex.split(result.stdout)
    assert _after(argv, "--tensor-parallel-size") == [
        "--tensor-parallel-size",
        "8",
        "--data-parallel-size",
        "2",
        "--distributed-executor-backend",
        "mp",
        "--data-parallel-backend",
        "mp",
        "--nnodes",
        "4",
        "--node-rank",
        "3",
        "--master-addr",
        "10.0.0.1",
        "--master-port",
        "29501",
        "--data-parallel-size-local",
        "1",
        "--data-parallel-start-rank",
        "1",
        "--data-parallel-address",
        "10.0.0.1",
        "--data-parallel-rpc-port",
        "13345",
        "--headless",
    ]


def test_cli_refuses_a_contradiction_in_one_line() -> None:
    result = CliRunner().invoke(
        app, ["launch", MODEL, "--nnodes", "2", "--node-rank", "1", "--dry-run"], env=PINNED
    )

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: --nnodes 2 needs --master-addr")


@pytest.fixture
def fake_headless(tmp_path: Path) -> str:
    script = tmp_path / "fake_headless.py"
    script.write_text(FAKE_HEADLESS, encoding="utf-8")
    return shlex.join([sys.executable, str(script)])


def test_headless_launch_waits_for_no_health_and_ignores_the_port(
    fake_headless: str, tmp_path: Path
) -> None:
    record = tmp_path / "record.json"
    out, err = io.StringIO(), io.StringIO()
    with socket.socket() as taken:  # a headless node binds no API port: it may be taken
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        code = run_launch(
            MODEL,
            port=taken.getsockname()[1],
            vllm_command=fake_headless,
            log_file=str(tmp_path / "vllm.log"),
            env={"FAKE_RECORD": str(record)},
            out=out,
            err=Console(file=err, width=200),
            startup_timeout=0.01,  # never reached: nothing waits for /health
            nnodes=2,
            node_rank=1,
            master_addr="10.0.0.1",
            headless=True,
        )

    assert code == 0
    assert out.getvalue() == ""  # no base URL, no client code: this node serves no client
    assert "runs headless" in err.getvalue()
    assert "exited on its own with status 0" in err.getvalue()
    argv = json.loads(record.read_text())["argv"]
    assert argv[argv.index("--nnodes") :][:7] == [
        "--nnodes",
        "2",
        "--node-rank",
        "1",
        "--master-addr",
        "10.0.0.1",
        "--headless",
    ]


def test_serve_yields_a_headless_node_while_it_runs(fake_headless: str, tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    with serve(
        MODEL,
        port=free_port(),
        command=fake_headless,
        log_path=tmp_path / "vllm.log",
        env={"FAKE_RECORD": str(record)},
        startup_timeout=30,
        headless=True,
    ) as worker:
        assert worker.plan.headless
        worker.process.wait(timeout=30)

    assert "--headless" in json.loads(record.read_text())["argv"]
