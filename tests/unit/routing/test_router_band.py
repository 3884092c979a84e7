"""Sizing the hybrid band from costs: the curve and the choice, on a histogram worked by hand."""

from __future__ import annotations

import pytest

from toolcall_sdk import EmbeddingRouter, HybridRouter, RouterError
from toolcall_sdk.routing import LLMAccuracy, band_for_costs, hybrid_curve

from .._router_extra import requires_router_extra

# Four bins; the threshold 0.5 sits between the second and the third.
HISTOGRAM = {"edges": [0.0, 0.25, 0.5, 0.75, 1.0], "calls": [0, 2, 3, 5], "skips": [4, 3, 1, 0]}
PERFECT = LLMAccuracy(recall=1.0, skip=1.0)


def test_without_a_band_the_embedding_decides_everything() -> None:
    (point,) = hybrid_curve(HISTOGRAM, 0.5, PERFECT, bands=[0.0])
    # Right: the 4 + 3 skips below the threshold and the 3 + 5 calls above it, of 18.
    assert point.llm_share == 0.0
    assert point.accuracy == pytest.approx(15 / 18)
    assert point.recall == pytest.approx(8 / 10)


def test_the_band_hands_the_middle_bins_to_the_llm() -> None:
    perfect, like_7b = (
        hybrid_curve(HISTOGRAM, 0.5, llm, bands=[0.2])[0]
        for llm in (PERFECT, LLMAccuracy(recall=0.78, skip=0.69))
    )
    assert perfect.llm_share == pytest.approx(9 / 18)  # the bins centred at 0.375 and 0.625
    assert perfect.accuracy == 1.0
    assert like_7b.accuracy == pytest.approx((4 + 5 + 5 * 0.78 + 4 * 0.69) / 18)
    assert like_7b.recall == pytest.approx((5 + 5 * 0.78) / 10)


def test_the_cheapest_band_depends_on_what_a_request_costs_against_an_error() -> None:
    bands = [0.0, 0.2, 0.4]
    # Errors dear: asking about half the cases (cost 0.5) beats 3 errors in 18 (cost 1.67).
    assert (
        band_for_costs(HISTOGRAM, 0.5, request_cost=1.0, error_cost=10.0, llm=PERFECT, bands=bands)
        == 0.2
    )
    # Errors as cheap as a request: the embedding router alone is cheapest.
    assert (
        band_for_costs(HISTOGRAM, 0.5, request_cost=1.0, error_cost=1.0, llm=PERFECT, bands=bands)
        == 0.0
    )
    # An LLM no better than chance inside the band is never worth asking.
    assert (
        band_for_costs(
            HISTOGRAM,
            0.5,
            request_cost=0.1,
            error_cost=10.0,
            llm=LLMAccuracy(0.5, 0.5),
            bands=bands,
        )
        == 0.0
    )


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        LLMAccuracy(recall=1.2)
    with pytest.raises(ValueError, match="0 or more"):
        band_for_costs(HISTOGRAM, 0.5, request_cost=-1.0, error_cost=1.0)
    with pytest.raises(RouterError, match="edges must be one more"):
        hybrid_curve({"edges": [0.0, 1.0], "calls": [1, 2], "skips": [0, 0]}, 0.5, PERFECT)


@requires_router_extra
def test_hybrid_for_costs_reads_the_bundled_histogram() -> None:
    embedding = EmbeddingRouter()
    histogram = embedding.calibration.info["histogram"]
    assert (
        sum(histogram["calls"]) + sum(histogram["skips"]) == embedding.calibration.info["examples"]
    )
    dear = HybridRouter.for_costs(
        embedding, request_cost=1.0, error_cost=100.0, llm_accuracy=PERFECT
    )
    cheap = HybridRouter.for_costs(
        embedding, request_cost=1.0, error_cost=1.0, llm_accuracy=PERFECT
    )
    assert dear.band > 0.0
    assert cheap.band == 0.0
    assert dear.embedding is embedding


def test_hybrid_for_costs_needs_a_histogram() -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    from toolcall_sdk.routing.embedding._calibration import Calibration

    bare = Calibration(("cos_max",), [0.5], [0.25], [1.0], 0.0, encoder="custom")
    embedding = EmbeddingRouter(bare, encoder=lambda texts: [[1.0] for _ in texts])
    with pytest.raises(RouterError, match="no out-of-fold histogram"):
        HybridRouter.for_costs(embedding, request_cost=1.0, error_cost=1.0)
