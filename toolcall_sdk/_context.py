"""`RunContext`: the caller's per-run dependencies, handed to tools and validators."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

__all__ = ["RunContext", "is_run_context"]

DepsT = TypeVar("DepsT")


# Not slotted: `RunContext[Deps](...)` sets `__orig_class__`, which a frozen slotted
# dataclass refuses with a TypeError on Python 3.11.
@dataclass(frozen=True)
class RunContext(Generic[DepsT]):
    """What `run(messages, deps=...)` hands a tool and its validators.

    A tool parameter annotated `RunContext` (or `RunContext[MyDeps]`) receives it; that
    parameter is left out of the arguments model, so the model never sees it. When a run
    has `deps`, Pydantic validators get this object as `info.context` as well (the client's
    `validation_context`, or `context=`, is then at `info.context.validation_context`).

    Example:
        ```python
        @tool
        def list_orders(ctx: RunContext[Deps], status: str) -> list[str]:
            return ctx.deps.db.orders(user=ctx.deps.user_id, status=status)

        client.run("my open orders?", deps=Deps(db=db, user_id="u-7"), max_steps=4)
        ```

    Attributes:
        deps: The object given as `run(..., deps=...)` (None when none was given).
        validation_context: The run's validation context (`context=` or the client's).
        step: The number of the step running the tool (0 outside `run()`).
        tool_name: The tool being run (None while validating).
        call_id: The tool-call id being run (None while validating).
    """

    deps: DepsT
    validation_context: Any = None
    step: int = 0
    tool_name: str | None = None
    call_id: str | None = None


def is_run_context(annotation: Any) -> bool:
    """Whether a parameter annotation asks for the `RunContext` (bare, generic, Annotated)."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation is RunContext or typing.get_origin(annotation) is RunContext
