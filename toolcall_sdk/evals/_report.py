"""Aggregating per-case records into the ladder and the failure breakdowns."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from toolcall_sdk.evals._pipelines import ALL_PIPELINES
from toolcall_sdk.evals._seed import SEED_PASS_RATES
from toolcall_sdk.evals._taxonomy import CLASSES

__all__ = ["TOP_MESSAGES", "Breakdown", "EvalReport", "LadderRow", "build_report", "percentile"]

TOP_MESSAGES: Final = 3
"""How many of the most common error messages each breakdown keeps."""


@dataclass(frozen=True, slots=True)
class LadderRow:
    """One pipeline over every case.

    Attributes:
        pipeline: The pipeline's name.
        cases: How many cases it ran.
        passed: How many passed.
        pass_rate: `passed / cases` (0 when no case ran).
        classes: Count per taxonomy class (every class present, zeros included).
        parser_miss: Cases where the server's parser left a call in the text.
        repaired: Cases where a deterministic repair was applied.
        attempts: Stage-2 model answers, summed.
        requests: HTTP requests, summed (router and transport retries included).
        tokens: Prompt plus completion tokens, summed.
        requests_per_case: Mean requests per case.
        tokens_per_case: Mean tokens per case.
        latency_p50_s: Median latency per case.
        latency_p95_s: 95th percentile latency per case.
        seed_pass_rate: The seed article's figure for this rung (`SEED_PASS_RATES`), or
            None where the seed has no such row.
        steps_per_case: Mean steps per case of the agent-loop pipelines (0 for the others).
    """

    pipeline: str
    cases: int
    passed: int
    pass_rate: float
    classes: dict[str, int]
    parser_miss: int
    repaired: int
    attempts: int
    requests: int
    tokens: int
    requests_per_case: float
    tokens_per_case: float
    latency_p50_s: float
    latency_p95_s: float
    seed_pass_rate: float | None = None
    steps_per_case: float = 0.0


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The failures of one pipeline within one category or for one tool.

    Attributes:
        key: The category or tool name.
        pipeline: The pipeline.
        cases: Cases in this group.
        failures: Count per failure class (only classes that occurred).
        top_messages: The most common error messages with their counts.
    """

    key: str
    pipeline: str
    cases: int
    failures: dict[str, int]
    top_messages: list[tuple[str, int]] = field(default_factory=list)

    @property
    def failed(self) -> int:
        """Failures of every class."""
        return sum(self.failures.values())


@dataclass(frozen=True, slots=True)
class EvalReport:
    """Everything the report writers need.

    Attributes:
        ladder: One row per pipeline, in ladder order.
        by_category: Failures per (category, pipeline).
        by_tool: Failures per (tool, pipeline); a case counts under its expected tool
            (or the tool it called by mistake when no call was expected).
        cases: How many distinct cases.
        meta: Run settings (server, model, router, case file).
    """

    ladder: list[LadderRow]
    by_category: list[Breakdown]
    by_tool: list[Breakdown]
    cases: int
    meta: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (`report.json`, without the per-case records)."""
        return {
            "meta": self.meta,
            "cases": self.cases,
            "ladder": [asdict(row) for row in self.ladder],
            "by_category": [_breakdown_dict(b) for b in self.by_category],
            "by_tool": [_breakdown_dict(b) for b in self.by_tool],
        }


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (`q` in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def build_report(
    records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any] | None = None
) -> EvalReport:
    """Aggregate per-case records (from `run_eval`) into the ladder and breakdowns."""
    pipelines = [p for p in ALL_PIPELINES if any(r["pipeline"] == p for r in records)]
    pipelines += sorted({r["pipeline"] for r in records} - set(pipelines))
    ladder = [_row(p, [r for r in records if r["pipeline"] == p]) for p in pipelines]
    return EvalReport(
        ladder=ladder,
        by_category=_breakdowns(records, pipelines, lambda r: str(r.get("category"))),
        by_tool=_breakdowns(records, pipelines, lambda r: str(r.get("tool") or "(none)")),
        cases=len({r["case_id"] for r in records}),
        meta=dict(meta or {}),
    )


def _row(pipeline: str, records: Sequence[Mapping[str, Any]]) -> LadderRow:
    n = len(records)
    classes = Counter(r["verdict"] for r in records)
    tokens = sum(r["prompt_tokens"] + r["completion_tokens"] for r in records)
    requests = sum(r["requests"] for r in records)
    latencies = [float(r["latency_s"]) for r in records]
    passed = classes.get("pass", 0)
    return LadderRow(
        pipeline=pipeline,
        cases=n,
        passed=passed,
        pass_rate=passed / n if n else 0.0,
        classes={name: classes.get(name, 0) for name in CLASSES},
        parser_miss=sum(1 for r in records if r["parser_miss"]),
        repaired=sum(1 for r in records if r["repaired"]),
        attempts=sum(r["attempts"] for r in records),
        requests=requests,
        tokens=tokens,
        requests_per_case=requests / n if n else 0.0,
        tokens_per_case=tokens / n if n else 0.0,
        latency_p50_s=percentile(latencies, 50),
        latency_p95_s=percentile(latencies, 95),
        seed_pass_rate=SEED_PASS_RATES.get(pipeline),
        steps_per_case=sum(int(r.get("steps") or 0) for r in records) / n if n else 0.0,
    )


def _breakdowns(
    records: Iterable[Mapping[str, Any]],
    pipelines: Sequence[str],
    key_of: Any,
) -> list[Breakdown]:
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault((key_of(record), record["pipeline"]), []).append(record)
    rank = {p: i for i, p in enumerate(pipelines)}
    out: list[Breakdown] = []
    ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], rank.get(kv[0][1], len(rank))))
    for (key, pipeline), members in ordered:
        failed = [r for r in members if r["verdict"] != "pass"]
        messages = Counter(f"{r['verdict']}: {r['message']}" for r in failed)
        out.append(
            Breakdown(
                key=key,
                pipeline=pipeline,
                cases=len(members),
                failures=dict(sorted(Counter(r["verdict"] for r in failed).items())),
                top_messages=messages.most_common(TOP_MESSAGES),
            )
        )
    return out


def _breakdown_dict(item: Breakdown) -> dict[str, Any]:
    return {
        "key": item.key,
        "pipeline": item.pipeline,
        "cases": item.cases,
        "failed": item.failed,
        "failures": item.failures,
        "top_messages": [{"message": m, "count": c} for m, c in item.top_messages],
    }
