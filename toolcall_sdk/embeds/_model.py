"""What the client can learn about the served model without vLLM: width, context, weights.

- `hidden_size_of(path)`: the `hidden_size` in a model folder's `config.json`, or in the
  Hugging Face cache's copy for a model id (read only; nothing is downloaded).
- `served_limits(body, model)`: `max_model_len` and the model's path (`root`) from vLLM's
  `GET /v1/models` answer; the width follows from the path when it is on this machine.
- `embedding_matrix(path)`: the input embedding matrix from the model's safetensors files,
  to embed a prompt the way the served model does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_sdk._errors import PromptEmbedsError
from toolcall_sdk._extras import require
from toolcall_sdk.embeds._codec import EXTRA

__all__ = ["ServedLimits", "embedding_matrix", "hidden_size_of", "served_limits"]

# Where model configs keep their width: most decoders, multimodal wrappers, GPT-2, T5/BART.
_WIDTH_KEYS = ("hidden_size", "n_embd", "d_model")
# Input embedding tensors, by the names the common architectures save them under.
_EMBEDDING_SUFFIXES = ("embed_tokens.weight", "wte.weight", "word_embeddings.weight")


@dataclass(frozen=True, slots=True)
class ServedLimits:
    """What `GET /v1/models` says about one served model (None: not said)."""

    max_model_len: int | None = None
    root: str | None = None


def served_limits(body: Any, model: str) -> ServedLimits:
    """Read `max_model_len` and `root` of `model` from a `GET /v1/models` body (vLLM's fields)."""
    data = body.get("data") if isinstance(body, Mapping) else None
    for entry in data if isinstance(data, list) else ():
        if isinstance(entry, Mapping) and entry.get("id") == model:
            length = entry.get("max_model_len")
            root = entry.get("root")
            return ServedLimits(
                max_model_len=length if isinstance(length, int) and length > 0 else None,
                root=root if isinstance(root, str) and root else None,
            )
    return ServedLimits()


def width_from_config(config: Any) -> int | None:
    """The hidden size a model's `config.json` content gives, or None."""
    if not isinstance(config, Mapping):
        return None
    for key in _WIDTH_KEYS:
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    # Multimodal models keep the language model's config inside.
    return width_from_config(config.get("text_config"))


def hidden_size_of(model: str | os.PathLike[str]) -> int | None:
    """The hidden size of a local model folder, or of a model id in the Hugging Face cache.

    Returns None when neither holds a readable `config.json` (nothing is downloaded).
    """
    config = _config_path(model)
    if config is None:
        return None
    try:
        return width_from_config(json.loads(config.read_text("utf-8")))
    except (OSError, ValueError):
        return None


def embedding_matrix(model_dir: str | os.PathLike[str]) -> Any:
    """The input embedding matrix `(vocab_size, hidden_size)` of a local model folder.

    Read from its safetensors files (sharded or not) without building the model, so a
    prompt can be embedded exactly as the model embeds its tokens: `matrix[token_ids]`.
    Needs `safetensors` and torch.

    Raises:
        PromptEmbedsError: The folder has no safetensors weights, or no embedding matrix
            whose width matches its config.
    """
    safe_open = require("safetensors", extra=EXTRA, feature="reading an embedding matrix").safe_open
    folder = Path(model_dir)
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise PromptEmbedsError(
            f"{folder} holds no *.safetensors file; pass the folder of a model saved with "
            "save_pretrained(safe_serialization=True)",
            where=str(folder),
        )
    width = hidden_size_of(folder)
    for file in files:
        with safe_open(str(file), framework="pt") as weights:
            for key in sorted(weights.keys()):
                if not key.endswith(_EMBEDDING_SUFFIXES):
                    continue
                tensor = weights.get_tensor(key)
                if tensor.dim() == 2 and (width is None or tensor.shape[1] == width):
                    return tensor
    raise PromptEmbedsError(
        f"no input embedding matrix (a tensor named *{'/'.join(_EMBEDDING_SUFFIXES)}"
        f"{f' of width {width}' if width else ''}) in {folder}",
        where=str(folder),
    )


def _config_path(model: str | os.PathLike[str]) -> Path | None:
    path = Path(model)
    if (path / "config.json").is_file():
        return path / "config.json"
    text = os.fspath(model)
    if text.count("/") != 1 or path.is_absolute():
        return None
    # The Hugging Face hub cache layout: models--ORG--NAME/refs/main names the snapshot.
    hub = _hub_cache() / f"models--{text.replace('/', '--')}"
    try:
        revision = (hub / "refs" / "main").read_text("utf-8").strip()
    except OSError:
        return None
    config = hub / "snapshots" / revision / "config.json"
    return config if config.is_file() else None


def _hub_cache() -> Path:
    explicit = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return Path(explicit)
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home) / "hub"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "huggingface" / "hub"
