"""What `toolcall-sdk cases review` does, apart from parsing its options (that is in `cli.py`).

Read the traffic folder, fold near-duplicates, leave out what the case file already holds,
then either write the groups `--accept` names (scripts, CI) or ask a person about each
(`_review.py`), failures first; `--sample N` reviews N groups spread over tools and outcome
classes instead of all of them.

`--accept validated` writes each request the SDK called with a validated call, expecting
that call. `--accept answered` writes each request answered in text as a no-call case; it is
a separate choice because a text answer is not evidence that no call was needed (a model
that misses a call answers in text, and `missed_call` is among the commonest failures), so
it is only ground truth where the traffic's answers are known to be right. Failed and errored
requests are never accepted: there is no right call to take from them, and they are the
ones a person should look at.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from toolcall_sdk._console import plain
from toolcall_sdk._errors import ToolCallError
from toolcall_sdk.evals._near_duplicates import EntryGroup, fold
from toolcall_sdk.evals._recorded_cases import CaseFile, Decision, case_from
from toolcall_sdk.evals._review import Ask, ReviewTally, review
from toolcall_sdk.evals._sample import review_order, sample
from toolcall_sdk.evals._traffic import FAILED_STATUSES, TrafficRead, read_traffic

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["ACCEPT_CHOICES", "console_ask", "run_review_command"]

ACCEPT_CHOICES: Final = {"validated": "called", "answered": "answered"}
"""`--accept` values and the recorded status each one writes."""


def console_ask(console: Console) -> Ask:
    """The review's prompt on a console: one line from standard input.

    Answers that do not come from a terminal (a script piped in, a test's input) are printed
    after their prompt, so the transcript reads as the terminal session would.
    """

    def ask(prompt: str) -> str:
        answer = console.input(plain(prompt))
        if not sys.stdin.isatty():
            _say(console, answer)
        return answer

    return ask


def run_review_command(
    directory: str | Path,
    out: str | Path,
    *,
    accept: Sequence[str] = (),
    sample_size: int | None = None,
    seed: int = 0,
    console: Console,
    ask: Ask,
) -> int:
    """Review a traffic folder into the case file `out`.

    Args:
        accept: `validated` and/or `answered`: write those without asking; empty: ask.
        sample_size: Review this many groups, spread out (`_sample.py`); None: all.
        seed: The sample's seed.
        ask: The prompt of the interactive review (unused with `accept`).

    Returns:
        The exit code: 0.

    Raises:
        TrafficFormatError: The folder holds no traffic, or a line that is not an entry.
        CaseFormatError: `out` exists and is not a case file.
        ValueError: An unknown `accept` value, or `sample_size` below 1.
    """
    unknown = [a for a in accept if a not in ACCEPT_CHOICES]
    if unknown:
        raise ValueError(
            f"unknown --accept value(s) {unknown}; choose from {', '.join(ACCEPT_CHOICES)}"
        )
    if sample_size is not None and sample_size < 1:
        raise ValueError(f"--sample must be at least 1 (got {sample_size})")
    case_file = CaseFile.open(out)
    read = read_traffic(directory)
    groups = fold(read.entries)
    todo = [g for g in groups if not case_file.decided(g)]
    _print_read(read, groups, len(groups) - len(todo), case_file, console)
    if accept:
        statuses = {ACCEPT_CHOICES[a] for a in accept}
        eligible = [g for g in todo if g.entry.status in statuses and g.entry.one_step]
        chosen = sample(eligible, sample_size, seed=seed) if sample_size else eligible
        written, unusable = _write_accepted(chosen, case_file, console)
        _say(console, f"wrote {written} case(s) to {case_file.path}")
        if unusable:
            _say(console, f"{unusable} left out: their recorded tools make no valid case")
        taken = {id(g) for g in eligible}  # by identity: comparing groups compares entries
        _print_left([g for g in todo if id(g) not in taken], console, directory, out)
    else:
        chosen = sample(todo, sample_size, seed=seed) if sample_size else review_order(todo)
        if not chosen:
            _say(console, "nothing to review")
            return 0
        tally = review(chosen, out=case_file, console=console, ask=ask)
        _print_tally(tally, case_file, console, directory, out)
    if case_file.written:
        _say(console, f"next: toolcall-sdk eval {case_file.path} --base-url URL")
    return 0


def _write_accepted(
    groups: Sequence[EntryGroup], case_file: CaseFile, console: Console
) -> tuple[int, int]:
    written = unusable = 0
    for group in groups:
        entry = group.entry
        decision = (
            Decision("validated", entry.calls) if entry.status == "called" else Decision("answered")
        )
        try:
            case = case_from(group, decision, taken=case_file.ids)
        except ToolCallError as exc:
            unusable += 1
            _say(console, f"left out {entry.id}: {exc}")
            continue
        case_file.add(case)
        written += 1
    return written, unusable


def _print_left(
    left: Sequence[EntryGroup], console: Console, directory: str | Path, out: str | Path
) -> None:
    """Say what `--accept` left for a person, and why."""
    if not left:
        return
    why: Counter[str] = Counter()
    for group in left:
        entry = group.entry
        if entry.status in FAILED_STATUSES:
            why["failed or errored"] += 1
        elif not entry.one_step:
            why["runs whose calls may span steps, or resumed"] += 1
        else:
            kind = next(k for k, status in ACCEPT_CHOICES.items() if status == entry.status)
            why[f"{entry.status} (--accept {kind} takes them)"] += 1
    reasons = "; ".join(f"{n} {reason}" for reason, n in why.items())
    _say(
        console,
        f"{len(left)} request(s) left for a person ({reasons}): "
        f"toolcall-sdk cases review {directory} --out {out}",
    )


def _print_read(
    read: TrafficRead, groups: list[EntryGroup], done: int, case_file: CaseFile, console: Console
) -> None:
    files = len(read.files)
    text = (
        f"read {len(read.entries)} entr{'y' if len(read.entries) == 1 else 'ies'} from {files} "
        f"file(s): {len(groups)} request(s) once near-duplicates are folded"
    )
    if read.torn:
        text += f"; {read.torn} torn last line(s) left out"
    if done:
        text += f"; {done} already in {case_file.path}"
    _say(console, text)


def _print_tally(
    tally: ReviewTally,
    case_file: CaseFile,
    console: Console,
    directory: str | Path,
    out: str | Path,
) -> None:
    text = (
        f"wrote {case_file.written} case(s) to {case_file.path}: {tally.accepted} accepted, "
        f"{tally.fixed} fixed, {tally.no_call} no call; {tally.skipped} skipped"
    )
    if tally.unusable:
        text += f"; {tally.unusable} left out (unreadable tools)"
    _say(console, text)
    if tally.not_reviewed:
        _say(
            console,
            f"{tally.not_reviewed} not reviewed: run the same command to go on "
            f"(toolcall-sdk cases review {directory} --out {out})",
        )


def _say(console: Console, text: str) -> None:
    # Whole lines: a path or a command to copy is never broken at the console's width.
    console.print(plain(text), soft_wrap=True)
