"""What the lever benchmarks share: the per-half summary of eval records and its table.

A lever benchmark runs the same cases through the `full` rung once per mode of one option,
in one run, and splits the cases in two by position: the even ones choose the default
(`dev`), the odd ones report it (`held-out`), so that a default is never reported on the
cases that chose it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._cli import gather_cases
from toolcall_sdk.evals._runner import run_eval_sync
from toolcall_sdk.evals._settings import EvalSettings

INVOICES = Path(__file__).resolve().parents[1] / "evals" / "invoices.jsonl"


def lever_parser(
    doc: str | None,
    sources: Sequence[str],
    *,
    per_source: int,
    concurrency: int = 2,
    timeout: float = 600.0,
) -> argparse.ArgumentParser:
    """The arguments every lever benchmark takes: the server, the cases, how many in flight,
    the time limit per request and where to write the records; each adds its modes."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--per-source", type=int, default=per_source)
    parser.add_argument("--sources", default=",".join(sources))
    parser.add_argument("--concurrency", type=int, default=concurrency)
    parser.add_argument("--timeout", type=float, default=timeout)
    parser.add_argument("--out", type=Path, help="write every record (and summary) as JSON")
    return parser


def sourced_cases(
    sources: Sequence[str], per_source: int
) -> tuple[list[EvalCase], dict[str, set[str]]]:
    """`per_source` cases of each source (`invoices`, or a BFCL category), spread over
    their sub-groups as `eval --limit` spreads them; and the case ids by source."""
    by_source: dict[str, set[str]] = {}
    cases: list[EvalCase] = []
    for source in sources:
        if source == "invoices":
            found = gather_cases([str(INVOICES)], None, limit=per_source, allow_code=True)
        else:
            found = gather_cases([], source, limit=per_source)
        by_source[source] = {case.id for case in found}
        cases.extend(found)
    return cases, by_source


def run_modes(
    cases: Sequence[EvalCase],
    modes: Sequence[str],
    settings_for: Callable[[str], EvalSettings],
    *,
    concurrency: int,
) -> dict[str, list[dict[str, Any]]]:
    """The `full` rung's records of every case, once per mode, one mode after the other."""
    results: dict[str, list[dict[str, Any]]] = {}
    for mode in modes:
        started = time.monotonic()
        results[mode] = run_eval_sync(
            list(cases), settings_for(mode), pipelines=["full"], concurrency=concurrency
        )
        print(f"{mode}: {len(cases)} cases in {time.monotonic() - started:.0f} s", flush=True)
    return results


def print_sources(
    results: Mapping[str, Sequence[Mapping[str, Any]]], by_source: Mapping[str, set[str]]
) -> None:
    """One markdown row per source: each mode's pass count."""
    print("\n| source | " + " | ".join(results) + " |")
    print("|---|" + "---:|" * len(results))
    for source, ids in by_source.items():
        rows = [
            summary([r for r in records if r["case_id"] in ids]) for records in results.values()
        ]
        print(f"| {source} | " + " | ".join(f"{r['pass']}/{r['cases']}" for r in rows) + " |")


def halves(cases: Sequence[EvalCase]) -> dict[str, set[str]]:
    """The case ids of each half: even positions choose (`dev`), odd ones report."""
    return {"dev": {c.id for c in cases[0::2]}, "held-out": {c.id for c in cases[1::2]}}


def only_half(
    cases: Sequence[EvalCase], by_source: Mapping[str, set[str]], half: str | None
) -> tuple[list[EvalCase], dict[str, set[str]]]:
    """The cases of one half (`dev` or `held-out`, as `halves` splits them), or all of
    them where `half` is None; and the case ids by source."""
    if half is None:
        return list(cases), dict(by_source)
    keep = halves(cases)[half]
    kept = [case for case in cases if case.id in keep]
    return kept, {source: ids & keep for source, ids in by_source.items()}


def summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Pass count and rate, wrong_args, requests and completion tokens per case, and p50
    latency."""
    passed = sum(r["verdict"] == "pass" for r in records)
    latencies = [r["latency_s"] for r in records if r.get("latency_s") is not None]
    count = len(records) or 1
    return {
        "cases": len(records),
        "pass": passed,
        "pass_rate": passed / len(records) if records else 0.0,
        "wrong_args": sum(r["verdict"] == "wrong_args" for r in records),
        "requests_per_case": (
            sum(r.get("requests") or 0 for r in records) / len(records) if records else 0.0
        ),
        "completion_tokens_per_case": sum(r.get("completion_tokens") or 0 for r in records) / count,
        "p50_s": statistics.median(latencies) if latencies else None,
    }


def print_table(
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    parts: Mapping[str, set[str]],
    *,
    base: str,
) -> dict[str, dict[str, Any]]:
    """Print one markdown row per mode and part, against `base` measured in the same run;
    return the rows by `mode/part`."""
    print(
        f"\n| mode | part | pass | vs {base} | wrong_args | requests/case | "
        "completion tokens/case | p50 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    table: dict[str, dict[str, Any]] = {}
    for part, ids in parts.items():
        reference = summary([r for r in results.get(base, []) if r["case_id"] in ids])
        for mode, records in results.items():
            row = summary([r for r in records if r["case_id"] in ids])
            table[f"{mode}/{part}"] = row
            delta = (row["pass"] - reference["pass"]) if base in results else 0
            p50 = f"{row['p50_s']:.1f} s" if row["p50_s"] is not None else "-"
            print(
                f"| {mode} | {part} | {row['pass']}/{row['cases']} | {delta:+d} | "
                f"{row['wrong_args']} | {row['requests_per_case']:.2f} | "
                f"{row['completion_tokens_per_case']:.0f} | {p50} |"
            )
    return table


def report(
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    cases: Sequence[EvalCase],
    by_source: Mapping[str, set[str]],
    *,
    base: str,
    out: Path | None,
    half: str | None = None,
) -> None:
    """Print the per-part and per-source tables; write them and every record to `out`.
    With `half`, the cases are that half already (`only_half`) and form one part."""
    parts = {half: {case.id for case in cases}} if half else halves(cases)
    table = print_table(results, parts, base=base)
    print_sources(results, by_source)
    if out is not None:
        out.write_text(json.dumps({"summary": table, "records": results}, indent=1))
