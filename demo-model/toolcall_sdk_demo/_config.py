"""What a demo model build depends on, its content hash, and where the build is cached."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

# Bump when the builder changes in a way the source digest cannot see (e.g. a dependency's
# behaviour it relies on).
BUILDER_VERSION: Final = 1
# Files whose content is part of the build's identity: a changed generator, template or
# training loop must not reuse a model built by the old one.
_SOURCE_FILES: Final = (
    "_circuit.py",
    "_config.py",
    "_data.py",
    "_template.py",
    "_tokenizer.py",
    "_toolbox.py",
    "_train.py",
    "chat_template.jinja",
)
CACHE_ENV: Final = "TOOLCALL_DEMO_CACHE"


@dataclass(frozen=True)
class DemoConfig:
    """Everything that decides the demo model's weights (all of it goes into the hash).

    The defaults train in about five minutes on two CPU cores.
    """

    # `<tool_call>` / `</tool_call>` as single vocabulary entries (True) or split into
    # `<`, `tool`, `_`, `call`, `>` (False, the default: the case of seed 000).
    tag_tokens: bool = False
    seed: int = 0
    vocab_size: int = 4096
    hidden_size: int = 256
    num_layers: int = 4
    # Two heads of 128 (vLLM's CPU attention backend accepts head sizes 32, 64, 80, 96,
    # 112, 128, ...): wide heads leave room for both position-sensitive (high-frequency)
    # and position-blind (low-frequency) rotary dimensions, which the copy circuit needs.
    num_heads: int = 2
    num_kv_heads: int = 2
    head_dim: int = 128
    intermediate_size: int = 768
    # Qwen2.5's value; its low rotary frequencies barely turn over a 2k context.
    rope_theta: float = 1_000_000.0
    # Start from hand-set weights that copy tokens (see _circuit.py) instead of waiting for
    # gradient descent to discover induction heads, which takes far longer than minutes.
    copy_circuit: bool = True
    max_position_embeddings: int = 2048
    train_examples: int = 4800
    tokenizer_examples: int = 3000
    steps: int = 300
    batch_size: int = 16
    learning_rate: float = 2e-3
    warmup_steps: int = 20
    weight_decay: float = 0.01
    # Fixed so that a build gives the same weights on any machine with the same libraries;
    # more threads than cores only costs a little.
    threads: int = 2

    def __post_init__(self) -> None:
        if self.head_dim not in (32, 64, 80, 96, 112, 128, 160, 192, 224, 256):
            raise ValueError(f"head_dim={self.head_dim} is not supported by vLLM's CPU backend")
        if self.num_heads % self.num_kv_heads:
            raise ValueError("num_heads must be a multiple of num_kv_heads")

    def as_dict(self) -> dict[str, Any]:
        """The config as plain JSON-able data."""
        return dataclasses.asdict(self)

    @property
    def variant(self) -> str:
        """A short name of the tokenizer variant."""
        return "tag-tokens" if self.tag_tokens else "split-tags"


def source_digest() -> str:
    """SHA-256 over the builder's own source files.

    Python files count by their syntax tree, so reformatting them or editing comments does
    not throw away a cached model (a rebuild costs minutes); the template counts byte by byte.
    """
    digest = hashlib.sha256()
    package = resources.files(__package__)
    for name in _SOURCE_FILES:
        text = package.joinpath(name).read_text("utf-8")
        if name.endswith(".py"):
            text = ast.dump(ast.parse(text))
        digest.update(name.encode())
        digest.update(text.encode())
    return digest.hexdigest()


def config_hash(config: DemoConfig) -> str:
    """The build's identity: config, builder version and builder source (16 hex digits)."""
    payload = json.dumps(
        {"config": config.as_dict(), "builder": BUILDER_VERSION, "source": source_digest()},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def cache_root() -> Path:
    """`$TOOLCALL_DEMO_CACHE`, else `<user cache dir>/toolcall-sdk/demo-model`."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolcall-sdk")) / "demo-model"


def default_model_dir(config: DemoConfig) -> Path:
    """Where the build for `config` lives in the cache."""
    return cache_root() / f"{config.variant}-{config_hash(config)}"
