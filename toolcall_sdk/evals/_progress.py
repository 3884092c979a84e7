"""How a running eval shows its progress: a Rich bar on a terminal, plain lines elsewhere.

A bar redrawn with ANSI codes is noise in a log file or a CI job, and invisible until the
run ends when stdout is piped. Off a terminal the eval prints a line such as
`eval: 12/48 done, 0:01:05 elapsed, 3 failed` every tenth of the run or every 10 seconds,
whichever comes first (as results arrive), and one when the last pair is done.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "PLAIN_EVERY_S",
    "PLAIN_STEPS",
    "PlainProgress",
    "Progress",
    "ProgressMode",
    "open_progress",
]

ProgressMode = Literal["auto", "bar", "plain", "off"]
"""`auto`: the bar on a terminal, plain lines otherwise."""

PLAIN_EVERY_S: Final = 10.0
"""Most seconds between two plain lines while results keep arriving."""
PLAIN_STEPS: Final = 10
"""Plain lines per run at least: one each time another tenth of the pairs is done."""


class Progress(Protocol):
    """Told about each pair as it ends: its record, or None when it did not finish."""

    def advance(self, record: Mapping[str, Any] | None) -> None: ...

    def __enter__(self) -> Progress: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


class PlainProgress:
    """Progress as plain lines (no ANSI codes, no redrawing).

    Args:
        total: Pairs this run will send.
        write: Prints one line.
        clock: Seconds, monotonic; tests pass a fake one.
        every_s: Most seconds between two lines while results arrive.
    """

    def __init__(
        self,
        total: int,
        write: Callable[[str], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        every_s: float = PLAIN_EVERY_S,
    ) -> None:
        self.total = total
        self._write = write
        self._clock = clock
        self._every_s = every_s
        self._step = max(1, math.ceil(total / PLAIN_STEPS))
        self._started = clock()
        self._last = self._started
        self.done = 0
        self.failed = 0
        self.unfinished = 0

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        return None

    def advance(self, record: Mapping[str, Any] | None) -> None:
        """Count one ended pair; print a line when one is due."""
        self.done += 1
        if record is None:
            self.unfinished += 1
        elif record.get("verdict") != "pass":
            self.failed += 1
        now = self._clock()
        due = self.done % self._step == 0 or now - self._last >= self._every_s
        if due or self.done == self.total:
            self._last = now
            self._write(self.line(now))

    def line(self, now: float) -> str:
        """The progress line as of `now` (a reading of the clock)."""
        elapsed = timedelta(seconds=int(now - self._started))
        text = f"eval: {self.done}/{self.total} done, {elapsed} elapsed, {self.failed} failed"
        return text + (f", {self.unfinished} unfinished" if self.unfinished else "")


class _Bar:
    """The Rich bar, for a terminal (the CLI's dependency, imported only here)."""

    def __init__(self, total: int, console: Console, *, visible: bool) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("[bold]eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=not visible,
            transient=True,
        )
        self._task = self._bar.add_task("eval", total=total)

    def __enter__(self) -> _Bar:
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._bar.stop()

    def advance(self, record: Mapping[str, Any] | None) -> None:
        self._bar.advance(self._task)


def open_progress(mode: ProgressMode, total: int, console: Console) -> Progress:
    """The progress display for `mode`, printing on `console`.

    `auto` draws the bar when the console is a terminal and prints plain lines otherwise;
    `off` shows nothing.
    """
    if mode == "auto":
        mode = "bar" if console.is_terminal else "plain"
    if mode == "plain":
        return PlainProgress(
            total, lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True)
        )
    return _Bar(total, console, visible=mode == "bar")
