"""What a stage-1 router returns, and what the client asks of a router object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from toolcall_sdk._errors import RouterError
from toolcall_sdk._tools import Tool

__all__ = ["RouteDecision", "Router", "coerce_decision"]


@dataclass(slots=True)
class RouteDecision:
    """A stage-1 decision.

    Attributes:
        call: Whether a tool call is needed.
        tools: Ranked shortlist of tool names for stage 2; empty means "all tools".
        score: Confidence that a call is needed, from 0 to 1.
        router: Which router decided.
        reason: Why, in a few words.
        answer_decides: Leave the decision to the stage-2 answer: the model is offered the
            tools under `tool_choice="auto"` and either calls (validated, and retried forced
            like any call) or answers in text, which ends the step (`LLMRouter`'s default,
            `mode="answer"`). `call` is True with it: the tools go to stage 2.
    """

    call: bool
    tools: list[str] = field(default_factory=list)
    score: float = 1.0
    router: str = ""
    reason: str = ""
    answer_decides: bool = False


@runtime_checkable
class Router(Protocol):
    """What the client needs of a router object."""

    def decide(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool[..., Any]]
    ) -> RouteDecision | bool:
        """Decide whether answering `messages` needs one of `tools`."""
        ...


def coerce_decision(value: Any, router: Any) -> RouteDecision:
    """Accept a bare bool or a `RouteDecision` from a router; anything else is an error."""
    name = getattr(router, "name", type(router).__name__)
    if isinstance(value, RouteDecision):
        if not value.router:
            value.router = name
        return value
    if isinstance(value, bool):
        return RouteDecision(call=value, score=1.0 if value else 0.0, router=name)
    raise RouterError(
        f"router {name!r} returned {type(value).__name__}; expected bool or RouteDecision"
    )
