"""Labelled routing cases from traffic: recorded decisions and eval case files (JSON only).

Two line formats are read, one JSON object per line:

- a recorded decision, as `decision_record` writes it: `{"messages": [...], "tools": [...],
  "decision": {...}, "should_call": true}`. `should_call` is the right answer, filled in
  by whoever knows it (a reviewer, or the outcome: the call validated and ran); records
  without it are skipped, because an unlabelled decision teaches nothing;
- a `toolcall-sdk eval` case: `{"messages": [...], "tools": [...], "expected": {"calls":
  [...]}}`; "call" when `expected` names calls. Tools given as a code reference
  (`"tools.py:TOOLS"`) are refused here, since reading data never runs code: load such a file
  with `toolcall_sdk.evals.load_cases(path, allow_code=True)` and pass
  `[(c.messages, c.tools, c.expects_call) for c in cases]` to `fit` or `refresh`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._tools import Tool
from toolcall_sdk.routing._decision import RouteDecision
from toolcall_sdk.routing._tool_specs import tool_specs

__all__ = ["decision_record", "read_routing_cases"]

RoutingCase = tuple[list[dict[str, Any]], list[dict[str, Any]], bool]


def decision_record(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    decision: RouteDecision,
    *,
    should_call: bool | None = None,
) -> dict[str, Any]:
    """A JSON-ready record of one routing decision, for `read_routing_cases` later.

    Tools are stored as OpenAI tool dicts (name, description, parameters), so the record can
    be read back without the code that defined them.

    Args:
        messages: The conversation the router saw.
        tools: The tools it was offered.
        decision: What it decided.
        should_call: The right answer when known now; leave None and fill it in later.
    """
    return {
        "messages": [dict(m) for m in messages],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": dict(spec.parameters),
                },
            }
            for spec in tool_specs(tools)
        ],
        "decision": {
            "call": decision.call,
            "tools": list(decision.tools),
            "score": decision.score,
            "router": decision.router,
        },
        "should_call": should_call,
    }


def read_routing_cases(path: str | Path) -> list[RoutingCase]:
    """Labelled `(messages, tools, should_call)` cases from a JSON Lines file.

    Raises:
        RouterError: The file cannot be read, a line is not JSON, or a case names code.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise RouterError(f"cannot read routing cases from {path}: {exc}") from exc
    cases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RouterError(f"{path}:{number}: not JSON ({exc})") from exc
        case = _case(row, f"{path}:{number}")
        if case is not None:
            cases.append(case)
    return cases


def _case(row: Any, where: str) -> RoutingCase | None:
    if not isinstance(row, dict) or not isinstance(row.get("messages"), list):
        raise RouterError(f"{where}: expected an object with a 'messages' list")
    tools = row.get("tools")
    if isinstance(tools, str):
        raise RouterError(
            f"{where}: tools are a code reference ({tools!r}); load the file with "
            "toolcall_sdk.evals.load_cases(path, allow_code=True) and pass "
            "(c.messages, c.tools, c.expects_call) for each case"
        )
    if not isinstance(tools, list):
        raise RouterError(f"{where}: expected a 'tools' list of OpenAI tool dicts")
    if "expected" in row:
        expected = row["expected"]
        calls = expected.get("calls") if isinstance(expected, dict) else expected
        return row["messages"], tools, bool(calls)
    label = row.get("should_call")
    if label is None:
        return None  # recorded but not labelled yet
    if not isinstance(label, bool):
        raise RouterError(f"{where}: 'should_call' must be true, false or null")
    return row["messages"], tools, label
