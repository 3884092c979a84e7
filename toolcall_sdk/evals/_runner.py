"""Running cases through pipelines: bounded concurrency, resumable, deterministic order.

Each finished (case, pipeline) pair is appended at once to `results.jsonl` in the output
folder, so an interrupted run loses at most the pairs in flight; a rerun reads the file
and skips the pairs already there (the folder's `run.json` makes sure it is the same server,
model and settings). A pair the server could not answer (connection, timeout, 429, 5xx) is
not a result: it is neither stored nor returned, and the next run tries it again. Records
come back ordered by case, then by pipeline in ladder order, whatever order they finished in.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx2

from toolcall_sdk.evals._agent_score import chain_progress, score_agent
from toolcall_sdk.evals._bfcl_cases import bfcl_matcher
from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._matching import MadeCall, Matcher, match_calls
from toolcall_sdk.evals._outdir import RESULTS_FILE, prepare_out_dir
from toolcall_sdk.evals._pipelines import (
    AGENT_LADDER,
    ALL_PIPELINES,
    PIPELINES,
    EvalSettings,
    PipelineOutcome,
    counting_http_client,
    run_pipeline,
)
from toolcall_sdk.evals._taxonomy import classify

__all__ = [
    "RESULTS_FILE",
    "check_kinds",
    "default_pipelines",
    "load_records",
    "run_eval",
    "run_eval_sync",
]

OnResult = Callable[[dict[str, Any]], None]
OnUnfinished = Callable[[EvalCase, str, str], None]
"""Called with (case, pipeline, why) for a pair the server could not answer."""


def load_records(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Read the finished pairs of an earlier run.

    A torn last line (the run was killed mid-write) is ignored; that pair runs again.
    """
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if not path.exists():
        return done
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "case_id" in record and "pipeline" in record:
                done[(record["case_id"], record["pipeline"])] = record
    return done


async def run_eval(
    cases: Sequence[EvalCase],
    settings: EvalSettings,
    *,
    pipelines: Sequence[str] | None = None,
    out_dir: str | Path | None = None,
    concurrency: int = 4,
    transport: httpx2.AsyncBaseTransport | None = None,
    on_result: OnResult | None = None,
    on_unfinished: OnUnfinished | None = None,
) -> list[dict[str, Any]]:
    """Run every case through every pipeline and classify each outcome.

    Args:
        cases: The cases, in report order.
        settings: Server, model, router.
        pipelines: Which pipelines to run (default: `default_pipelines(cases)`: the six
            rungs, or the agent loops for multi-step tasks).
        out_dir: Folder for `results.jsonl`; pairs already in it are not run again.
        concurrency: Most (case, pipeline) pairs in flight at once.
        transport: An `httpx2` transport instead of the network (tests).
        on_result: Called with each record as it finishes (progress bars).
        on_unfinished: Called for each pair the server could not answer; such a pair has
            no record and runs again next time.

    Returns:
        One record per finished (case, pipeline), ordered by case then ladder order.

    Raises:
        ValueError: An unknown pipeline, `concurrency` below 1, or a pipeline given cases
            of the other kind (the agent-loop pipelines take multi-step tasks only, the
            ladder's single-step cases only).
        OutDirConflictError: `out_dir` holds results of a run with other settings.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if pipelines is None:
        pipelines = default_pipelines(cases)
    unknown = [p for p in pipelines if p not in PIPELINES]
    if unknown:
        raise ValueError(f"unknown pipeline(s) {unknown}; choose from {', '.join(ALL_PIPELINES)}")
    check_kinds(cases, pipelines)
    order = [p for p in ALL_PIPELINES if p in pipelines]
    results_path = Path(out_dir) / RESULTS_FILE if out_dir is not None else None
    if results_path is not None:
        prepare_out_dir(results_path.parent, settings)
    done = load_records(results_path) if results_path is not None else {}
    todo = [(c, p) for c in cases for p in order if (c.id, p) not in done]
    semaphore = asyncio.Semaphore(concurrency)
    fresh: dict[tuple[str, str], dict[str, Any]] = {}
    http_client = counting_http_client(transport=transport, timeout=settings.timeout)
    handle = results_path.open("a", encoding="utf-8") if results_path is not None else None

    async def one(case: EvalCase, pipeline: str) -> None:
        async with semaphore:
            outcome = await run_pipeline(pipeline, case, settings, http_client)
        if outcome.unfinished is not None:
            if on_unfinished is not None:
                on_unfinished(case, pipeline, outcome.unfinished)
            return
        record = make_record(case, pipeline, outcome)
        fresh[(case.id, pipeline)] = record
        if handle is not None:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
        if on_result is not None:
            on_result(record)

    try:
        async with asyncio.TaskGroup() as group:
            for case, pipeline in todo:
                group.create_task(one(case, pipeline))
    finally:
        await http_client.aclose()
        if handle is not None:
            handle.close()
    merged = {**done, **fresh}
    return [merged[(c.id, p)] for c in cases for p in order if (c.id, p) in merged]


def check_kinds(cases: Sequence[EvalCase], pipelines: Sequence[str]) -> None:
    """Refuse pipelines given cases they cannot judge.

    Raises:
        ValueError: An agent-loop pipeline with a single-step case, or a ladder pipeline
            with a multi-step task; the message names the case.
    """
    agent = [p for p in pipelines if p in AGENT_LADDER]
    ladder = [p for p in pipelines if p not in AGENT_LADDER]
    for case in cases:
        if agent and case.agent is None:
            raise ValueError(
                f"case {case.id!r} is a single-step case, and {agent[0]} runs multi-step "
                "tasks only (cases with an 'agent' object): choose ladder pipelines for it"
            )
        if ladder and case.agent is not None:
            raise ValueError(
                f"case {case.id!r} is a multi-step task, and {ladder[0]} judges one step: "
                f"choose agent pipelines ({', '.join(AGENT_LADDER)}) for it"
            )


def default_pipelines(cases: Sequence[EvalCase]) -> list[str]:
    """The pipelines a run uses when none are named: the agent loops for multi-step tasks,
    the six rungs otherwise."""
    if cases and all(case.agent is not None for case in cases):
        return list(AGENT_LADDER)
    return [p for p in ALL_PIPELINES if p not in AGENT_LADDER]


def run_eval_sync(
    cases: Sequence[EvalCase], settings: EvalSettings, **options: Any
) -> list[dict[str, Any]]:
    """`run_eval` for synchronous callers (it runs its own event loop)."""
    return asyncio.run(run_eval(cases, settings, **options))


def _matcher(case: EvalCase) -> Matcher:
    if case.checker == "bfcl":
        return bfcl_matcher(
            case.extra["bfcl_functions"], case.extra["bfcl_category"], case.extra["bfcl_name_map"]
        )
    return match_calls


def make_record(case: EvalCase, pipeline: str, outcome: PipelineOutcome) -> dict[str, Any]:
    """The stored form of one (case, pipeline) result.

    A multi-step task's record adds `steps` and `trace`: per step, the router's decision
    (`route`), the calls that ran, and `needed`: whether the chain was still incomplete when
    the step began (the right answer to "call again or answer now").
    """
    if case.agent is not None:
        verdict = score_agent(case, outcome)
    else:
        verdict = classify(case, outcome, _matcher(case))
    extra: dict[str, Any] = {}
    if case.agent is not None:
        extra = {"steps": outcome.steps, "trace": _trace(case, outcome)}
    return {
        "case_id": case.id,
        "pipeline": pipeline,
        "category": case.category,
        **verdict.as_dict(),
        "hard_kind": outcome.hard_kind,
        "parser_miss": outcome.parser_miss,
        "repaired": outcome.repaired,
        "attempts": outcome.attempts,
        "requests": outcome.requests,
        "prompt_tokens": outcome.prompt_tokens,
        "completion_tokens": outcome.completion_tokens,
        "latency_s": round(outcome.latency_s, 4),
        "calls": [{"name": c.name, "arguments": dict(c.arguments)} for c in outcome.calls],
        "expected": [{"name": c.name, "accept": dict(c.accept)} for c in case.expected],
        **extra,
    }


def _trace(case: EvalCase, outcome: PipelineOutcome) -> list[dict[str, Any]]:
    before: list[MadeCall] = []
    out: list[dict[str, Any]] = []
    for entry in outcome.trace:
        needed = chain_progress(case.expected, before) < len(case.expected)
        out.append({**entry, "needed": needed})
        before.extend(MadeCall(c["name"], c["arguments"]) for c in entry["calls"])
    return out
