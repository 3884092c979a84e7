"""What `toolcall-sdk eval` does, apart from parsing its options (that is in `cli.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from toolcall_sdk._console import plain
from toolcall_sdk.evals._bfcl_cases import bfcl_cases
from toolcall_sdk.evals._cases import EvalCase, load_cases
from toolcall_sdk.evals._files import write_reports
from toolcall_sdk.evals._outdir import RESULTS_FILE, prepare_out_dir
from toolcall_sdk.evals._pipelines import ALL_PIPELINES
from toolcall_sdk.evals._progress import ProgressMode, open_progress
from toolcall_sdk.evals._report import build_report
from toolcall_sdk.evals._runner import load_records, run_eval
from toolcall_sdk.evals._seed import SEED_SOURCE
from toolcall_sdk.evals._settings import EvalSettings, auto_server_note, describe_settings
from toolcall_sdk.evals._spread import spread
from toolcall_sdk.evals._terminal import print_report

__all__ = ["gather_cases", "report_meta", "run_eval_command"]


def gather_cases(
    case_files: Sequence[str],
    bfcl: str | None,
    *,
    limit: int | None = None,
    allow_code: bool = False,
) -> list[EvalCase]:
    """Cases from the files, then from the named BFCL categories, at most `limit` per source.

    A limited source gives cases spread over its categories (BFCL: its sub-groups), not
    its first ones (see `_spread.py`).

    Raises:
        CaseFileNotFoundError: A case file does not exist.
        CaseFormatError: A case file is invalid, or names code without `allow_code`.
        ValueError: No case source was given, an unknown BFCL category, or `limit` below 1.
    """
    cases: list[EvalCase] = []
    for path in case_files:
        cases.extend(spread(load_cases(path, allow_code=allow_code), limit))
    if bfcl:
        for category in [c.strip() for c in bfcl.split(",") if c.strip()]:
            cases.extend(spread(bfcl_cases(category), limit))
    if not case_files and not bfcl:
        raise ValueError("give a case file (e.g. evals/invoices.jsonl) or --bfcl CATEGORY")
    return cases


def report_meta(settings: EvalSettings, source: str, pipelines: Sequence[str]) -> dict[str, Any]:
    """The report's `meta`: the run's settings, its cases, its rungs and their servers."""
    meta: dict[str, Any] = {**describe_settings(settings), "cases": source}
    meta["pipelines"] = ",".join(p for p in ALL_PIPELINES if p in pipelines)
    if "auto" in pipelines:
        meta["auto_server"] = auto_server_note(settings)
    meta["seed"] = SEED_SOURCE
    return meta


def run_eval_command(
    cases: list[EvalCase],
    settings: EvalSettings,
    *,
    pipelines: Sequence[str],
    out_dir: Path,
    concurrency: int,
    progress: bool | ProgressMode,
    console: Console,
    source: str,
    fresh: bool = False,
) -> int:
    """Run the ladder showing progress, print the tables and write the report files.

    Args:
        progress: `True`/`"auto"`: a bar on a terminal, plain lines otherwise; `"bar"`,
            `"plain"`; `False`/`"off"`: nothing.

    Returns:
        The exit code: 0 when every pair finished, 1 when some pairs could not reach the
        server (a rerun retries them) or no pair got an answer at all.

    Raises:
        OutDirConflictError: `out_dir` holds results of a run with other settings.
    """
    mode: ProgressMode = ("auto" if progress else "off") if isinstance(progress, bool) else progress
    prepare_out_dir(out_dir, settings, fresh=fresh)
    total = len(cases) * len(pipelines)
    ids = {c.id for c in cases}
    finished = sum(
        1 for (cid, p) in load_records(out_dir / RESULTS_FILE) if cid in ids and p in pipelines
    )
    if finished:
        console.print(plain(f"resuming: {finished} of {total} result(s) already in {out_dir}"))
    unfinished: list[str] = []

    with open_progress(mode, total - finished, console) as shown:

        def not_finished(case: EvalCase, pipeline: str, why: str) -> None:
            unfinished.append(why)
            shown.advance(None)

        def one_result(record: Mapping[str, Any]) -> None:
            shown.advance(record)

        records = asyncio.run(
            run_eval(
                cases,
                settings,
                pipelines=pipelines,
                out_dir=out_dir,
                concurrency=concurrency,
                on_result=one_result,
                on_unfinished=not_finished,
            )
        )
    if records:
        report = build_report(records, report_meta(settings, source, pipelines))
        print_report(report, console)
        written = write_reports(report, records, out_dir)
        console.print(plain("wrote " + ", ".join(str(p) for p in written)))
    if unfinished:
        console.print(
            f"{len(unfinished)} of {total} pair(s) not finished: the server could not answer "
            f"({unfinished[0]}). They are not in the results; rerun the same command to "
            "retry them (finished pairs are kept)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if not any(record.get("hard_kind") != "server_error" for record in records):
        first = next((r["message"] for r in records if r.get("message")), "")
        console.print(
            "error: no pair got an answer from the server"
            + (f"; every request failed ({first})" if first else ""),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return 1
    return 1 if unfinished else 0
