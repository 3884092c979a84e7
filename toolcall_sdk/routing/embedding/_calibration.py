"""The fitted state of the embedding router: a logistic model over its features.

Stored as plain JSON (feature names, standardisation, weights, threshold and how it was
made) so a calibration can be reviewed, diffed and loaded without unpickling anything.
Fitting is a few Newton steps of L2-regularised logistic regression in numpy: with about
twenty features and a few thousand examples it takes milliseconds and needs no solver.

Needs numpy (the `router` extra).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from toolcall_sdk._errors import RouterError

__all__ = [
    "FORMAT",
    "Calibration",
    "choose_threshold",
    "fit_calibration",
    "probability_histogram",
    "refresh_calibration",
]

FORMAT = "toolcall-sdk/embedding-router-calibration/v1"
# Files written before encoders had names were all fitted with MiniLM.
_FIRST_ENCODER = "minilm"
# Ridge strength on standardised features: enough to keep correlated cosine features
# from trading huge opposite weights, small next to a few thousand examples.
_L2 = 1.0
_NEWTON_STEPS = 50


@dataclass(slots=True)
class Calibration:
    """A fitted logistic model over named features.

    Attributes:
        feature_names: The features, in the order the weights use.
        mean: Per-feature mean used for standardisation.
        scale: Per-feature standard deviation used for standardisation.
        weights: One weight per standardised feature.
        bias: The intercept.
        threshold: Probability at or above which the router decides "call".
        info: How it was made (data, counts, scores on the fitting data).
        encoder: The encoder whose embeddings the features were computed from.
    """

    feature_names: tuple[str, ...]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    threshold: float = 0.5
    info: dict[str, Any] = field(default_factory=dict)
    encoder: str = _FIRST_ENCODER

    def probability(self, values: Sequence[float]) -> float:
        """The probability that a call is needed, for one feature vector."""
        z = self.bias
        for value, mean, scale, weight in zip(
            values, self.mean, self.scale, self.weights, strict=True
        ):
            z += weight * (value - mean) / scale
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def probabilities(self, matrix: NDArray[np.float64]) -> NDArray[np.float64]:
        """Probabilities for a matrix of feature vectors (one per row)."""
        z = ((matrix - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(
            self.weights
        ) + self.bias
        result: NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))
        return result

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form."""
        return {
            "format": FORMAT,
            "encoder": self.encoder,
            "feature_names": list(self.feature_names),
            "mean": self.mean,
            "scale": self.scale,
            "weights": self.weights,
            "bias": self.bias,
            "threshold": self.threshold,
            "info": self.info,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        """Read the form written by `to_dict`.

        Raises:
            RouterError: The data is not a calibration of this format.
        """
        if data.get("format") != FORMAT:
            raise RouterError(
                f"not an embedding-router calibration (format {data.get('format')!r}, "
                f"expected {FORMAT!r})"
            )
        try:
            names = tuple(str(n) for n in data["feature_names"])
            calibration = cls(
                feature_names=names,
                mean=[float(v) for v in data["mean"]],
                scale=[float(v) for v in data["scale"]],
                weights=[float(v) for v in data["weights"]],
                bias=float(data["bias"]),
                threshold=float(data["threshold"]),
                info=dict(data.get("info") or {}),
                encoder=str(data.get("encoder") or _FIRST_ENCODER),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RouterError(f"malformed embedding-router calibration: {exc}") from exc
        sizes = {len(names), len(calibration.mean), len(calibration.scale)}
        if sizes != {len(calibration.weights)}:
            raise RouterError("malformed embedding-router calibration: vector sizes differ")
        _check_numbers(calibration)
        return calibration

    def save(self, path: str | Path) -> None:
        """Write the calibration as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration written by `save`.

        Raises:
            RouterError: The file is missing, not JSON, or not a calibration.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RouterError(f"cannot read the router calibration {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise RouterError(f"{path} does not hold a router calibration")
        return cls.from_dict(data)


def _check_numbers(calibration: Calibration) -> None:
    """Refuse numbers that would break every later decision rather than fail loudly now.

    A NaN compares false with everything (the router would never call), and a zero scale
    divides by zero on the first request.
    """
    vectors = {"mean": calibration.mean, "weights": calibration.weights}
    for name, values in vectors.items():
        if not all(math.isfinite(v) for v in values):
            raise RouterError(f"malformed embedding-router calibration: {name} is not finite")
    if not all(math.isfinite(v) and v > 0 for v in calibration.scale):
        raise RouterError("malformed embedding-router calibration: every scale must be > 0")
    if not math.isfinite(calibration.bias):
        raise RouterError("malformed embedding-router calibration: bias is not finite")
    if not 0.0 <= calibration.threshold <= 1.0:  # also false for NaN
        raise RouterError(
            "malformed embedding-router calibration: threshold must be between 0 and 1"
        )


def fit_calibration(
    matrix: NDArray[np.float64],
    labels: NDArray[np.float64],
    feature_names: Sequence[str],
    *,
    min_recall: float = 0.95,
    info: Mapping[str, Any] | None = None,
    encoder: str = _FIRST_ENCODER,
) -> Calibration:
    """Fit the logistic model and choose the threshold on the same examples.

    Classes are weighted to count equally, so the fitted probabilities do not depend on how
    many examples of each kind the data happened to have.

    Args:
        matrix: Feature vectors, one per row.
        labels: 1 for "call", 0 for "no call".
        feature_names: The names of the columns.
        min_recall: The threshold is the highest one whose recall of "call" reaches this.
        info: Stored with the result.
        encoder: The encoder the features came from (stored with the result).

    Raises:
        RouterError: Fewer than two examples of either class.
    """
    labels = labels.astype(np.float64)
    positives = float(labels.sum())
    negatives = float(len(labels) - positives)
    if positives < 2 or negatives < 2:
        raise RouterError(
            "fitting needs at least two 'call' and two 'no call' examples "
            f"(got {positives:.0f} and {negatives:.0f})"
        )
    mean = matrix.mean(axis=0)
    scale = matrix.std(axis=0)
    scale[scale < 1e-9] = 1.0
    standard = (matrix - mean) / scale
    weight = np.where(labels > 0, len(labels) / (2 * positives), len(labels) / (2 * negatives))
    coef, bias = _newton(standard, labels, weight)
    calibration = Calibration(
        feature_names=tuple(feature_names),
        mean=[float(v) for v in mean],
        scale=[float(v) for v in scale],
        weights=[float(v) for v in coef],
        bias=float(bias),
        info=dict(info or {}),
        encoder=encoder,
    )
    calibration.threshold = choose_threshold(calibration.probabilities(matrix), labels, min_recall)
    return calibration


def refresh_calibration(
    matrix: NDArray[np.float64],
    labels: NDArray[np.float64],
    prior: Calibration,
    *,
    strength: float = 20.0,
    min_recall: float = 0.95,
    info: Mapping[str, Any] | None = None,
) -> Calibration:
    """Update a calibration with new labelled examples, staying close to it.

    The features and their standardisation stay the prior's; the weights and the bias are
    fitted to the new examples with a penalty `strength` pulling each toward the prior's
    value (a few dozen examples move it a little, thousands move it a lot), and the
    threshold is chosen on the new examples for `min_recall`.

    Args:
        matrix: Feature vectors in the prior's feature order.
        labels: 1 for "call", 0 for "no call".
        prior: The calibration to start from.
        strength: How hard the weights are held to the prior's (more than 0).
        min_recall: The share of the new "call" examples the threshold keeps.
        info: Added to the prior's info under `refreshed`.

    Raises:
        RouterError: Fewer than two examples of either class.
    """
    labels = labels.astype(np.float64)
    positives = float(labels.sum())
    negatives = float(len(labels) - positives)
    if positives < 2 or negatives < 2:
        raise RouterError(
            "refreshing needs at least two 'call' and two 'no call' examples "
            f"(got {positives:.0f} and {negatives:.0f})"
        )
    standard = (matrix - np.asarray(prior.mean)) / np.asarray(prior.scale)
    weight = np.where(labels > 0, len(labels) / (2 * positives), len(labels) / (2 * negatives))
    start = np.asarray([*prior.weights, prior.bias], dtype=np.float64)
    coef, bias = _newton(standard, labels, weight, prior=start, strength=strength)
    refreshed = Calibration(
        feature_names=prior.feature_names,
        mean=list(prior.mean),
        scale=list(prior.scale),
        weights=[float(v) for v in coef],
        bias=float(bias),
        info={**prior.info, "refreshed": dict(info or {})},
        encoder=prior.encoder,
    )
    refreshed.threshold = choose_threshold(refreshed.probabilities(matrix), labels, min_recall)
    return refreshed


def choose_threshold(
    probabilities: NDArray[np.float64], labels: NDArray[np.float64], min_recall: float
) -> float:
    """The highest threshold whose recall of "call" is at least `min_recall`.

    Highest, because among the thresholds that keep enough calls it lets the most
    "no call" cases through correctly.
    """
    positives = np.sort(probabilities[labels > 0])
    if positives.size == 0:
        return 0.5
    # Keep the top `min_recall` share of the positives at or above the threshold.
    index = math.floor((1.0 - min_recall) * positives.size)
    return float(positives[min(index, positives.size - 1)])


def probability_histogram(
    probabilities: NDArray[np.float64], labels: NDArray[np.float64], bins: int = 40
) -> dict[str, list[float]]:
    """Counts of "call" and "no call" examples per probability bin (equal widths on 0-1).

    Stored in a calibration's `info["histogram"]` from out-of-fold probabilities, it lets
    `HybridRouter.for_costs` size the band without the data it came from.
    """
    edges = np.linspace(0.0, 1.0, bins + 1)
    calls, _ = np.histogram(probabilities[labels > 0], bins=edges)
    skips, _ = np.histogram(probabilities[labels == 0], bins=edges)
    return {
        "edges": [round(float(e), 6) for e in edges],
        "calls": [int(c) for c in calls],
        "skips": [int(k) for k in skips],
    }


def _newton(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    weight: NDArray[np.float64],
    *,
    prior: NDArray[np.float64] | None = None,
    strength: float = _L2,
) -> tuple[NDArray[np.float64], float]:
    rows, columns = x.shape
    design = np.hstack([x, np.ones((rows, 1))])
    center = prior if prior is not None else np.zeros(columns + 1)
    theta = center.copy()
    penalty = np.full(columns + 1, strength)
    if prior is None:
        penalty[-1] = 0.0  # a fresh fit does not shrink the intercept
    for _ in range(_NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -50.0, 50.0)))
        gradient = design.T @ (weight * (p - y)) + penalty * (theta - center)
        hessian = (design * (weight * p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return theta[:-1], float(theta[-1])
