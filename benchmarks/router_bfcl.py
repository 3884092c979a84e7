"""Stage-1 routers on BFCL: fitted on the non-live categories, scored on the live ones.

The honest transfer: everything that is fitted or chosen (the embedding router's weights and
threshold, the baseline's threshold) comes from the non-live categories and synthetic
variants of them (`benchmarks/_routing_set.py`); the live categories are only scored.

Printed side by side for the held-out live set (live_simple, live_multiple, live_parallel,
live_parallel_multiple, live_relevance as "call"; live_irrelevance as "no call"):
accuracy, precision and recall of "call", correct-skip rate (no-call cases left alone),
ROC AUC, top-1/top-3 shortlist recall on live_multiple, p50/p95 latency per decision with
the toolbox's embeddings cached, and the model load time.

    python benchmarks/router_bfcl.py                 # score the bundled calibration
    python benchmarks/router_bfcl.py --refit         # fit on non-live data, then score
    python benchmarks/router_bfcl.py --fit-default   # refit and write the bundled file
    python benchmarks/router_bfcl.py --dev           # non-live protocol only, no live data
    python benchmarks/router_bfcl.py --timing        # load time and latency only (non-live)
    python benchmarks/router_bfcl.py --llm-base-url http://gpu:8000/v1 --llm-model M
                                                     # also LLMRouter and HybridRouter

Needs `pip install -e '.[router]'` and `pip install --no-deps bfcl-eval==2026.3.23`.
Embeddings are cached under ~/.cache/toolcall-sdk/router-bench/, so reruns take seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

# The model is loaded first, in a fresh process, so its time is the real cold load.
_started = time.perf_counter()
from toolcall_sdk.routing.embedding._router import (  # noqa: E402
    DEFAULT_CALIBRATION,
    EmbeddingRouter,
    load_minilm,
)

MODEL = load_minilm("cpu")
LOAD_S = time.perf_counter() - _started

from _routing_set import CLOSERS, PREAMBLES, RoutingExample, routing_dev_set  # noqa: E402

from toolcall_sdk.bfcl import LIVE_CATEGORIES, NON_LIVE_CATEGORIES, load_category  # noqa: E402
from toolcall_sdk.routing._tool_specs import ToolSpec, tool_specs  # noqa: E402
from toolcall_sdk.routing.embedding._calibration import (  # noqa: E402
    Calibration,
    choose_threshold,
    fit_calibration,
)
from toolcall_sdk.routing.embedding._features import FEATURE_NAMES  # noqa: E402
from toolcall_sdk.routing.embedding._text import read_conversation  # noqa: E402

CACHE_DIR = Path.home() / ".cache" / "toolcall-sdk" / "router-bench"
MIN_RECALL = 0.95  # the threshold keeps this share of non-live "call" cases (out of fold)
FOLDS = 5
LATENCY_SAMPLE = 200
# A feature joins the model only if it raises leave-one-kind-out accuracy by this much.
SELECTION_MIN_GAIN = 0.002


class DiskCachedEncoder:
    """MiniLM embeddings remembered on disk by text hash (the model never changes here)."""

    def __init__(self, model: Any, path: Path) -> None:
        self.model = model
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
            encoded = self.model.encode(
                unique, batch_size=64, normalize_embeddings=True, convert_to_numpy=True
            )
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
) -> tuple[EmbeddingRouter, dict[str, Any]]:
    """Fit the calibration on non-live data only.

    Features are chosen by leave-one-kind-out accuracy; the threshold comes from
    out-of-fold scores (folds grouped by base case); the weights from all the data.
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
    print("feature selection (leave-one-kind-out accuracy):")
    for name, score in path:
        print(f"  + {name:28} {score:.3f}")
    matrix = everything[:, [FEATURE_NAMES.index(n) for n in chosen]]
    transfer = kind_out_report(matrix, labels, kinds)
    print(f"leave-one-kind-out, selected features: {_rounded(transfer)}")
    if compare:
        previous = everything[:, [FEATURE_NAMES.index(n) for n in compare]]
        print(
            f"leave-one-kind-out, {list(compare)}: "
            f"{_rounded(kind_out_report(previous, labels, kinds))}"
        )
    folds = np.asarray([int(_key(e.group), 16) % FOLDS for e in kept])
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
    }
    calibration = fit_calibration(matrix, labels, chosen, info=info)
    calibration.threshold = threshold
    router = EmbeddingRouter(calibration, encoder=encoder)
    return router, info


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


def timing(router: EmbeddingRouter, cases: Sequence[Case]) -> dict[str, tuple[float, float]]:
    """p50/p95 ms per decision of the router and the baseline on a sample, real model."""
    live_router = EmbeddingRouter(router.calibration)
    step = max(1, len(cases) // LATENCY_SAMPLE)
    sample = cases[::step][:LATENCY_SAMPLE]
    toolboxes: dict[tuple[str, ...], Any] = {}

    def plain_cosine(case: Case) -> None:
        specs = tool_specs(case[1])
        key = tuple(baseline_text(s) for s in specs)
        if key not in toolboxes:  # the toolbox is embedded once, like ours
            toolboxes[key] = MODEL.encode(list(key), normalize_embeddings=True)
        query = read_conversation(case[0]).query
        vector = MODEL.encode([query], normalize_embeddings=True)
        _ = toolboxes[key] @ vector[0]

    return {
        "EmbeddingRouter": latency(lambda c: live_router.decide(c[0], c[1]), sample),
        "max-cosine baseline": latency(plain_cosine, sample),
    }


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
    parser.add_argument("--fit-default", action="store_true", help="refit and write the bundle")
    parser.add_argument(
        "--dev",
        action="store_true",
        help="non-live development only: fit, print the leave-one-kind-out scores of the new "
        "and the bundled feature sets, and stop before reading any live category",
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="only the model load time and the latency per decision, on non-live cases",
    )
    parser.add_argument("--llm-base-url", help="an OpenAI-compatible server for LLM/hybrid")
    parser.add_argument("--llm-model", help="the served model name")
    parser.add_argument("--llm-sample", type=int, default=0, help="score only N live cases")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)

    if args.timing:
        dev = [e.as_case() for e in routing_dev_set(seed=0) if e.tools]
        print(f"model load (import + weights, cold process): {LOAD_S:.1f} s")
        for name, (p50, p95) in timing(EmbeddingRouter(), dev).items():
            print(f"{name:22} p50 {p50:.1f} ms, p95 {p95:.1f} ms (non-live development cases)")
        return 0
    encoder = DiskCachedEncoder(MODEL, CACHE_DIR / "minilm-l6-v2.npz")
    if args.refit or args.fit_default or args.dev:
        bundled = Calibration.load(DEFAULT_CALIBRATION).feature_names
        router, info = fit_on_non_live(encoder, compare=bundled)
        print(f"fitted on non-live data: {json.dumps(info['out_of_fold'])} (out of fold)")
        if args.dev:
            for name, (top1, top3) in ranking_check(encoder).items():
                print(f"{name:22} top-1 {top1:.3f}, top-3 {top3:.3f} (non-live, with distractors)")
            encoder.save()
            return 0
        if args.fit_default:
            router.save(DEFAULT_CALIBRATION)
            print(f"wrote {DEFAULT_CALIBRATION}")
    else:
        router = EmbeddingRouter(encoder=encoder)
    base_threshold = baseline_threshold(encoder)

    cases, categories, truths = live_cases()
    prime(encoder, cases)
    labels = np.asarray([float(c[2]) for c in cases])
    decisions = [router.decide(m, t) for m, t, _ in cases]
    ours = np.asarray([d.score for d in decisions])
    baseline = [max_cosine(encoder, c) for c in cases]
    base_scores = np.asarray([s for s, _ in baseline])
    multiple = [i for i, c in enumerate(categories) if c == "live_multiple"]

    rows: dict[str, dict[str, float]] = {
        "max-cosine baseline": metrics(base_scores, base_threshold, labels),
        "EmbeddingRouter": metrics(ours, router.threshold, labels),
    }
    for name, rankings in (
        ("max-cosine baseline", [baseline[i][1] for i in multiple]),
        ("EmbeddingRouter", [decisions[i].tools for i in multiple]),
    ):
        picked = [truths[i] for i in multiple]
        rows[name]["top1_live_multiple"] = top_k(rankings, picked, 1)
        rows[name]["top3_live_multiple"] = top_k(rankings, picked, 3)
    rows["max-cosine baseline"]["threshold"] = base_threshold
    rows["EmbeddingRouter"]["threshold"] = router.threshold

    # Latency with the real model (no disk cache): a sample of live cases.
    for name, (p50, p95) in timing(router, cases).items():
        rows[name]["p50_ms"] = p50
        rows[name]["p95_ms"] = p95

    if args.llm_base_url and args.llm_model:
        rows.update(llm_section(args, router, cases, labels))
    encoder.save()

    print(
        f"\nheld-out live set: {len(cases)} cases ({int(labels.sum())} call, "
        f"{int(len(labels) - labels.sum())} no call); thresholds from non-live data only"
    )
    print(f"model load (import + weights, cold process): {LOAD_S:.1f} s")
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
        "threshold",
        "llm_share",
        "prompt_tokens",
        "completion_tokens",
    ]
    names = list(rows)
    print(f"{'':22}" + "".join(f"{n:>22}" for n in names))
    for key in keys:
        cells = [rows[n].get(key) for n in names]
        print(f"{key:22}" + "".join(f"{'-' if c is None else f'{c:.3f}':>22}" for c in cells))
    if args.json:
        args.json.write_text(json.dumps({"load_s": LOAD_S, "rows": rows}, indent=1))
    return 0


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
