"""The doctor's report as a Rich table.

Rich is the CLI's dependency (the `cli` extra), imported when the table is drawn:
`run_doctor` itself runs without it. Every finding, fix and URL goes in as plain text
(`toolcall_sdk._console.plain`): a fix such as `pip install "toolcall-sdk[embeds]"` keeps
its brackets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_sdk._console import plain
from toolcall_sdk.doctor._findings import Report

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["render_report"]

_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "info": "cyan"}


def render_report(report: Report, console: Console) -> None:
    """Print one row per finding, then a one-line verdict."""
    from rich.table import Table

    title = plain(f"toolcall-sdk doctor: {report.base_url} ({report.model or '?'})")
    table = Table(title=title)
    table.add_column("check")
    table.add_column("status")
    table.add_column("finding", overflow="fold")
    table.add_column("fix", overflow="fold")
    for finding in report.findings:
        table.add_row(
            plain(finding.check),
            plain(finding.status, _STYLE[finding.status]),
            plain(finding.detail),
            plain(finding.fix),
        )
    console.print(table)
    failed = [f.check for f in report.findings if f.status == "fail"]
    if failed:
        console.print(plain(f"{len(failed)} problem(s): ", "bold red") + plain(", ".join(failed)))
    else:
        console.print(plain("tool calling works on this server", "green"))
