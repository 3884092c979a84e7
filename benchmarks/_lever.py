"""What the lever benchmarks share: the per-half summary of eval records and its table.

A lever benchmark runs the same cases through the `full` rung once per mode of one option,
in one run, and splits the cases in two by position: the even ones choose the default
(`dev`), the odd ones report it (`held-out`), so that a default is never reported on the
cases that chose it.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from toolcall_sdk.evals._cases import EvalCase


def halves(cases: Sequence[EvalCase]) -> dict[str, set[str]]:
    """The case ids of each half: even positions choose (`dev`), odd ones report."""
    return {"dev": {c.id for c in cases[0::2]}, "held-out": {c.id for c in cases[1::2]}}


def summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Pass count and rate, wrong_args, requests per case and p50 latency."""
    passed = sum(r["verdict"] == "pass" for r in records)
    latencies = [r["latency_s"] for r in records if r.get("latency_s") is not None]
    return {
        "cases": len(records),
        "pass": passed,
        "pass_rate": passed / len(records) if records else 0.0,
        "wrong_args": sum(r["verdict"] == "wrong_args" for r in records),
        "requests_per_case": (
            sum(r.get("requests") or 0 for r in records) / len(records) if records else 0.0
        ),
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
    print(f"\n| mode | part | pass | vs {base} | wrong_args | requests/case | p50 |")
    print("|---|---|---:|---:|---:|---:|---:|")
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
                f"{row['wrong_args']} | {row['requests_per_case']:.2f} | {p50} |"
            )
    return table
