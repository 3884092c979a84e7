"""What one step remembers across its attempts, and across an approval pause.

A step may answer several times (a `ModelRetry`, a rejected sibling call) and pause for a
person between two answers. Whatever a business function did in the step must hold for the
rest of it, the paused state included: a call that ran is answered with its outcome when the
model repeats it, never run again, and a call a person approved or denied keeps that
decision when the model repeats it. Calls are known by their tool and canonical arguments
(`call_key`), not by their ids, which the model renews with each answer.

The paused state is JSON (`_run_state`), so the calls that ran go there as JSON too: their
raw arguments, the canonical key they ran under, the exact tool message that answered them
and their output in JSON form. A call read back from a state carries that JSON output (its
exception, if it raised, as a `ToolExecutionError` with the same text).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from toolcall_sdk._errors import ToolExecutionError
from toolcall_sdk._loop_guard import call_key
from toolcall_sdk._results import ToolCall
from toolcall_sdk._tools import Tool

__all__ = ["CallKey", "StepMemory"]

CallKey = tuple[str, str]


@dataclass(slots=True)
class StepMemory:
    """The calls that ran in a step and a person's decisions on its calls, by call key.

    Attributes:
        executed: Every call of the step's rejected answers whose outcome it has (repeats
            answered with an earlier outcome included), in order: they stay in the step's
            result after the answer that is accepted.
        ran: The call whose function ran, for each key: a repeat carries its outcome.
        contents: The exact tool message that answered each call of `executed`, by id.
        decided: True (approved) or False (denied), for each key a person decided.
    """

    executed: list[ToolCall] = field(default_factory=list)
    ran: dict[CallKey, ToolCall] = field(default_factory=dict)
    contents: dict[str, str] = field(default_factory=dict)
    decided: dict[CallKey, bool] = field(default_factory=dict)

    def earlier_run(self, call: ToolCall) -> ToolCall | None:
        """The call of this step whose function already ran with `call`'s key, if any."""
        return self.ran.get(call_key(call))

    def decision(self, call: ToolCall) -> bool | None:
        """A person's decision on a call of this step with `call`'s key, if any."""
        return self.decided.get(call_key(call))

    def remember_decisions(self, calls: Iterable[ToolCall], approvals: Mapping[str, bool]) -> None:
        """Hold the step to a person's decisions on `calls` (by id in `approvals`).

        Two calls of one key decided both ways count as denied: nothing runs that a person
        refused.
        """
        for call in calls:
            if call.id in approvals:
                key = call_key(call)
                self.decided[key] = self.decided.get(key, True) and approvals[call.id]

    def to_json(self) -> dict[str, Any]:
        """The memory as JSON values, for a paused run's state."""
        keys = {id(call): key for key, call in self.ran.items()}
        return {
            "executed": [
                _call_json(call, keys.get(id(call)), self.contents.get(call.id, ""))
                for call in self.executed
            ],
            "decided": [
                {"name": name, "arguments": arguments, "approved": approved}
                for (name, arguments), approved in self.decided.items()
            ],
        }

    @classmethod
    def from_json(cls, data: Any, tools: Mapping[str, Tool[..., Any]]) -> StepMemory:
        """Read back what `to_json` wrote (a state without it remembers nothing).

        Raises:
            TypeError, ValueError, KeyError: Not such a record (the caller says so).
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise TypeError("the step's record must be an object")
        memory = cls()
        for item in _objects(data.get("executed", []), "executed"):
            call, key = _call_from_json(item, tools)
            memory.executed.append(call)
            memory.contents[call.id] = _text(item["content"], "content")
            if key is not None:
                memory.ran.setdefault(key, call)
        for item in _objects(data.get("decided", []), "decided"):
            approved = item["approved"]
            if not isinstance(approved, bool):
                raise TypeError("a decision must be true or false")
            key = (_text(item["name"], "name"), _text(item["arguments"], "arguments"))
            memory.decided[key] = approved
        return memory


def _call_json(call: ToolCall, key: CallKey | None, content: str) -> dict[str, Any]:
    return {
        "id": call.id,
        "name": call.name,
        "arguments": call.raw_arguments,
        # The key the function ran under (None: a repeat answered with another's outcome).
        "key": key[1] if key is not None else None,
        "content": content,
        "output": _jsonable(call.output),
        "error": None if call.error is None else f"{type(call.error).__name__}: {call.error}",
        "reused_from": call.reused_from,
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        try:
            return value.model_dump(mode="json")
        except Exception:  # a model that cannot dump itself: its text stands in
            return str(value)
    try:
        return to_jsonable_python(value, fallback=str)
    except Exception:  # circular or otherwise unserialisable: its text stands in
        return str(value)


def _call_from_json(
    item: Mapping[str, Any], tools: Mapping[str, Tool[..., Any]]
) -> tuple[ToolCall, CallKey | None]:
    name = _text(item["name"], "name")
    tool = tools.get(name)
    if tool is None:
        raise ValueError(f"a call that ran names tool {name!r}, which this client does not have")
    raw = _text(item["arguments"], "arguments")
    key_text = item.get("key")
    canonical = _text(key_text, "key") if key_text is not None else None
    call_id = _text(item["id"], "id")
    error = item.get("error")
    reused = item.get("reused_from")
    call = ToolCall(
        id=call_id,
        name=name,
        arguments=_arguments(tool, raw, canonical),
        raw_arguments=raw,
        output=item.get("output"),
        error=(
            None
            if error is None
            else ToolExecutionError(_text(error, "error"), tool_name=name, call_id=call_id)
        ),
        executed=True,
        reused_from=None if reused is None else _text(reused, "reused_from"),
    )
    return call, (None if canonical is None else (name, canonical))


def _arguments(tool: Tool[..., Any], raw: str, canonical: str | None) -> BaseModel:
    """The arguments of a call that ran, read again with the tool's model.

    They passed validation when the call ran; a validator that needs the run's context may
    refuse them without it, so the values it ran with are taken as they are then.
    """
    model = tool.args_model
    try:
        return model.model_validate_json(raw)
    except Exception:
        values = json.loads(canonical if canonical is not None else raw)
        if not isinstance(values, dict):
            raise ValueError("a call's arguments must be an object") from None
        return model.model_construct(**values)


def _objects(items: Any, what: str) -> Sequence[Mapping[str, Any]]:
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise TypeError(f"{what} must be a list of objects")
    return items


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string (got {type(value).__name__})")
    return value
