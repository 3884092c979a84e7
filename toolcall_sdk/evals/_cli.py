"""What `toolcall-sdk eval` does, apart from parsing its options (that is in `cli.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from toolcall_sdk.evals._bfcl_cases import bfcl_cases
from toolcall_sdk.evals._cases import EvalCase, load_cases
from toolcall_sdk.evals._files import write_reports
from toolcall_sdk.evals._pipelines import LADDER, EvalSettings, describe_settings
from toolcall_sdk.evals._report import EvalReport, build_report
from toolcall_sdk.evals._runner import RESULTS_FILE, load_records, run_eval
from toolcall_sdk.evals._terminal import print_report

__all__ = ["gather_cases", "resolve_model", "run_eval_command"]


def resolve_model(base_url: str, *, api_key: str | None, timeout: float) -> str:
    """The first model the server lists (`GET /v1/models`).

    Raises:
        ValueError: The server cannot be reached or serves no model.
    """
    import openai

    client = openai.OpenAI(
        base_url=base_url, api_key=api_key or "EMPTY", max_retries=0, timeout=timeout
    )
    try:
        served = [m.id for m in client.models.list()]
    except openai.APIError as exc:
        raise ValueError(
            f"cannot list the models of {base_url} ({type(exc).__name__}); "
            "is the server up? Or give --model"
        ) from exc
    finally:
        client.close()
    if not served:
        raise ValueError(f"{base_url} serves no model; give --model")
    return served[0]


def gather_cases(
    case_files: Sequence[str], bfcl: str | None, *, limit: int | None = None
) -> list[EvalCase]:
    """Cases from the files, then from the named BFCL categories, at most `limit` per source.

    Raises:
        CaseFormatError: A case file is invalid.
        ValueError: No case source was given, or an unknown BFCL category.
    """
    cases: list[EvalCase] = []
    for path in case_files:
        loaded = load_cases(path)
        cases.extend(loaded[:limit] if limit else loaded)
    if bfcl:
        for category in [c.strip() for c in bfcl.split(",") if c.strip()]:
            loaded = bfcl_cases(category)
            cases.extend(loaded[:limit] if limit else loaded)
    if not case_files and not bfcl:
        raise ValueError("give a case file (e.g. evals/invoices.jsonl) or --bfcl CATEGORY")
    return cases


def run_eval_command(
    cases: list[EvalCase],
    settings: EvalSettings,
    *,
    pipelines: Sequence[str],
    out_dir: Path,
    concurrency: int,
    progress: bool,
    console: Console,
    source: str,
) -> EvalReport:
    """Run the ladder with a progress bar, print the tables and write the report files."""
    total = len(cases) * len(pipelines)
    ids = {c.id for c in cases}
    finished = sum(
        1 for (cid, p) in load_records(out_dir / RESULTS_FILE) if cid in ids and p in pipelines
    )
    if finished:
        console.print(f"resuming: {finished} of {total} result(s) already in {out_dir}")
    pending = total - finished
    bar = Progress(
        TextColumn("[bold]eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not progress,
        transient=True,
    )
    with bar:
        task = bar.add_task("eval", total=pending)
        records = asyncio.run(
            run_eval(
                cases,
                settings,
                pipelines=pipelines,
                out_dir=out_dir,
                concurrency=concurrency,
                on_result=lambda _record: bar.advance(task),
            )
        )
    meta: dict[str, Any] = {**describe_settings(settings), "cases": source}
    meta["pipelines"] = ",".join(p for p in LADDER if p in pipelines)
    report = build_report(records, meta)
    print_report(report, console)
    written = write_reports(report, records, out_dir)
    console.print("wrote " + ", ".join(str(p) for p in written))
    return report
