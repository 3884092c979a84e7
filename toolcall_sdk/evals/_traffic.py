"""Reading the recorder's traffic files: one `TrafficEntry` per model request it saw.

The recorder writes JSON Lines to `traffic.jsonl` in its folder and rotates full files to
`traffic-*.jsonl`; every line is one entry::

    {"version": 1, "id": "<hex>", "time": "<ISO 8601>", "source": "client" | "proxy",
     "operation": "call" | "run" | "resume" | "stream" | "chat", "model": "...",
     "messages": [...], "tools": [{"type": "function", "function": {...}}], "settings": {...},
     "outcome": {"status": "called" | "answered" | "failed" | "error",
                 "calls": [{"name": "...", "arguments": {...}}], "content": "..." | null,
                 "error": "..." | null, "problems": [{"kind", "message", "tool_name"}],
                 "attempts": 1},
     "failure_class": "..." | null, "usage": {...}, "latency_s": 0.4}

The files are read as data, never imported from the recorder's code: reviewing traffic needs
only the files, wherever they were written. A torn last line (the recorder was stopped in
mid-write) is left out and counted; any other line that is not an entry is an error naming
its file and line, because a case built from half an entry would test the wrong thing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolcall_sdk._errors import ToolCallError

__all__ = [
    "FAILED_STATUSES",
    "STATUSES",
    "TRAFFIC_VERSION",
    "TrafficEntry",
    "TrafficFormatError",
    "TrafficRead",
    "read_traffic",
    "traffic_files",
]

TRAFFIC_VERSION: Final = 1
"""The entry format this reader knows; another version is refused, not guessed at."""
STATUSES: Final = ("called", "answered", "failed", "error")
FAILED_STATUSES: Final = ("failed", "error")
"""Statuses with no validated call and no answer: what a reviewer looks at first."""


class TrafficFormatError(ToolCallError, ValueError):
    """A traffic folder holds no traffic files, or a line that is not a traffic entry.

    Attributes:
        source: The file and line at fault (empty for a folder with no files).
    """

    def __init__(self, message: str, *, source: str = "") -> None:
        super().__init__(f"{source}: {message}" if source else message)
        self.source = source


@dataclass(frozen=True, slots=True)
class TrafficEntry:
    """One recorded request and what came of it.

    Attributes:
        id: The entry's id (hex).
        time: When it was recorded, ISO 8601 as written.
        source: `client` or `proxy`.
        operation: `call`, `run`, `resume`, `stream` or `chat`.
        model: The model asked.
        messages: The conversation sent.
        tools: The tools offered, OpenAI definitions.
        status: `called`, `answered`, `failed` or `error`.
        calls: The validated calls (`{"name", "arguments"}`), for `called`.
        content: The text answer, for `answered`.
        error: Why no answer came back, for `error` (and often `failed`).
        problems: What failed validation (`{"kind", "message", "tool_name"}`).
        attempts: Model answers it took.
        failure_class: The recorder's failure class, or None.
        where: `file:line`, for messages.
    """

    id: str
    time: str
    source: str
    operation: str
    model: str
    messages: tuple[Mapping[str, Any], ...]
    tools: tuple[Mapping[str, Any], ...]
    status: str
    calls: tuple[Mapping[str, Any], ...] = ()
    content: str | None = None
    error: str | None = None
    problems: tuple[Mapping[str, Any], ...] = ()
    attempts: int = 0
    failure_class: str | None = None
    where: str = ""

    @property
    def failed(self) -> bool:
        """No validated call and no answer, or the recorder gave it a failure class."""
        return self.status in FAILED_STATUSES or self.failure_class is not None

    @property
    def outcome_class(self) -> str:
        """The failure class where the recorder gave one, else the status."""
        return self.failure_class or self.status

    @property
    def one_step(self) -> bool:
        """Whether the calls are what the first request of the conversation should make.

        The recorder writes one entry per invocation: a `run` entry's calls are every call of
        the run, over all its steps, and a `resume` entry's are those made after an approval
        pause, its conversation the one the paused run began with.
        A run with at most one call made it (or its text answer) in the first step; a run
        with more may have chained them, which a one-step case cannot expect.
        """
        if self.operation == "resume":
            return False
        return self.operation != "run" or len(self.calls) <= 1

    @property
    def tool(self) -> str:
        """The tool the entry is about: the first call's, the first problem's, or `no_call`."""
        if self.calls:
            return str(self.calls[0]["name"])
        for problem in self.problems:
            if problem.get("tool_name"):
                return str(problem["tool_name"])
        return "no_call"


@dataclass(frozen=True, slots=True)
class TrafficRead:
    """What `read_traffic` found.

    Attributes:
        entries: The entries, oldest first (ties in id order), each id once.
        files: The files read.
        torn: Torn last lines left out.
        repeated: Entries seen twice (same id) and read once.
    """

    entries: tuple[TrafficEntry, ...]
    files: tuple[Path, ...]
    torn: int = 0
    repeated: int = 0


def traffic_files(path: Path) -> list[Path]:
    """The traffic files of a folder: the rotated ones in name order, then `traffic.jsonl`.

    A file given instead of a folder is read alone.

    Raises:
        TrafficFormatError: Nothing there, or a folder holding no traffic file.
    """
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise TrafficFormatError(f"no traffic folder at {path}")
    files = sorted(path.glob("traffic-*.jsonl"))
    if (path / "traffic.jsonl").is_file():
        files.append(path / "traffic.jsonl")
    if not files:
        raise TrafficFormatError(
            f"{path} holds no traffic.jsonl or traffic-*.jsonl: give the folder the SDK's "
            "recorder writes to"
        )
    return files


def read_traffic(path: str | Path) -> TrafficRead:
    """Read every entry of a traffic folder (or of one traffic file).

    Raises:
        TrafficFormatError: No traffic files, or a line that is not a version-1 entry.
    """
    files = traffic_files(Path(path))
    seen: dict[str, TrafficEntry] = {}
    torn = repeated = 0
    for file in files:
        lines = file.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{file}:{number}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == len(lines):
                    torn += 1  # the recorder stopped mid-write; the entry never finished
                    continue
                raise TrafficFormatError(f"not JSON ({exc.msg})", source=where) from exc
            entry = parse_entry(raw, where)
            if entry.id in seen:
                repeated += 1
                continue
            seen[entry.id] = entry
    entries = sorted(seen.values(), key=lambda e: (e.time, e.id))
    return TrafficRead(tuple(entries), tuple(files), torn=torn, repeated=repeated)


def parse_entry(raw: Any, where: str = "") -> TrafficEntry:
    """One decoded line as a `TrafficEntry`.

    Raises:
        TrafficFormatError: It is not a version-1 entry with the fields a case needs.
    """
    if not isinstance(raw, dict):
        raise TrafficFormatError("a traffic entry must be a JSON object", source=where)
    if raw.get("version") != TRAFFIC_VERSION:
        raise TrafficFormatError(
            f"traffic entry version {raw.get('version')!r}; this toolcall-sdk reads version "
            f"{TRAFFIC_VERSION} (upgrade it to read newer recordings)",
            source=where,
        )
    entry_id = raw.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        raise TrafficFormatError("'id' must be a non-empty string", source=where)
    messages = _objects(raw.get("messages"), "messages", where)
    if not messages or not all("role" in m for m in messages):
        raise TrafficFormatError("'messages' must be a non-empty list of messages", source=where)
    outcome = raw.get("outcome")
    if not isinstance(outcome, dict) or outcome.get("status") not in STATUSES:
        raise TrafficFormatError(
            f"'outcome.status' must be one of {', '.join(STATUSES)}", source=where
        )
    calls = _objects(outcome.get("calls"), "outcome.calls", where)
    for call in calls:
        if not isinstance(call.get("name"), str) or not isinstance(call.get("arguments", {}), dict):
            raise TrafficFormatError(
                "each call needs a 'name' and an 'arguments' object", source=where
            )
    return TrafficEntry(
        id=entry_id,
        time=str(raw.get("time") or ""),
        source=str(raw.get("source") or ""),
        operation=str(raw.get("operation") or ""),
        model=str(raw.get("model") or ""),
        messages=tuple(messages),
        tools=tuple(_objects(raw.get("tools"), "tools", where)),
        status=outcome["status"],
        calls=tuple(
            {"name": c["name"], "arguments": dict(c.get("arguments") or {})} for c in calls
        ),
        content=_text(outcome.get("content")),
        error=_text(outcome.get("error")),
        problems=tuple(_objects(outcome.get("problems"), "outcome.problems", where)),
        attempts=int(outcome.get("attempts") or 0),
        failure_class=_text(raw.get("failure_class")),
        where=where,
    )


def _objects(value: Any, name: str, where: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise TrafficFormatError(f"'{name}' must be a list of objects", source=where)
    return value


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
