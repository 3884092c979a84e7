"""How one model spreads over GPUs, processes and machines: vLLM's parallel flags.

`ParallelOptions` declares the options once, for `plan_launch`, `build_command`, `serve` and
`toolcall-sdk launch`; `parallel_args` checks them against each other and turns them into
vLLM flags. The checks are the ones vLLM itself makes only after loading its configuration
(or never, leaving a node waiting for peers that cannot find it): a dry run catches them on
the machine where the command is written. The flag spellings are those of vLLM's
`vllm/engine/arg_utils.py` and `vllm/entrypoints/launchers/cli_args.py`; docs/scaling.md
shows the layouts they serve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from toolcall_sdk.launcher._errors import ParallelLayoutError

__all__ = ["BACKENDS", "ParallelArgs", "ParallelOptions", "parallel_args"]

# The values of --distributed-executor-backend and --data-parallel-backend that serve a
# model behind an API server. vLLM also knows "uni" (one process, what it picks for one GPU)
# and "external_launcher" (torchrun, offline inference): neither is a choice a server needs.
BACKENDS = ("mp", "ray")
_MAX_PORT = 65535


class ParallelOptions(TypedDict, total=False):
    """vLLM's parallelism options; each is left to vLLM when None (or False).

    Keys:
        tensor_parallel_size: `--tensor-parallel-size`: GPUs that share each layer.
        pipeline_parallel_size: `--pipeline-parallel-size`: stages the layers are cut into
            (across nodes, usually one stage per node).
        data_parallel_size: `--data-parallel-size`: replicas of the whole model, one engine
            each, behind one API server.
        distributed_executor_backend: `--distributed-executor-backend`: `"mp"` (processes on
            this node, or on several nodes with `nnodes`) or `"ray"` (workers anywhere in
            the Ray cluster this node belongs to).
        data_parallel_backend: `--data-parallel-backend`: how data-parallel engines are
            started: `"mp"` (each node starts its own) or `"ray"` (the head node places
            them all through Ray).
        nnodes: `--nnodes`: nodes one model spans with the `mp` backend.
        node_rank: `--node-rank`: this node's place among them (0 is the head).
        master_addr: `--master-addr`: the head node's address, reachable from every node.
        master_port: `--master-port`: the head node's port for the engine's process group.
        data_parallel_size_local: `--data-parallel-size-local`: the replicas on this node.
        data_parallel_start_rank: `--data-parallel-start-rank`: the first replica's rank on
            this node (a secondary node of a multi-node data-parallel deployment).
        data_parallel_address: `--data-parallel-address`: the head node's address for the
            data-parallel handshake.
        data_parallel_rpc_port: `--data-parallel-rpc-port`: its port (the same on every node).
        headless: `--headless`: run engines only, no API server (a worker node).
    """

    tensor_parallel_size: int | None
    pipeline_parallel_size: int | None
    data_parallel_size: int | None
    distributed_executor_backend: str | None
    data_parallel_backend: str | None
    nnodes: int | None
    node_rank: int | None
    master_addr: str | None
    master_port: int | None
    data_parallel_size_local: int | None
    data_parallel_start_rank: int | None
    data_parallel_address: str | None
    data_parallel_rpc_port: int | None
    headless: bool


@dataclass(frozen=True)
class ParallelArgs:
    """The vLLM flags for a parallel layout, and what the user should read about it.

    Attributes:
        args: The flags, in a fixed order.
        warnings: Layouts that are legal but rarely what was meant.
    """

    args: list[str]
    warnings: list[str]


# Every valued option and its vLLM flag, in the order the command lists them.
_FLAGS = (
    ("tensor_parallel_size", "--tensor-parallel-size"),
    ("pipeline_parallel_size", "--pipeline-parallel-size"),
    ("data_parallel_size", "--data-parallel-size"),
    ("distributed_executor_backend", "--distributed-executor-backend"),
    ("data_parallel_backend", "--data-parallel-backend"),
    ("nnodes", "--nnodes"),
    ("node_rank", "--node-rank"),
    ("master_addr", "--master-addr"),
    ("master_port", "--master-port"),
    ("data_parallel_size_local", "--data-parallel-size-local"),
    ("data_parallel_start_rank", "--data-parallel-start-rank"),
    ("data_parallel_address", "--data-parallel-address"),
    ("data_parallel_rpc_port", "--data-parallel-rpc-port"),
)
_FLAG = dict(_FLAGS)
# The smallest value of each number: sizes count from 1, ranks from 0.
_SMALLEST = {
    "tensor_parallel_size": 1,
    "pipeline_parallel_size": 1,
    "data_parallel_size": 1,
    "nnodes": 1,
    "node_rank": 0,
    "master_port": 1,
    "data_parallel_size_local": 1,
    "data_parallel_start_rank": 0,
    "data_parallel_rpc_port": 1,
}
_PORTS = frozenset({"master_port", "data_parallel_rpc_port"})
_BACKEND_KEYS = ("distributed_executor_backend", "data_parallel_backend")
# Options that place data-parallel replicas across nodes: meaningless without replicas.
_DATA_PARALLEL_PLACEMENT = (
    "data_parallel_size_local",
    "data_parallel_start_rank",
    "data_parallel_address",
    "data_parallel_rpc_port",
    "data_parallel_backend",
)


def parallel_args(options: ParallelOptions) -> ParallelArgs:
    """Check a parallel layout and return its vLLM flags.

    Args:
        options: The layout; missing keys and None values are left to vLLM.

    Returns:
        The flags and the warnings.

    Raises:
        ParallelLayoutError: A value is out of range, or the options contradict each other;
            the message names the flags and says what to change.
    """
    _check_values(options)
    _check_nodes(options)
    _check_data_parallel(options)
    values: dict[str, object] = dict(options)
    args: list[str] = []
    for key, flag in _FLAGS:
        if values.get(key) is not None:
            args += [flag, str(values[key])]
    if options.get("headless"):
        args.append("--headless")
    return ParallelArgs(args=args, warnings=_warnings(options))


def _check_values(options: ParallelOptions) -> None:
    values: dict[str, object] = dict(options)
    for key, smallest in _SMALLEST.items():
        value = values.get(key)
        if value is None:
            continue
        flag = _FLAG[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < smallest:
            raise ParallelLayoutError(f"{flag} must be an integer >= {smallest}, got {value!r}.")
        if key in _PORTS and value > _MAX_PORT:
            raise ParallelLayoutError(f"{flag} must be a port (1-{_MAX_PORT}), got {value}.")
    for key in ("master_addr", "data_parallel_address"):
        text = values.get(key)
        if text is not None and not str(text).strip():
            raise ParallelLayoutError(f"{_FLAG[key]} is empty; give an address or leave it out.")
    for key in _BACKEND_KEYS:
        backend = values.get(key)
        if backend is not None and backend not in BACKENDS:
            raise ParallelLayoutError(
                f"{_FLAG[key]} must be one of {', '.join(BACKENDS)}, got {backend!r}."
            )


def _check_nodes(options: ParallelOptions) -> None:
    nnodes = options.get("nnodes")
    node_rank = options.get("node_rank")
    if node_rank is not None and nnodes is None:
        raise ParallelLayoutError("--node-rank needs --nnodes (how many nodes the model spans).")
    if nnodes is None or nnodes == 1:
        return
    if node_rank is not None and node_rank >= nnodes:
        raise ParallelLayoutError(
            f"--node-rank must be between 0 and {nnodes - 1} for --nnodes {nnodes}, "
            f"got {node_rank}."
        )
    if options.get("distributed_executor_backend") == "ray":
        raise ParallelLayoutError(
            "--nnodes places workers for the mp backend; with --distributed-executor-backend "
            "ray the nodes join with `ray start` and vLLM runs on the head node only "
            "(docs/scaling.md). Drop --nnodes/--node-rank, or use the mp backend."
        )
    if options.get("data_parallel_backend") == "ray":
        raise ParallelLayoutError(
            f"--nnodes {nnodes} needs --data-parallel-backend mp (vLLM refuses ray with it)."
        )
    if options.get("master_addr") is None:
        raise ParallelLayoutError(
            f"--nnodes {nnodes} needs --master-addr: the head node's address, the same on "
            "every node (vLLM's default, 127.0.0.1, cannot be reached from the others)."
        )


def _check_data_parallel(options: ParallelOptions) -> None:
    size = options.get("data_parallel_size")
    if size is None or size == 1:
        values: dict[str, object] = dict(options)
        for key in _DATA_PARALLEL_PLACEMENT:
            if values.get(key) is not None:
                raise ParallelLayoutError(
                    f"{_FLAG[key]} places data-parallel replicas: it needs "
                    "--data-parallel-size above 1."
                )
        return
    local = options.get("data_parallel_size_local")
    if local is not None and local > size:
        raise ParallelLayoutError(
            f"--data-parallel-size-local {local} is more than --data-parallel-size {size}."
        )
    start = options.get("data_parallel_start_rank")
    if start is not None and start >= size:
        raise ParallelLayoutError(
            f"--data-parallel-start-rank must be below --data-parallel-size {size}, got {start}."
        )
    spread = options.get("data_parallel_start_rank") is not None or (
        local is not None and local < size
    )
    # With the ray backend the head node places every replica itself: no handshake address.
    by_ray = options.get("data_parallel_backend") == "ray"
    if spread and not by_ray and options.get("data_parallel_address") is None:
        raise ParallelLayoutError(
            "Data-parallel replicas on several nodes need --data-parallel-address: the head "
            "node's address, the same on every node."
        )


def _warnings(options: ParallelOptions) -> list[str]:
    warnings: list[str] = []
    node_rank = options.get("node_rank")
    if node_rank and not options.get("headless"):
        warnings.append(
            f"--node-rank {node_rank} without --headless: this node also starts an API "
            "server. The nodes of one model usually serve from node 0 only; add --headless "
            "on the others."
        )
    if options.get("headless"):
        warnings.append(
            "--headless runs engines only: this node answers no HTTP request, and clients "
            "reach the model through the head node's API server."
        )
    return warnings
