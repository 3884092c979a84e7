"""The shape a paused run's state must have, checked before anything of it is used.

The checksum of a state (`_run_state`) catches an accidental edit, not a deliberate one:
anyone can recompute it. A state whose fields were changed to other types and checksummed
again must be refused as a whole, with a `ResumeError`, before the approved calls run;
otherwise a count that became a string fails only after them, inside the loop. So every
field the resumed run reads is checked here, strictly (no coercion: `"3"` is not 3), with
the bounds a real state keeps (counts are not negative, numbers are at least 1).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

__all__ = ["check_state_shape"]

_Count = Annotated[int, Field(ge=0)]
_Number = Annotated[int, Field(ge=1)]


class _UsageJson(TypedDict):
    prompt_tokens: _Count
    completion_tokens: _Count


class _LimitsJson(TypedDict):
    max_steps: _Number
    max_requests: _Count | None
    max_tokens_total: _Count | None
    loop_guard: _Number | None
    force: Literal["first_step", "every_step"]


class _SeenJson(TypedDict):
    name: str
    arguments: str
    count: _Number
    result: str


class _RouteJson(TypedDict):
    call: bool
    tools: list[str]
    score: float
    router: str
    reason: str
    answer_decides: NotRequired[bool]


class _RequestJson(TypedDict):
    stage: str
    tool_choice: Any
    tools: list[str]
    temperature: float | None
    message_count: _Count
    constrained: NotRequired[list[str]]
    samples: NotRequired[_Count]


class _AttemptJson(TypedDict):
    number: _Number
    request: _RequestJson
    raw_message: dict[str, Any]
    finish_reason: str | None
    usage: _UsageJson
    latency_s: Annotated[float, Field(ge=0)]
    parser_miss: bool
    repairs: list[str]


class _MessageJson(TypedDict):
    role: str


class _FunctionJson(TypedDict):
    name: str
    arguments: str | dict[str, Any]


class _ToolCallJson(TypedDict):
    id: str
    function: _FunctionJson


class _AnswerJson(TypedDict):
    role: NotRequired[str]
    content: NotRequired[str | None]
    tool_calls: list[_ToolCallJson]


class _StateJson(TypedDict):
    messages: list[_MessageJson]
    step: _Number
    limits: _LimitsJson
    requests: _Count
    usage: _UsageJson
    seen: list[_SeenJson]
    route: _RouteJson
    offered: list[str]
    attempt: _AttemptJson
    message: _AnswerJson
    pending: list[str]
    memory: NotRequired[dict[str, Any] | None]


_CHECK: TypeAdapter[_StateJson] = TypeAdapter(_StateJson)


def check_state_shape(payload: dict[str, Any]) -> str | None:
    """What is wrong with the shape of a decoded state, or None when nothing is.

    The message names the first few fields at fault (`limits.max_steps: Input should be
    a valid integer`), for the `ResumeError` that refuses the state.
    """
    try:
        _CHECK.validate_python(payload, strict=True)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        shown = "; ".join(
            f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
            for error in errors[:3]
        )
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        return f"{shown}{more}"
    return None
