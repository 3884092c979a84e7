"""Two eval runs side by side: what changed per rung, and which cases regressed or were fixed.

A run is an `eval --out` folder holding the `report.json` that `write_reports` writes
(`meta`, `ladder`, and `records`: one per (case, pipeline)). Cases are matched by
(case id, pipeline):

- per pipeline: the pass rate and the count of each failure class, before and after;
- regressed: passed in the first run and did not in the second; fixed: the other way round;
- pairs found in one run only are counted, never matched: a pass rate over other cases is
  no comparison, so the terminal says when the two case sets differ.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall_sdk._errors import ToolCallError
from toolcall_sdk.evals._files import JSON_FILE
from toolcall_sdk.evals._outdir import RESULTS_FILE
from toolcall_sdk.evals._pipelines import ALL_PIPELINES
from toolcall_sdk.evals._taxonomy import CLASSES

__all__ = [
    "CaseChange",
    "EvalRun",
    "NotAnEvalRunError",
    "RunComparison",
    "RungChange",
    "changed_settings",
    "compare_runs",
    "load_run",
]

Pair = tuple[str, str]
# Report metadata that describes the report, not the run: never a difference worth showing.
_NOT_SETTINGS = frozenset({"seed", "auto_server"})


class NotAnEvalRunError(ToolCallError, ValueError):
    """A folder given to `eval compare` is not the `--out` folder of a finished eval run."""


@dataclass(frozen=True, slots=True)
class EvalRun:
    """One finished run, read from its folder.

    Attributes:
        path: The folder.
        meta: The report's settings (server, model, router, cases).
        records: One record per (case id, pipeline).
    """

    path: Path
    meta: Mapping[str, Any]
    records: Mapping[Pair, Mapping[str, Any]]

    def pipelines(self) -> list[str]:
        """The pipelines it ran."""
        return list(dict.fromkeys(p for _, p in self.records))


@dataclass(frozen=True, slots=True)
class RungChange:
    """One pipeline in both runs, over the cases the two share.

    Attributes:
        pipeline: The pipeline.
        cases: Cases in both runs for this pipeline.
        before: Count per class in the first run (every class of `CLASSES`, `pass` included).
        after: The same in the second run.
    """

    pipeline: str
    cases: int
    before: Mapping[str, int]
    after: Mapping[str, int]

    def pass_rate(self, side: Mapping[str, int]) -> float:
        """`pass` over the shared cases (0 with none)."""
        return side.get("pass", 0) / self.cases if self.cases else 0.0


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One (case, pipeline) whose verdict changed between pass and not pass.

    Attributes:
        case_id: The case.
        pipeline: The pipeline.
        before: Its record in the first run.
        after: Its record in the second run.
    """

    case_id: str
    pipeline: str
    before: Mapping[str, Any]
    after: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class RunComparison:
    """Everything `eval compare` shows.

    Attributes:
        before: The first run (A).
        after: The second run (B).
        rungs: One row per pipeline both runs ran, in ladder order.
        regressed: Passed in A, not in B.
        fixed: Not passed in A, passed in B.
        only_before: Pairs in A alone, per pipeline (pipelines B did not run included).
        only_after: Pairs in B alone, per pipeline.
    """

    before: EvalRun
    after: EvalRun
    rungs: list[RungChange]
    regressed: list[CaseChange]
    fixed: list[CaseChange]
    only_before: dict[str, int] = field(default_factory=dict)
    only_after: dict[str, int] = field(default_factory=dict)


def load_run(path: str | Path) -> EvalRun:
    """Read a run folder's `report.json`.

    Raises:
        NotAnEvalRunError: No folder there, no `report.json` in it, or a report that is not
            the one `eval` writes.
    """
    folder = Path(path)
    report = folder / JSON_FILE
    if not folder.is_dir():
        raise NotAnEvalRunError(f"{folder} is not a folder: give the --out folder of an eval run")
    if not report.is_file():
        if (folder / RESULTS_FILE).is_file():
            raise NotAnEvalRunError(
                f"{folder} holds results but no {JSON_FILE}: the run did not finish; run the "
                "same eval command again to finish it and write the report"
            )
        raise NotAnEvalRunError(
            f"{folder} is not an eval run (no {JSON_FILE}): give the --out folder of "
            "toolcall-sdk eval"
        )
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NotAnEvalRunError(f"{report} cannot be read as JSON: {exc}") from exc
    records = data.get("records") if isinstance(data, dict) else None
    if not isinstance(records, list) or not isinstance(data.get("ladder"), list):
        raise NotAnEvalRunError(
            f"{report} is not an eval report (no 'ladder' and 'records'): give the --out "
            "folder of toolcall-sdk eval"
        )
    by_pair: dict[Pair, Mapping[str, Any]] = {}
    for record in records:
        if not isinstance(record, dict) or not {"case_id", "pipeline", "verdict"} <= set(record):
            raise NotAnEvalRunError(f"{report} holds a record without case_id, pipeline, verdict")
        by_pair[(str(record["case_id"]), str(record["pipeline"]))] = record
    meta = data.get("meta")
    return EvalRun(folder, meta if isinstance(meta, dict) else {}, by_pair)


def compare_runs(before: EvalRun, after: EvalRun) -> RunComparison:
    """Compare two runs pair by pair (see the module's docstring)."""
    shared = [pair for pair in before.records if pair in after.records]
    pipelines = _ordered({p for _, p in shared})
    rungs = []
    for pipeline in pipelines:
        pairs = [pair for pair in shared if pair[1] == pipeline]
        rungs.append(
            RungChange(
                pipeline=pipeline,
                cases=len(pairs),
                before=_classes(before.records[p] for p in pairs),
                after=_classes(after.records[p] for p in pairs),
            )
        )
    regressed: list[CaseChange] = []
    fixed: list[CaseChange] = []
    for pair in sorted(shared, key=lambda p: (_rank(p[1]), p[0])):
        was, now = before.records[pair], after.records[pair]
        passed_before, passed_after = was["verdict"] == "pass", now["verdict"] == "pass"
        if passed_before != passed_after:
            change = CaseChange(pair[0], pair[1], was, now)
            (regressed if passed_before else fixed).append(change)
    return RunComparison(
        before=before,
        after=after,
        rungs=rungs,
        regressed=regressed,
        fixed=fixed,
        only_before=_count_alone(before, after),
        only_after=_count_alone(after, before),
    )


def _classes(records: Any) -> dict[str, int]:
    counts = Counter(str(r["verdict"]) for r in records)
    return {name: counts.get(name, 0) for name in CLASSES} | dict(counts)


def _count_alone(run: EvalRun, other: EvalRun) -> dict[str, int]:
    alone = Counter(p for pair in run.records if pair not in other.records for p in [pair[1]])
    return {p: alone[p] for p in _ordered(set(alone))}


def _rank(pipeline: str) -> int:
    return ALL_PIPELINES.index(pipeline) if pipeline in ALL_PIPELINES else len(ALL_PIPELINES)


def _ordered(pipelines: set[str]) -> list[str]:
    return sorted(pipelines, key=lambda p: (_rank(p), p))


def changed_settings(before: EvalRun, after: EvalRun) -> list[tuple[str, Any, Any]]:
    """(key, A's value, B's value) for each setting of the reports' `meta` that differs."""
    keys = [*before.meta, *(k for k in after.meta if k not in before.meta)]
    return [
        (key, before.meta.get(key), after.meta.get(key))
        for key in keys
        if key not in _NOT_SETTINGS and before.meta.get(key) != after.meta.get(key)
    ]
