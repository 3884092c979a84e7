"""The ladder and the failure breakdowns as Rich tables for the terminal.

Rich is the CLI's dependency (the `cli` extra), imported when a table is drawn: the eval
harness itself runs without it. Categories, tools and error messages come from case files
and model answers: they go in as plain text, never read as Rich markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_sdk._console import plain
from toolcall_sdk.evals._report import Breakdown, EvalReport
from toolcall_sdk.evals._seed import SEED_SOURCE, seed_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = ["ladder_table", "print_report"]


def print_report(report: EvalReport, console: Console) -> None:
    """Print the ladder table, then failures per category and per tool."""
    console.print(ladder_table(report))
    for title, items in (("category", report.by_category), ("tool", report.by_tool)):
        table = _breakdown_table(title, [b for b in items if b.failed])
        if table.row_count:
            console.print(table)


def ladder_table(report: EvalReport) -> Table:
    """One row per pipeline: pass rate (and the seed's), failure classes and what it cost."""
    from rich.table import Table

    auto_server = report.meta.get("auto_server")
    caption = f"seed: {SEED_SOURCE}" + (f"; auto asked {auto_server}" if auto_server else "")
    table = Table(title=f"Tool-calling ladder ({report.cases} cases)", caption=caption)
    for column in ("pipeline", "pass%", "seed", "requests", "tokens", "p50/p95 latency"):
        table.add_column(column, justify="left" if column == "pipeline" else "right")
    for column in ("wrong_tool", "wrong_args", "hard_fail", "missed", "spurious", "parser_miss"):
        table.add_column(column, justify="right")
    # Multi-step tasks add their own columns; the ladder's table stays as it was without them.
    agent = any(row.steps_per_case for row in report.ladder)
    if agent:
        table.add_column("wrong_answer", justify="right")
        table.add_column("steps", justify="right")
    for row in report.ladder:
        extra = (
            (str(row.classes.get("wrong_answer", 0)), f"{row.steps_per_case:.2f}/case")
            if agent
            else ()
        )
        table.add_row(
            plain(row.pipeline),
            f"{row.pass_rate:.1%}",
            seed_text(row.seed_pass_rate),
            f"{row.requests} ({row.requests_per_case:.2f}/case)",
            f"{row.tokens} ({row.tokens_per_case:.0f}/case)",
            f"{row.latency_p50_s:.2f}s / {row.latency_p95_s:.2f}s",
            str(row.classes["wrong_tool"]),
            str(row.classes["wrong_args"]),
            str(row.classes["hard_fail"]),
            str(row.classes["missed_call"]),
            str(row.classes["spurious_call"]),
            str(row.parser_miss),
            *extra,
        )
    return table


def _breakdown_table(title: str, items: list[Breakdown]) -> Table:
    from rich.table import Table

    table = Table(title=plain(f"Failures by {title}"))
    table.add_column(title)
    table.add_column("pipeline")
    table.add_column("failed", justify="right")
    table.add_column("classes")
    table.add_column("most common errors")
    for item in items:
        table.add_row(
            plain(item.key),
            plain(item.pipeline),
            f"{item.failed}/{item.cases}",
            plain(", ".join(f"{k} {v}" for k, v in item.failures.items())),
            plain("\n".join(f"{count}x {message}" for message, count in item.top_messages)),
        )
    return table
