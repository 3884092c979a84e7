"""Sizing the hybrid router's band from costs: when is asking the LLM worth a request?

A `HybridRouter` asks the LLM about decisions whose embedding probability lies within
`band` of the threshold. Each such request costs something (tokens, latency); each wrong
decision costs something else (a dropped request, a forced needless call). With the
embedding router's out-of-fold probabilities on its development data, stored in its
calibration as a histogram of "call" and "no call" examples per probability bin, the
expected cost of every band width can be computed:

    cost(band) = request_cost * share_in_band
               + error_cost * (embedding errors outside the band + LLM errors inside it)

where the LLM's errors come from an assumed recall (share of needed calls it makes) and
correct-skip rate. `band_for_costs` returns the width with the lowest expected cost;
`hybrid_curve` the accuracy against the LLM share for a list of widths. Pure Python: the
histogram is a few hundred numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolcall_sdk._errors import RouterError

__all__ = ["BAND_WIDTHS", "CurvePoint", "LLMAccuracy", "band_for_costs", "hybrid_curve"]

#: The band widths considered (half-widths on the probability scale around the threshold).
BAND_WIDTHS: tuple[float, ...] = tuple(round(0.025 * i, 3) for i in range(21))


@dataclass(frozen=True, slots=True)
class LLMAccuracy:
    """What the LLM router is assumed to get right on the cases it is asked about.

    Attributes:
        recall: The share of needed calls it says "call" for.
        skip: The share of no-call requests it leaves alone.
    """

    recall: float = 0.9
    skip: float = 0.8

    def __post_init__(self) -> None:
        if not (0.0 <= self.recall <= 1.0 and 0.0 <= self.skip <= 1.0):
            raise ValueError("LLM recall and skip rate must be between 0 and 1")


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One band width: how often the LLM is asked and the accuracy that gives.

    Attributes:
        band: The half-width around the threshold.
        llm_share: The share of decisions sent to the LLM.
        accuracy: The expected accuracy of the hybrid's decisions.
        recall: The expected share of needed calls it makes.
    """

    band: float
    llm_share: float
    accuracy: float
    recall: float


def hybrid_curve(
    histogram: Mapping[str, Any],
    threshold: float,
    llm: LLMAccuracy,
    bands: Sequence[float] = BAND_WIDTHS,
) -> list[CurvePoint]:
    """The hybrid's expected accuracy and LLM share for each band width.

    Args:
        histogram: `{"edges": [...], "calls": [...], "skips": [...]}`: counts of "call" and
            "no call" examples per probability bin (`edges` has one more entry).
        threshold: The embedding router's threshold.
        llm: The LLM router's assumed accuracy on the cases it is asked about.
        bands: The widths to evaluate.
    """
    edges, calls, skips = _read(histogram)
    total = sum(calls) + sum(skips)
    all_calls = max(1.0, sum(calls))
    points = []
    for band in bands:
        right = made = asked = 0.0
        for low, high, c, k in zip(edges, edges[1:], calls, skips, strict=False):
            middle = (low + high) / 2
            if abs(middle - threshold) < band:
                asked += c + k
                right += c * llm.recall + k * llm.skip
                made += c * llm.recall
            elif middle >= threshold:
                right += c
                made += c
            else:
                right += k
        points.append(
            CurvePoint(
                band=band,
                llm_share=asked / total if total else 0.0,
                accuracy=right / total if total else 0.0,
                recall=made / all_calls,
            )
        )
    return points


def band_for_costs(
    histogram: Mapping[str, Any],
    threshold: float,
    *,
    request_cost: float,
    error_cost: float,
    llm: LLMAccuracy | None = None,
    bands: Sequence[float] = BAND_WIDTHS,
) -> float:
    """The band width with the lowest expected cost per decision.

    Args:
        histogram: As for `hybrid_curve`.
        threshold: The embedding router's threshold.
        request_cost: The cost of one LLM routing request.
        error_cost: The cost of one wrong decision, in the same unit.
        llm: The LLM's assumed accuracy (default `LLMAccuracy()`).
        bands: The widths to choose from.

    Raises:
        ValueError: A negative cost.
    """
    if request_cost < 0 or error_cost < 0:
        raise ValueError("costs must be 0 or more")
    curve = hybrid_curve(histogram, threshold, llm or LLMAccuracy(), bands)
    costs = [(request_cost * p.llm_share + error_cost * (1.0 - p.accuracy), p.band) for p in curve]
    # Ties go to the narrower band: the same cost with fewer requests to the model.
    return min(costs)[1]


def _read(histogram: Mapping[str, Any]) -> tuple[list[float], list[float], list[float]]:
    try:
        edges = [float(v) for v in histogram["edges"]]
        calls = [float(v) for v in histogram["calls"]]
        skips = [float(v) for v in histogram["skips"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise RouterError(f"malformed probability histogram: {exc}") from exc
    if not (len(edges) == len(calls) + 1 == len(skips) + 1):
        raise RouterError("malformed probability histogram: edges must be one more than counts")
    return edges, calls, skips
