"""`eval compare` on the terminal: the rungs before and after, then the cases that moved.

In the style of `eval`'s own tables (`_terminal.py`): Rich tables, the runs' case ids,
calls and messages as plain text (never markup). A figure that got worse is red, one that
got better green, so a regression shows at a glance even in a wide table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolcall_sdk._console import plain
from toolcall_sdk.evals._call_text import calls_text
from toolcall_sdk.evals._compare import CaseChange, RunComparison, changed_settings
from toolcall_sdk.evals._taxonomy import FAILURE_CLASSES

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

__all__ = ["outcome_text", "print_comparison"]

_SHORT = {"missed_call": "missed", "spurious_call": "spurious"}


def print_comparison(comparison: RunComparison, console: Console) -> None:
    """The runs, what changed in their settings, the rung table, regressions and fixes."""
    before, after = comparison.before, comparison.after
    for label, run in (("A", before), ("B", after)):
        console.print(plain(f"{label}: {run.path}  ") + plain(_describe(run.meta), "dim"))
    for key, was, now in changed_settings(before, after):
        console.print(plain(f"changed: {key} {was} -> {now}"))
    console.print(rung_table(comparison))
    for label, counts in (("A", comparison.only_before), ("B", comparison.only_after)):
        if counts:
            where = ", ".join(f"{p} {n}" for p, n in counts.items())
            console.print(
                plain(f"only in {label}: {sum(counts.values())} (case, pipeline) pair(s) ({where})")
                + plain("; the rates above are over the cases both runs ran", "dim")
            )
    for title, changes in (
        (f"Regressed: passed in A, not in B ({len(comparison.regressed)})", comparison.regressed),
        (f"Fixed: not passed in A, passed in B ({len(comparison.fixed)})", comparison.fixed),
    ):
        if changes:
            console.print(_changes_table(title, changes))
    console.print(
        plain(f"{len(comparison.regressed)} regressed", "bold red" if comparison.regressed else "")
        + plain(", ")
        + plain(f"{len(comparison.fixed)} fixed", "green" if comparison.fixed else "")
        + plain(f" over {sum(r.cases for r in comparison.rungs)} shared (case, pipeline) pairs")
    )


def rung_table(comparison: RunComparison) -> Table:
    """One row per pipeline: the pass rate A and B, then each failure class A -> B."""
    from rich.table import Table

    classes = [
        c
        for c in FAILURE_CLASSES
        if c != "wrong_answer" or any(r.before.get(c) or r.after.get(c) for r in comparison.rungs)
    ]
    table = Table(title="Per pipeline, A -> B")
    table.add_column("pipeline")
    for column in ("cases", "pass% A", "pass% B", "change"):
        table.add_column(column, justify="right")
    for name in classes:
        table.add_column(_SHORT.get(name, name), justify="right")
    for rung in comparison.rungs:
        was, now = rung.pass_rate(rung.before), rung.pass_rate(rung.after)
        table.add_row(
            plain(rung.pipeline),
            str(rung.cases),
            f"{was:.1%}",
            f"{now:.1%}",
            _change(f"{(now - was) * 100:+.1f} pts", now - was),
            *(
                _change(f"{rung.before[c]} -> {rung.after[c]}", rung.before[c] - rung.after[c])
                for c in classes
            ),
        )
    return table


def _changes_table(title: str, changes: Sequence[CaseChange]) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("case")
    table.add_column("pipeline")
    table.add_column("A", overflow="fold")
    table.add_column("B", overflow="fold")
    for change in changes:
        table.add_row(
            plain(change.case_id),
            plain(change.pipeline),
            outcome_text(change.before),
            outcome_text(change.after),
        )
    return table


def outcome_text(record: Mapping[str, Any]) -> Text:
    """A record as shown: the calls made, and before them the failure when it failed."""
    made = calls_text(record.get("calls") or [])
    if record.get("verdict") == "pass":
        return plain(made, "green")
    why = f"{record['verdict']}: {record.get('message') or ''}".rstrip(": ")
    return plain(why, "red") + plain(f"\n{made}")


def _change(text: str, better: float) -> Text:
    return plain(text, "green" if better > 0 else "red" if better < 0 else "")


def _describe(meta: Mapping[str, Any]) -> str:
    shown = [f"{key} {meta[key]}" for key in ("model", "cases", "pipelines") if meta.get(key)]
    return ", ".join(shown)
