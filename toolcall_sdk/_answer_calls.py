"""The calls of one stage-2 answer, as the pipeline reads them before validation.

In order: calls the server parsed out of prose that asks, refuses or postpones them go back
to text; calls left in the text (a parser that missed the model's format) are recovered,
under `auto` only those naming an offered tool; near-miss tool names, and names made of one
offered tool's words, are mapped to the offered ones; and every call gets an id no other
call of the step has. Each step is a deterministic repair, recorded as `tool:repair`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolcall_sdk._messages import distinct_call_ids
from toolcall_sdk._recovery import recover_calls, repair_tool_names, withheld_calls

__all__ = ["CallReading", "ReadCalls", "call_name"]


@dataclass(frozen=True, slots=True)
class ReadCalls:
    """An answer's message with its calls read, and the repairs that took."""

    message: dict[str, Any]
    repairs: list[str]
    parser_miss: bool  # the calls were recovered from the text


@dataclass(frozen=True, slots=True)
class CallReading:
    """How one request's answers are read: the same for each of its answers (`samples=`)."""

    offered: Sequence[str]
    schemas: dict[str, Any]  # the offered tools' parameter schemas, by name
    functions: dict[str, Any]  # the offered tools' function definitions, by name
    model: str
    recover: bool
    auto: bool  # the request was `tool_choice: "auto"`
    attempt: int
    taken: list[str]  # the ids of the calls the step already ran

    def read(self, message: dict[str, Any]) -> ReadCalls:
        """The calls of `message`: recovered from its text, renamed, given distinct ids."""
        repairs: list[str] = []
        parser_miss = False
        if self.recover and message.get("tool_calls"):
            # Calls the server parsed out of prose that asks, refuses or postpones them: text.
            message, withheld = withheld_calls(message)
            repairs.extend(withheld)
        if self.recover and not message.get("tool_calls"):
            recovered = recover_calls(
                message, hint=self.model, attempt=self.attempt, tools=self.schemas
            )
            if recovered is not None and self.auto:
                recovered = _offered_only(recovered, self.offered, self.functions)
            if recovered is not None:
                message, read_as = recovered
                parser_miss = True
                repairs.extend(read_as)
        message, renamed = repair_tool_names(
            message, self.offered, self.functions if self.recover else None
        )
        repairs.extend(renamed)
        # Before anything is decided per call: one id, one call (its decision, its message).
        message = distinct_call_ids(message, taken=self.taken)
        return ReadCalls(message, repairs, parser_miss)


def _offered_only(
    recovered: tuple[dict[str, Any], list[str]],
    offered: Sequence[str],
    functions: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, Any], list[str]] | None:
    """Under `auto`, only calls to offered tools are calls: the rest of the text is an answer.

    A small model that may answer in text often writes an object naming a tool it invented
    (`{"name": "Joke", ...}`); read as a call, it would be fed back as an unknown tool and
    retried, where the server's own parser (and the model) meant text. Names the repairs can
    map to an offered tool count as offered, among them a name the call's own words and
    arguments tie to one offered tool (`_meant_tool`).
    """
    message, read_as = recovered
    repaired, renamed = repair_tool_names(message, offered, functions)
    calls = [c for c in repaired.get("tool_calls") or () if call_name(c) in offered]
    if not calls:
        return None
    return {**repaired, "tool_calls": calls}, [*read_as, *renamed]


def call_name(call: Any) -> str:
    """The function name of a raw call object; "" when it has none."""
    function = call.get("function") if isinstance(call, dict) else None
    return str(function.get("name", "")) if isinstance(function, dict) else ""
