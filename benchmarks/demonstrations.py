"""Accepted cases as demonstrations, on a live server: the `full` rung without and with them.

The invoices cases (evals/invoices.jsonl) are split in two by position: the even ones are
the accepted cases the demonstrations come from (each case's own `expected.calls` taken as
the call a reviewer accepted, as `toolcall-sdk cases review` would write it), the odd ones
are scored (`--swap` turns the halves round). A case is never shown as its own example.
Both runs use the SDK's `full` pipeline (the client's defaults: the LLM router, feedback
retries, recovery) through the eval runner, against one server, one run after the other;
the only difference is `examples=ExampleBank(<the examples half>, k=..., max_tokens=...)`.

Printed per category of the scored half: pass rate without and with demonstrations, the
difference, and the prompt tokens per case each run sent; then the totals, the prompt
tokens the demonstrations added per case, and p50/mean latency per case. Last, the same
pass rates for the scored cases whose request has a twin among the examples (the same
words once digits and ids are masked: "Open invoice INV-153377 please.") and for the rest,
whose phrasing no example shows.

    python benchmarks/demonstrations.py --base-url URL --model NAME [--k 3]
        [--max-tokens 600] [--similarity auto|encoder|tfidf] [--swap] [--scored N]
        [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolcall_sdk import ExampleBank
from toolcall_sdk.evals._cases import EvalCase, load_cases
from toolcall_sdk.evals._runner import run_eval_sync
from toolcall_sdk.evals._settings import EvalSettings

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "evals" / "invoices.jsonl"
RUNS = ("without", "with")


def halves(
    path: Path, *, swap: bool = False, limit: int | None = None
) -> tuple[list[dict[str, Any]], list[EvalCase]]:
    """The accepted cases (raw dicts, for the bank) and the scored cases, split by position.

    The first `limit` cases of the file are split (all when None): even positions are the
    examples, odd ones are scored, or the other way round with `swap`.
    """
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    cases = load_cases(path, allow_code=True)
    if limit is not None:
        raw, cases = raw[:limit], cases[:limit]
    shown, scored = (1, 0) if swap else (0, 1)
    return raw[shown::2], cases[scored::2]


def phrasing(case: Mapping[str, Any]) -> str:
    """A request's words with its ids and numbers masked: two cases of one template match."""
    text = str(case["messages"][-1].get("content") or "")
    return re.sub(r"[A-Z]{3}-\d+", "ID", re.sub(r"\d[\d.,/ -]*\d|\d", "N", text))


def twins(shown: Sequence[Mapping[str, Any]]) -> set[str]:
    """The ids of the scored cases whose phrasing an example shows."""
    raw = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]
    seen = {phrasing(case) for case in shown}
    return {str(case["id"]) for case in raw if phrasing(case) in seen}


def summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Pass count and rate, prompt tokens per case, and latency per case."""
    passed = sum(r["verdict"] == "pass" for r in records)
    latencies = [r["latency_s"] for r in records if r.get("latency_s") is not None]
    count = len(records)
    return {
        "cases": count,
        "pass": passed,
        "pass_rate": passed / count if count else 0.0,
        "prompt_tokens_per_case": (
            sum(r.get("prompt_tokens") or 0 for r in records) / count if count else 0.0
        ),
        "p50_s": statistics.median(latencies) if latencies else None,
        "mean_s": statistics.fmean(latencies) if latencies else None,
    }


def table(results: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per category, then `all`: each run's summary, keyed `run/category`."""
    categories = sorted({r["category"] for records in results.values() for r in records})
    rows: dict[str, dict[str, Any]] = {}
    for category in [*categories, "all"]:
        for run, records in results.items():
            chosen = [r for r in records if category in ("all", r["category"])]
            rows[f"{run}/{category}"] = summary(chosen)
    return rows


def print_table(rows: Mapping[str, Mapping[str, Any]]) -> None:
    categories = list(dict.fromkeys(key.split("/", 1)[1] for key in rows))
    print("\n| category | without | with | diff | prompt tokens/case without | with |")
    print("|---|---:|---:|---:|---:|---:|")
    for category in categories:
        off, on = rows[f"without/{category}"], rows[f"with/{category}"]
        name = f"**{category}**" if category == "all" else category
        print(
            f"| {name} | {off['pass']}/{off['cases']} | {on['pass']}/{on['cases']} | "
            f"{on['pass'] - off['pass']:+d} | {off['prompt_tokens_per_case']:.0f} | "
            f"{on['prompt_tokens_per_case']:.0f} |"
        )
    off, on = rows["without/all"], rows["with/all"]
    added = on["prompt_tokens_per_case"] - off["prompt_tokens_per_case"]
    print(f"\npass rate: {off['pass_rate']:.1%} without, {on['pass_rate']:.1%} with")
    print(f"prompt tokens added per case: {added:+.0f}")
    for run, row in (("without", off), ("with", on)):
        if row["p50_s"] is not None:
            print(f"latency {run}: p50 {row['p50_s']:.2f} s, mean {row['mean_s']:.2f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--cases", type=int, help="split only the first N cases of the file")
    parser.add_argument(
        "--scored",
        type=int,
        help="score only N cases, spread evenly over the scored half (the bank is whole)",
    )
    parser.add_argument("--k", type=int, default=3, help="demonstrations per request")
    parser.add_argument("--max-tokens", type=int, default=600, help="their budget per request")
    parser.add_argument("--similarity", default="auto", choices=("auto", "encoder", "tfidf"))
    parser.add_argument("--swap", action="store_true", help="show the odd half, score the even")
    parser.add_argument("--router", default="llm")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, help="write every record and the table as JSON")
    args = parser.parse_args(argv)
    shown, scored = halves(CASES, swap=args.swap, limit=args.cases)
    if args.scored is not None and args.scored < len(scored):
        scored = [scored[i * len(scored) // args.scored] for i in range(args.scored)]
    bank = ExampleBank(shown, k=args.k, max_tokens=args.max_tokens, similarity=args.similarity)
    print(f"{bank}; scoring {len(scored)} cases", flush=True)
    results: dict[str, list[dict[str, Any]]] = {}
    for run in RUNS:
        settings = EvalSettings(
            base_url=args.base_url,
            model=args.model,
            router=args.router,
            timeout=args.timeout,
            examples=bank if run == "with" else None,
        )
        started = time.monotonic()
        results[run] = run_eval_sync(
            scored, settings, pipelines=["full"], concurrency=args.concurrency
        )
        print(f"{run}: {len(results[run])} cases in {time.monotonic() - started:.0f} s", flush=True)
    rows = table(results)
    print_table(rows)
    twinned = twins(shown)
    for part, keep in (("with a twin", True), ("phrasing no example shows", False)):
        counts = [
            summary([r for r in records if (r["case_id"] in twinned) is keep])
            for records in results.values()
        ]
        print(f"{part}: " + ", ".join(f"{c['pass']}/{c['cases']}" for c in counts))
    if args.out is not None:
        written = {"bank": repr(bank), "table": rows, "records": results}
        args.out.write_text(json.dumps(written, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
