"""`benchmarks/router_hybrid.py` over a `router_live.py --out` run from a scripted server."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.unit._router_extra import requires_router_extra
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

if importlib.util.find_spec("bfcl_eval") is None:
    pytest.skip(
        "bfcl-eval is not installed (pip install --no-deps bfcl-eval==2026.3.23)",
        allow_module_level=True,
    )

from benchmarks import router_hybrid, router_live

pytestmark = requires_router_extra


def calls_the_first_tool(request: RecordedRequest) -> Reply:
    """A model whose answer is always a call: `answer` says "call" to every example."""
    tools = (request.json or {}).get("tools") or []
    if not tools:
        return text("Hello.")
    return tool_call(tools[0]["function"]["name"], {})


@pytest.fixture(scope="module")
def run_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hybrid") / "router.json"
    with ScriptedModel(calls_the_first_tool).serve() as base_url:
        argv = ["--base-url", base_url, "--candidates", "answer", "--per-kind", "0.05"]
        assert router_live.main([*argv, "--out", str(out)]) == 0
    return out


def test_the_run_records_what_draws_its_sample_again(run_file: Path) -> None:
    run = json.loads(run_file.read_text())

    assert run["args"]["per_kind"] == 0.05
    assert [e.id for e in router_hybrid.sample_of(run)] == [
        e["id"] for e in run["examples"]["answer"]
    ]


def test_band_zero_is_the_embedding_router_and_band_one_the_model(
    run_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "curves.json"
    svg = tmp_path / "curves.svg"

    assert router_hybrid.main([str(run_file), "--out", str(out), "--svg", str(svg)]) == 0

    # The chart: an opaque background, accuracy and recall for the answer's band and floor
    # (this run has no `both`).
    drawn = svg.read_text()
    assert 'fill="#ffffff"' in drawn.split("\n")[1]
    assert drawn.count("<polyline") == 4

    [result] = json.loads(out.read_text())
    run = json.loads(run_file.read_text())
    verdicts = run["examples"]["answer"]
    embedding = result["embedding"]
    threshold = result["threshold"]
    points = {p["band"]: p for p in result["curves"]["answer"]}
    calls = [v for v in verdicts if v["should_call"]]

    alone = points[0.0]
    embedding_right = sum((embedding[v["id"]] >= threshold) == v["should_call"] for v in verdicts)
    assert alone["llm_share"] == 0.0
    assert alone["accuracy"] == pytest.approx(embedding_right / len(verdicts))

    # Every probability lies within 1.0 of the threshold: the model decides everything, and
    # this model calls every time.
    model = points[1.0]
    assert model["llm_share"] == 1.0
    assert model["recall"] == 1.0
    assert model["left_alone"] == 0.0
    assert model["accuracy"] == pytest.approx(len(calls) / len(verdicts))
    # `answer` rides on the stage-2 request: no band adds a request.
    assert {p["requests"] for p in points.values()} == {0.0}

    # Behind a floor the model decides above it and nothing below it is called.
    floors = {p["band"]: p for p in result["floors"]["answer"]}
    assert floors[0.0]["accuracy"] == model["accuracy"]
    kept = [v for v in calls if embedding[v["id"]] >= 0.2]
    assert floors[0.2]["recall"] == pytest.approx(len(kept) / len(calls))
    assert floors[0.2]["llm_share"] == pytest.approx(
        sum(embedding[v["id"]] >= 0.2 for v in verdicts) / len(verdicts)
    )


def test_a_run_whose_examples_are_not_its_sample_is_refused(run_file: Path, tmp_path: Path) -> None:
    run = json.loads(run_file.read_text())
    run["args"]["seed"] = 2
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(run))

    with pytest.raises(SystemExit, match="not the sample its arguments give"):
        router_hybrid.main([str(edited)])
