"""`report.json`, `report.md` and `ladder.svg` in the output folder."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from toolcall_sdk.evals._report import Breakdown, EvalReport
from toolcall_sdk.evals._seed import SEED_SOURCE, seed_text
from toolcall_sdk.evals._svg import ladder_svg

__all__ = ["CHART_FILE", "JSON_FILE", "MARKDOWN_FILE", "report_markdown", "write_reports"]

JSON_FILE: Final = "report.json"
MARKDOWN_FILE: Final = "report.md"
CHART_FILE: Final = "ladder.svg"


def write_reports(
    report: EvalReport, records: Sequence[Mapping[str, Any]], out_dir: str | Path
) -> list[Path]:
    """Write the three report files.

    `report.json` holds the aggregate and every per-case record (`cases`), so one file
    says which class each case got and why.

    Returns:
        The paths written.
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    data = report.as_dict()
    data["records"] = list(records)
    paths = [folder / JSON_FILE, folder / MARKDOWN_FILE, folder / CHART_FILE]
    paths[0].write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths[1].write_text(report_markdown(report), encoding="utf-8")
    paths[2].write_text(ladder_svg(report), encoding="utf-8")
    return paths


def report_markdown(report: EvalReport) -> str:
    """The report as Markdown: settings, the ladder table, the chart, the breakdowns."""
    lines = ["# Tool-calling eval", ""]
    for key, value in report.meta.items():
        lines.append(f"- {key}: `{value}`")
    lines += [
        "",
        "## Ladder",
        "",
        "| pipeline | pass% | seed | requests/case | tokens/case | p50 / p95 latency "
        "| wrong_tool | wrong_args | hard_fail | missed_call | spurious_call | parser_miss |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report.ladder:
        c = row.classes
        lines.append(
            f"| {row.pipeline} | {row.pass_rate:.1%} | {seed_text(row.seed_pass_rate)} "
            f"| {row.requests_per_case:.2f} "
            f"| {row.tokens_per_case:.0f} | {row.latency_p50_s:.2f}s / {row.latency_p95_s:.2f}s "
            f"| {c['wrong_tool']} | {c['wrong_args']} | {c['hard_fail']} | {c['missed_call']} "
            f"| {c['spurious_call']} | {row.parser_miss} |"
        )
    lines += ["", f"seed: {SEED_SOURCE}.", "", f"![ladder]({CHART_FILE})", ""]
    for title, items in (("category", report.by_category), ("tool", report.by_tool)):
        lines += _breakdown_section(title, [b for b in items if b.failed])
    return "\n".join(lines) + "\n"


def _breakdown_section(title: str, items: list[Breakdown]) -> list[str]:
    lines = [f"## Failures by {title}", ""]
    if not items:
        return [*lines, "No failures.", ""]
    lines += [f"| {title} | pipeline | failed | classes | most common errors |"]
    lines += ["|---|---|---:|---|---|"]
    for item in items:
        classes = ", ".join(f"{k} {v}" for k, v in item.failures.items())
        errors = "<br>".join(f"{n}x {_cell(m)}" for m, n in item.top_messages)
        lines.append(
            f"| {_cell(item.key)} | {item.pipeline} | {item.failed}/{item.cases} "
            f"| {classes} | {errors} |"
        )
    return [*lines, ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
