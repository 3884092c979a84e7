"""Reading the likely cause of a failed vLLM start from its log."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_sdk.launcher import CAUSES, diagnose
from toolcall_sdk.launcher._diagnosis import read_log_tail

# One real-looking line per cause, as vLLM, torch or huggingface_hub print them.
LINES = {
    "parser_tokenizer_mismatch": (
        "TypeError: --tool-call-parser llama3_json cannot be used with the tokenizer of '/m': "
        "Llama3JsonToolParser could not locate the bot token '<|python_tag|>' in the tokenizer."
    ),
    "unknown_tool_parser": (
        "KeyError: 'invalid tool call parser: qwen25 (chose from { hermes,mistral })'"
    ),
    "unknown_reasoning_parser": "KeyError: \"Reasoning parser 'qwen25' not found\"",
    "structured_outputs_flag": (
        "api_server.py: error: unrecognized arguments: --structured-outputs-config "
        '{"backend": "xgrammar", "disable_any_whitespace": true}'
    ),
    "unrecognized_argument": "vllm serve: error: unrecognized arguments: --enable-prompt-embeds",
    "port_in_use": (
        "OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', 8000): "
        "address already in use"
    ),
    "broken_vllm_script": (
        "importlib.metadata.PackageNotFoundError: No package metadata was found for vllm"
    ),
    "cpu_torchvision": "RuntimeError: operator torchvision::nms does not exist",
    "max_model_len_too_large": (
        "Value error, User-specified max_model_len (65536) is greater than the derived "
        "max_model_len (max_position_embeddings=32768)"
    ),
    "kv_cache_too_small": (
        "ValueError: The model's max seq len (32768) is larger than the maximum number of "
        "tokens that can be stored in KV cache (10272)."
    ),
    "gpu_busy": (
        "ValueError: Free memory on device (10.1/23.6 GiB) on startup is less than desired "
        "GPU memory utilization (0.9, 21.2 GiB)."
    ),
    "out_of_memory": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB.",
    "no_gpu": "RuntimeError: Failed to infer device type",
    "gated_model": (
        "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo"
    ),
    "model_not_found": (
        "huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. "
        "Repository Not Found for url"
    ),
    "no_network": "OSError: We couldn't connect to 'https://huggingface.co' to load this file",
    "trust_remote_code": (
        "ValueError: Loading this model requires you to execute the configuration file in "
        "that repo on your local machine. Set trust_remote_code=True"
    ),
    "chat_template": (
        "ValueError: The supplied chat template (examples/x.jinja) looks like a file path, "
        "but it failed to be opened"
    ),
    "unsupported_architecture": (
        "ValueError: Model architectures ['FooForCausalLM'] are not supported for now."
    ),
    "missing_module": "ModuleNotFoundError: No module named 'mistral_common'",
}


def test_every_cause_has_a_sample_line() -> None:
    assert {cause.key for cause in CAUSES} == set(LINES)


@pytest.mark.parametrize(("key", "line"), LINES.items())
def test_each_cause_is_recognised(key: str, line: str) -> None:
    log = f"INFO 01-01 starting\n{line}\nERROR Engine core initialization failed.\n"

    diagnosis = diagnose(log)

    assert diagnosis is not None
    assert diagnosis.cause.key == key
    assert diagnosis.line == line
    assert diagnosis.cause.fix in str(diagnosis)


def test_unrecognised_log() -> None:
    assert diagnose("INFO all good\nSegmentation fault\n") is None


def test_log_tail(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)), encoding="utf-8")

    assert read_log_tail(log, 3) == "line 97\nline 98\nline 99"
    assert read_log_tail(tmp_path / "missing.log") == ""


def test_parser_that_does_not_fit_the_tokenizer() -> None:
    from toolcall_sdk.launcher import diagnose

    log = (
        "TypeError: --tool-call-parser llama3_json cannot be used with the tokenizer of "
        "'/tmp/m': Llama3JsonToolParser could not locate the bot token '<|python_tag|>'"
    )
    diagnosis = diagnose(log)
    assert diagnosis is not None
    assert diagnosis.cause.key == "parser_tokenizer_mismatch"
    assert "--family" in diagnosis.cause.fix
