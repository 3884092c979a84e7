"""Eval cases from reviewed traffic, and the case file they are added to.

A case written from a group of entries (`EntryGroup`) is an ordinary eval case (the format
of `_cases.py`), runnable by `toolcall-sdk eval` without `--allow-code`:

- `id`: `rec-` and the first 8 characters of the representative entry's id (more of them
  if another entry already took that id);
- `category`: the expected call's tool, or `no_call`;
- `messages`: the conversation as it was sent; `tools`: the OpenAI definitions as they were
  offered (JSON, no code reference);
- `expected.calls`: the decided calls. An optional parameter (not in the schema's
  `required`) recorded as `null` or as its schema default is accepted left out as well,
  since leaving it out means the same thing;
- `recorded`: where the case came from: the entry, its time, source, operation, model,
  status and failure class, how many near-duplicates it stands for (`count`) and the
  decision (`validated`, `answered`, `accepted`, `fixed`, `no_call`).

The case file is only ever added to: cases already in it are kept, and the entries they came
from are not reviewed again, so an interrupted review goes on where it stopped and running
`--accept` twice writes nothing new the second time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolcall_sdk._json_lines import json_lines
from toolcall_sdk.evals._cases import OMITTED, CaseFormatError, parse_case
from toolcall_sdk.evals._matching import json_equal
from toolcall_sdk.evals._near_duplicates import EntryGroup

__all__ = ["CaseFile", "Decision", "DecisionKind", "case_from", "case_id", "tool_schema"]

DecisionKind = Literal["validated", "answered", "accepted", "fixed", "no_call"]
_ID_LENGTHS = (8, 12, 16)


@dataclass(frozen=True, slots=True)
class Decision:
    """What a group's case expects.

    Attributes:
        kind: How it was decided: by `--accept` (`validated`, `answered`) or by a person
            (`accepted`, `fixed`, `no_call`).
        calls: The expected calls, `{"name", "arguments"}`; empty for no call.
    """

    kind: DecisionKind
    calls: tuple[Mapping[str, Any], ...] = ()


def tool_schema(tools: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    """The parameters schema of the tool called `name` among OpenAI definitions."""
    for entry in tools:
        function = entry.get("function", entry)
        if isinstance(function, Mapping) and function.get("name") == name:
            parameters = function.get("parameters")
            return parameters if isinstance(parameters, Mapping) else {}
    return None


def case_id(entry_id: str, taken: set[str]) -> str:
    """`rec-` and the first 8 characters of the id, more where those are taken."""
    for length in _ID_LENGTHS:
        candidate = f"rec-{entry_id[:length]}"
        if candidate not in taken:
            return candidate
    return f"rec-{entry_id}"


def case_from(group: EntryGroup, decision: Decision, *, taken: set[str]) -> dict[str, Any]:
    """The case for a decided group.

    Raises:
        CaseFormatError: The recorded tools or calls do not make a valid case (a tool
            definition without a name, a call of a tool that was not offered).
    """
    entry = group.entry
    case = {
        "id": case_id(entry.id, taken),
        "category": str(decision.calls[0]["name"]) if decision.calls else "no_call",
        "messages": [dict(m) for m in entry.messages],
        "tools": [dict(t) for t in entry.tools],
        "expected": {"calls": [_expected(call, entry.tools) for call in decision.calls]},
        "recorded": {
            "entry": entry.id,
            "time": entry.time,
            "source": entry.source,
            "operation": entry.operation,
            "model": entry.model,
            "status": entry.status,
            "failure_class": entry.failure_class,
            "count": group.count,
            "decision": decision.kind,
        },
    }
    parse_case(case, source=f"entry {entry.id} ({entry.where})")  # refuse it here, not in eval
    return case


def _expected(call: Mapping[str, Any], tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    schema = tool_schema(tools, str(call["name"])) or {}
    required = set(schema.get("required") or ())
    properties = schema.get("properties") or {}
    exact: dict[str, Any] = {}
    or_left_out: dict[str, list[Any]] = {}
    for key, value in (call.get("arguments") or {}).items():
        spec = properties.get(key) if isinstance(properties, Mapping) else None
        default = spec.get("default") if isinstance(spec, Mapping) and "default" in spec else None
        is_default = isinstance(spec, Mapping) and "default" in spec and json_equal(value, default)
        if key not in required and (value is None or is_default):
            or_left_out[key] = [value, OMITTED]
        else:
            exact[key] = value
    out: dict[str, Any] = {"name": call["name"], "arguments": exact}
    if or_left_out:
        out["accept"] = or_left_out
    return out


@dataclass
class CaseFile:
    """The case file reviewed traffic is added to.

    Attributes:
        path: The file (created on the first case written).
        ids: Case ids already in it.
        entries: Entry ids its recorded cases came from.
        written: Cases added by this session.
    """

    path: Path
    ids: set[str] = field(default_factory=set)
    entries: set[str] = field(default_factory=set)
    written: int = 0

    @classmethod
    def open(cls, path: str | Path) -> CaseFile:
        """Read the ids of a case file (missing: empty).

        Raises:
            CaseFormatError: A line is not a JSON object.
        """
        file = cls(Path(path))
        if not file.path.exists():
            return file
        with file.path.open(encoding="utf-8") as handle:
            for _, case in json_lines(
                handle,
                lambda number, exc: CaseFormatError(
                    f"not JSON ({exc.msg}); --out must be a case file (JSON Lines)",
                    source=f"{file.path}:{number}",
                ),
            ):
                if isinstance(case, dict) and isinstance(case.get("id"), str):
                    file.ids.add(case["id"])
                    recorded = case.get("recorded")
                    if isinstance(recorded, dict) and isinstance(recorded.get("entry"), str):
                        file.entries.add(recorded["entry"])
        return file

    def decided(self, group: EntryGroup) -> bool:
        """Whether a case in the file already came from one of the group's entries."""
        return any(entry.id in self.entries for entry in group.entries)

    def add(self, case: Mapping[str, Any]) -> None:
        """Append one case at once, so a review stopped any way keeps what it decided."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        needs_newline = self.path.exists() and self.path.stat().st_size > 0
        if needs_newline:
            with self.path.open("rb") as handle:
                handle.seek(-1, 2)
                needs_newline = handle.read(1) != b"\n"
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(("\n" if needs_newline else "") + json.dumps(case, ensure_ascii=False))
            handle.write("\n")
        self.ids.add(str(case["id"]))
        self.entries.add(str(case["recorded"]["entry"]))
        self.written += 1
