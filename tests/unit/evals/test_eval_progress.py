"""Progress off a terminal: a plain line per tenth of the run, or after 10 quiet seconds."""

from __future__ import annotations

import io

from rich.console import Console

from toolcall_sdk.evals._progress import PlainProgress, open_progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_line_per_tenth_of_the_run_and_one_at_the_end() -> None:
    lines: list[str] = []
    clock = Clock()
    progress = PlainProgress(48, lines.append, clock=clock)

    for n in range(48):
        clock.now += 1.0
        progress.advance({"verdict": "pass" if n % 4 else "wrong_args"})

    assert len(lines) == 10  # every 5th of 48 (9 lines), and the 48th
    assert lines[0] == "eval: 5/48 done, 0:00:05 elapsed, 2 failed"
    assert lines[-1] == "eval: 48/48 done, 0:00:48 elapsed, 12 failed"


def test_a_line_when_ten_seconds_passed_since_the_last() -> None:
    lines: list[str] = []
    clock = Clock()
    progress = PlainProgress(1000, lines.append, clock=clock)

    clock.now += 9.5
    progress.advance({"verdict": "pass"})
    assert lines == []
    clock.now += 0.5
    progress.advance(None)  # a pair the server could not answer
    clock.now += 55.0
    progress.advance({"verdict": "hard_fail"})

    assert lines == [
        "eval: 2/1000 done, 0:00:10 elapsed, 0 failed, 1 unfinished",
        "eval: 3/1000 done, 0:01:05 elapsed, 1 failed, 1 unfinished",
    ]


def test_auto_draws_plain_lines_off_a_terminal_without_escape_codes() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80)  # not a terminal
    assert not console.is_terminal

    with open_progress("auto", 1, console) as progress:
        progress.advance({"verdict": "pass"})

    assert buffer.getvalue() == "eval: 1/1 done, 0:00:00 elapsed, 0 failed\n"


def test_on_a_terminal_auto_draws_the_bar() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, force_terminal=True)

    with open_progress("auto", 2, console) as progress:
        progress.advance({"verdict": "pass"})
        progress.advance({"verdict": "pass"})

    assert "eval: " not in buffer.getvalue()  # no plain line: the (transient) bar instead
    assert not isinstance(progress, PlainProgress)
