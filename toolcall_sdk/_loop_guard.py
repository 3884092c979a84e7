"""The loop guard: the same call (tool and arguments) made again and again in one run.

Small models stuck in a loop repeat a call with the same arguments, step after step. The
guard counts, per run, the steps whose answer made each call. The `limit`-th such step
does not run the call again: the model is told it already has the result. The next one
stops the run. Identical calls inside one answer count once: "roll a die three times"
may legitimately send three equal calls at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from toolcall_sdk._results import ToolCall

__all__ = ["LoopGuard", "Seen", "Verdict", "call_key"]

Verdict = Literal["run", "repeat", "stop"]


@dataclass(slots=True)
class Seen:
    """One call's record in a run: how many steps made it, and what it gave last."""

    name: str
    arguments: str  # sorted-key JSON of the validated arguments
    count: int
    result: str  # the tool message content of its last run


def call_key(call: ToolCall) -> tuple[str, str]:
    """The tool name and the canonical (sorted-key, compact) JSON of the validated arguments."""
    try:
        values = call.arguments.model_dump(mode="json")
        arguments = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):  # a field that has no JSON form: compare what was sent
        arguments = call.raw_arguments
    return call.name, arguments


class LoopGuard:
    """Counts repeated calls across the steps of one run.

    Args:
        limit: The step count that gets feedback instead of a run; the next one stops the
            run. None turns the guard off.
        seen: Records carried over (from a paused run's state).
    """

    def __init__(self, limit: int | None, seen: Iterable[Seen] = ()) -> None:
        self.limit = limit
        self._seen = {(item.name, item.arguments): item for item in seen}

    def verdict(self, call: ToolCall) -> tuple[Verdict, Seen | None]:
        """What to do with `call` in the current answer; reads, never records."""
        seen = self._seen.get(call_key(call))
        if self.limit is None or seen is None:
            return "run", seen
        this = seen.count + 1
        if this < self.limit:
            return "run", seen
        return ("repeat" if this == self.limit else "stop"), seen

    def seen(self, call: ToolCall) -> bool:
        """Whether `call` (the same name and arguments) ran earlier in this run."""
        return call_key(call) in self._seen

    def record(self, calls: Sequence[ToolCall], contents: dict[str, str]) -> None:
        """Count one answer's calls (each distinct call once) with their tool messages."""
        done: set[tuple[str, str]] = set()
        for call in calls:
            key = call_key(call)
            if key in done or not (call.executed or call.skipped == "repeated"):
                continue
            done.add(key)
            seen = self._seen.get(key)
            if seen is None:
                self._seen[key] = Seen(key[0], key[1], 1, contents.get(call.id, ""))
                continue
            seen.count += 1
            if call.executed:  # a repeat answered by the guard keeps the real result
                seen.result = contents.get(call.id, seen.result)

    def entries(self) -> list[Seen]:
        """Every record, for a paused run's state."""
        return list(self._seen.values())
