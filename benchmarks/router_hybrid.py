"""`HybridRouter` from real runs: the embedding router outside a band, the served model inside.

Reads the per-example verdicts that `benchmarks/router_live.py --out` wrote for a served
model (the `answer` candidate, and `both` when it was run), computes the embedding
router's probability for the same examples, and scores `HybridRouter(band=...)` for each
band width with the model's real verdicts inside the band:

- on the development sample, the probabilities are out of fold: the bundled features
  refitted on the other four folds (grouped by base case, the folds the bundled threshold
  and histogram were chosen on), so no example is scored by weights fitted on it;
- on the live sample (`router_live.py --live`), the bundled calibration as shipped: live
  data was never fitted on.

Prints, per LLM stage (`answer`: no routing request, the stage-2 answer under `auto`
decides inside the band; `both`: the routing question, then the answer) and band: the
share of decisions that reach the model, accuracy, recall of "call", the share of "no
call" left alone, precision, and what the routing question adds per decision (requests,
tokens, seconds: p50/p95 over all decisions, and its mean against the stage-2 request's
p50 from the same run). Then the bands `HybridRouter.for_costs` picks at several cost
ratios, given the model's measured accuracy, and what those bands scored.

    python benchmarks/router_live.py --base-url ... --candidates answer both --out run.json
    python benchmarks/router_hybrid.py run.json [--out curve.json]

Needs the `router` extra and `pip install --no-deps bfcl-eval==2026.3.23`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

if __name__ == "__main__":  # `python benchmarks/router_hybrid.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._routing_set import FOLDS, RoutingExample, fold_of, routing_dev_set
from benchmarks.router_live import dev_sample, live_sample
from toolcall_sdk.evals._svg import BACKGROUND
from toolcall_sdk.routing import LLMAccuracy, band_for_costs
from toolcall_sdk.routing.embedding import EmbeddingRouter

BANDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0)
FLOORS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4)
# Error cost over request cost: how many routing requests one wrong decision is worth.
COST_RATIOS = (2.0, 5.0, 10.0, 20.0, 50.0)
STAGES = ("answer", "both")


@dataclass(frozen=True, slots=True)
class Point:
    """One hybrid (LLM stage, band) scored on real verdicts."""

    stage: str
    rule: str  # "band": the model inside it; "floor": no call below it, the model above
    band: float  # the band's half-width, or the floor
    llm_share: float
    accuracy: float
    recall: float
    left_alone: float
    precision: float
    requests: float
    prompt_tokens: float
    completion_tokens: float
    added_mean_s: float
    added_p50_s: float
    added_p95_s: float


def out_of_fold_scores(
    router: EmbeddingRouter, wanted: Sequence[RoutingExample]
) -> dict[str, float]:
    """Each wanted development example's probability from weights fitted without its fold."""
    import numpy as np

    from toolcall_sdk.routing.embedding._calibration import fit_calibration
    from toolcall_sdk.routing.embedding._features import FEATURE_NAMES

    examples = [e for e in routing_dev_set() if e.tools]
    rows = router.feature_rows(e.as_case() for e in examples)
    names = router.calibration.feature_names
    matrix = np.asarray([r for r, _ in rows], dtype=np.float64)[
        :, [FEATURE_NAMES.index(n) for n in names]
    ]
    labels = np.asarray([float(y) for _, y in rows])
    folds = np.asarray([fold_of(e.group) for e in examples])
    index = {e.id: i for i, e in enumerate(examples)}
    scores: dict[str, float] = {}
    for fold in range(FOLDS):
        train = folds != fold
        model = fit_calibration(matrix[train], labels[train], names)
        for example in wanted:
            i = index.get(example.id)
            if i is not None and folds[i] == fold:
                scores[example.id] = float(model.probabilities(matrix[i : i + 1])[0])
    for example in wanted:
        scores.setdefault(example.id, 0.0)  # no tools: the router never calls
    return scores


def shipped_scores(router: EmbeddingRouter, examples: Sequence[RoutingExample]) -> dict[str, float]:
    """The bundled calibration's probability for each (held-out) example."""
    return {e.id: router.decide(e.messages, e.tools).score for e in examples}


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def score_band(
    stage: str,
    band: float,
    threshold: float,
    embedding: Mapping[str, float],
    verdicts: Sequence[Mapping[str, Any]],
) -> Point:
    """The hybrid at one band: the model's verdict inside it, the embedding's outside."""
    return _score(
        stage,
        "band",
        band,
        embedding,
        verdicts,
        asks=lambda p: abs(p - threshold) < band,
        otherwise=lambda p: p >= threshold,
    )


def score_floor(
    stage: str,
    floor: float,
    embedding: Mapping[str, float],
    verdicts: Sequence[Mapping[str, Any]],
) -> Point:
    """The embedding router as a screen: no call below `floor`, the model's verdict above.

    A lopsided band: the embedding router is trusted only where it is sure that no tool is
    needed, and never forces a call.
    """
    return _score(
        stage,
        "floor",
        floor,
        embedding,
        verdicts,
        asks=lambda p: p >= floor,
        otherwise=lambda p: False,
    )


def _score(
    stage: str,
    rule: str,
    width: float,
    embedding: Mapping[str, float],
    verdicts: Sequence[Mapping[str, Any]],
    *,
    asks: Callable[[float], bool],
    otherwise: Callable[[float], bool],
) -> Point:
    right = calls = made = skips = left = said_call = 0
    asked = 0
    added: list[float] = []
    prompt = completion = 0
    for verdict in verdicts:
        p = embedding[verdict["id"]]
        inside = asks(p)
        call = verdict["score"] >= 0.5 if inside else otherwise(p)
        should = bool(verdict["should_call"])
        right += call == should
        calls += should
        made += call and should
        skips += not should
        left += not call and not should
        said_call += call
        # Only `both` sends a request of its own; `answer` rides on the stage-2 request.
        sends = inside and stage == "both" and verdict["prompt_tokens"] > 0
        asked += inside
        added.append(verdict["seconds"] if sends else 0.0)
        prompt += verdict["prompt_tokens"] if sends else 0
        completion += verdict["completion_tokens"] if sends else 0
    n = len(verdicts)
    return Point(
        stage=stage,
        rule=rule,
        band=width,
        llm_share=asked / n,
        accuracy=right / n,
        recall=made / calls if calls else 0.0,
        left_alone=left / skips if skips else 0.0,
        precision=made / said_call if said_call else 0.0,
        requests=sum(s > 0 for s in added) / n,
        prompt_tokens=prompt / n,
        completion_tokens=completion / n,
        added_mean_s=statistics.mean(added),
        added_p50_s=_quantile(added, 0.5),
        added_p95_s=_quantile(added, 0.95),
    )


def _accuracy_of(verdicts: Sequence[Mapping[str, Any]]) -> LLMAccuracy:
    calls = [v for v in verdicts if v["should_call"]]
    skips = [v for v in verdicts if not v["should_call"]]
    return LLMAccuracy(
        recall=sum(v["score"] >= 0.5 for v in calls) / max(1, len(calls)),
        skip=sum(v["score"] < 0.5 for v in skips) / max(1, len(skips)),
    )


def _is_live(run: Mapping[str, Any]) -> bool:
    """Whether a router_live run scored the live categories."""
    return run.get("where") == "live categories" or bool((run.get("args") or {}).get("live"))


def sample_of(run: Mapping[str, Any]) -> list[RoutingExample]:
    """The examples a router_live run scored (its arguments, or router_live's defaults)."""
    args = run.get("args") or {}
    if _is_live(run):
        return live_sample(int(args.get("live_per_category", 30)), int(args.get("seed", 1)))
    return dev_sample(float(args.get("per_kind", 1.0)), int(args.get("seed", 1)))


def analyse(run: Mapping[str, Any], router: EmbeddingRouter) -> dict[str, Any]:
    """Every stage's curve and the cost-chosen bands for one router_live run."""
    examples = sample_of(run)
    recorded = run["examples"]
    ids = [e["id"] for e in recorded["answer"]]
    if ids != [e.id for e in examples]:
        raise SystemExit("the run's examples are not the sample its arguments give")
    embedding = (
        shipped_scores(router, examples) if _is_live(run) else out_of_fold_scores(router, examples)
    )
    threshold = router.threshold
    stored = router.calibration.info.get("histogram")
    histogram: dict[str, Any] = stored if isinstance(stored, dict) else {}
    out: dict[str, Any] = {
        "model": run.get("model"),
        "where": run.get("where"),
        "threshold": threshold,
        "stage2_p50_s": _quantile([v["seconds"] for v in recorded["answer"]], 0.5),
        "curves": {},
        "floors": {},
        # Each example's embedding probability, for scoring other combinations offline.
        "embedding": embedding,
        "for_costs": {},
    }
    for stage in STAGES:
        verdicts = recorded.get(stage)
        if not verdicts:
            continue
        points = [score_band(stage, b, threshold, embedding, verdicts) for b in BANDS]
        out["curves"][stage] = [vars_of(p) for p in points]
        floors = [score_floor(stage, f, embedding, verdicts) for f in FLOORS]
        out["floors"][stage] = [vars_of(p) for p in floors]
        measured = _accuracy_of(verdicts)
        chosen = []
        for ratio in COST_RATIOS if histogram else ():
            band = band_for_costs(
                histogram, threshold, request_cost=1.0, error_cost=ratio, llm=measured
            )
            point = score_band(stage, band, threshold, embedding, verdicts)
            chosen.append({"error_over_request": ratio, **vars_of(point)})
        out["for_costs"][stage] = {
            "llm_recall": measured.recall,
            "llm_skip": measured.skip,
            "bands": chosen,
        }
    return out


def vars_of(point: Point) -> dict[str, Any]:
    return {name: getattr(point, name) for name in Point.__slots__}


def _print_point(p: Mapping[str, Any], stage2_p50_s: float) -> None:
    share = p["added_mean_s"] / stage2_p50_s if stage2_p50_s else 0
    print(
        f"{p['stage']:7} {p['band']:4.2f}  {p['llm_share']:9.3f}  {p['accuracy']:.3f}  "
        f"{p['recall']:.3f}  {p['left_alone']:.3f}  {p['precision']:.3f}  "
        f"{p['requests']:7.2f} {p['prompt_tokens']:6.0f}+{p['completion_tokens']:<5.1f} "
        f"{p['added_p50_s']:6.2f}/{p['added_p95_s']:.2f}/{p['added_mean_s']:.2f}"
        f"  {share:8.2f}"
    )


def report(result: Mapping[str, Any]) -> None:
    print(
        f"{result['model']} on the {result['where']}: embedding threshold "
        f"{result['threshold']:.3f}, stage-2 request p50 {result['stage2_p50_s']:.2f}s"
    )
    header = (
        "stage   band  LLM share  acc    recall left   prec   req/dec tokens/dec   "
        "added p50/p95/mean s  mean/stage-2 p50"
    )
    for stage, points in result["curves"].items():
        print(header)
        for p in points:
            _print_point(p, result["stage2_p50_s"])
        floors = result["floors"].get(stage) or []
        if floors:
            print(f"  {stage} behind an embedding floor (no call below it; `band` is the floor):")
            for p in floors:
                _print_point(p, result["stage2_p50_s"])
        costs = result["for_costs"].get(stage)
        if costs and costs["bands"]:
            print(
                f"  for_costs with the measured {stage} accuracy (recall "
                f"{costs['llm_recall']:.3f}, skip {costs['llm_skip']:.3f}):"
            )
            for row in costs["bands"]:
                print(
                    f"    error = {row['error_over_request']:>4g} requests: band "
                    f"{row['band']:.3f}, LLM share {row['llm_share']:.3f}, accuracy "
                    f"{row['accuracy']:.3f}, recall {row['recall']:.3f}"
                )


_SERIES = (  # (curve key, stage, colour, label)
    ("curves", "answer", "#1565c0", "band, answer decides inside"),
    ("curves", "both", "#c62828", "band, routing question inside"),
    ("floors", "answer", "#2e7d32", "floor, answer decides above"),
)


def curves_svg(results: Sequence[Mapping[str, Any]]) -> str:
    """One panel per run: accuracy (solid) and recall (dashed) against the band or floor.

    Written directly, on an opaque white background, like the ladder's chart.
    """
    panel_w, panel_h, left, top = 330, 230, 50, 60
    width = left + len(results) * (panel_w + 40)
    height = top + panel_h + 110
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="{BACKGROUND}"/>',
        '<text x="10" y="22" font-size="15" font-weight="bold">HybridRouter from real runs: '
        "accuracy (solid) and recall of calls (dashed)</text>",
    ]
    low, right = 0.5, 0.5  # accuracy and recall below 0.5 sit on the axis; bands past 0.5 hold all
    for index, result in enumerate(results):
        x0 = left + index * (panel_w + 40)

        def at(width_: float, value: float, x0: float = x0) -> tuple[float, float]:
            return x0 + panel_w * width_ / right, top + panel_h * (1 - value) / (1 - low)

        model = str(result.get("model", "")).split("/")[-1].replace("-Instruct", "")
        where = "live, held out" if "non-live" not in str(result.get("where")) else "non-live"
        parts.append(
            f'<text x="{x0}" y="{top - 12}" font-weight="bold">{escape(model)}, {where}</text>'
        )
        parts.append(
            f'<rect x="{x0}" y="{top}" width="{panel_w}" height="{panel_h}" fill="none" '
            'stroke="#999"/>'
        )
        for tick in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            _, y = at(0, tick)
            parts.append(f'<text x="{x0 - 30}" y="{y + 4:.1f}">{tick:.1f}</text>')
        for tick in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5):
            x, _ = at(tick, low)
            parts.append(f'<text x="{x - 8:.1f}" y="{top + panel_h + 16}">{tick:g}</text>')
        parts.append(
            f'<text x="{x0 + panel_w / 2 - 60}" y="{top + panel_h + 32}">band or floor</text>'
        )
        for key, stage, colour, _label in _SERIES:
            points = (result.get(key) or {}).get(stage) or []
            for metric, dash in (("accuracy", ""), ("recall", ' stroke-dasharray="5,3"')):
                coords = " ".join(
                    "{:.1f},{:.1f}".format(*at(p["band"], max(low, p[metric])))
                    for p in points
                    if p["band"] <= right
                )
                if coords:
                    parts.append(
                        f'<polyline points="{coords}" fill="none" stroke="{colour}" '
                        f'stroke-width="2"{dash}/>'
                    )
    legend_y = top + panel_h + 56
    for index, (_key, _stage, colour, label) in enumerate(_SERIES):
        x = left + index * 230
        parts.append(
            f'<line x1="{x}" y1="{legend_y}" x2="{x + 24}" y2="{legend_y}" stroke="{colour}" '
            'stroke-width="3"/>'
        )
        parts.append(f'<text x="{x + 30}" y="{legend_y + 4}">{escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("runs", nargs="+", help="router_live.py --out files")
    parser.add_argument("--out", help="write the curves as JSON here")
    parser.add_argument("--svg", help="draw the curves here (one panel per run)")
    args = parser.parse_args(argv)
    router = EmbeddingRouter()
    results = []
    for path in args.runs:
        run = json.loads(Path(path).read_text())
        if "answer" not in run.get("examples", {}):
            raise SystemExit(f"{path}: no `answer` verdicts (run router_live with it)")
        result = analyse(run, router)
        report(result)
        results.append(result)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    if args.svg:
        Path(args.svg).write_text(curves_svg(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
