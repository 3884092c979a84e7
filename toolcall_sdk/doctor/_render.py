"""The doctor's report as a Rich table.

Rich is the CLI's dependency (the `cli` extra), imported when the table is drawn:
`run_doctor` itself runs without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_sdk.doctor._findings import Report

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["render_report"]

_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "info": "cyan"}


def render_report(report: Report, console: Console) -> None:
    """Print one row per finding, then a one-line verdict."""
    from rich.table import Table

    table = Table(title=f"toolcall-sdk doctor: {report.base_url} ({report.model or '?'})")
    table.add_column("check")
    table.add_column("status")
    table.add_column("finding", overflow="fold")
    table.add_column("fix", overflow="fold")
    for finding in report.findings:
        style = _STYLE[finding.status]
        table.add_row(finding.check, f"[{style}]{finding.status}[/]", finding.detail, finding.fix)
    console.print(table)
    failed = [f.check for f in report.findings if f.status == "fail"]
    if failed:
        console.print(f"[bold red]{len(failed)} problem(s):[/] {', '.join(failed)}")
    else:
        console.print("[green]tool calling works on this server[/]")
