"""What a run carries across an approval pause, as JSON (never pickle).

`ApprovalRequired.state` is `encode_state(...)`: a unique id, the conversation, the run's
limits (and `force`) and counters, the loop guard's records, a summary of the finished steps,
the paused answer (its calls with their raw arguments) and what the paused step had run
and decided (`_step_memory`), so that a call that ran is not run again after the pause.
`resume()` reads it back with `decode_state`, which refuses anything it cannot trust with a
`ResumeError`; the id is what the client's resume ledger claims, so each state is resumed
once (`_resume_ledger`). The
checksum catches a state that was edited or cut short; it is not a signature (anyone can
recompute it), so a state handed to an untrusted party must be kept server-side. The paused
calls' arguments are validated again on resume, with the tools' own models.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from toolcall_sdk._errors import ResumeError
from toolcall_sdk._loop_guard import Seen
from toolcall_sdk._results import Attempt, RequestSummary, Step, Usage
from toolcall_sdk._state_shape import check_state_shape
from toolcall_sdk._step_memory import StepMemory
from toolcall_sdk._tools import Tool
from toolcall_sdk.routing import RouteDecision

__all__ = [
    "FORCES",
    "Force",
    "RunLimits",
    "SavedRun",
    "check_approvals",
    "decode_state",
    "encode_state",
]

_KIND = "toolcall_sdk.run_state"
_VERSION = 1

# Which steps of a run force a call at stage 2: only the first (later steps, which follow a
# step whose calls ran, ask with `tool_choice="auto"` so the model may answer), or every one.
Force = Literal["first_step", "every_step"]
FORCES: tuple[Force, ...] = ("first_step", "every_step")


@dataclass(frozen=True, slots=True)
class RunLimits:
    """The bounds of one `run()` and what it forces (see `_options.RunOptions`)."""

    max_steps: int = 1
    max_requests: int | None = None
    max_tokens_total: int | None = None
    loop_guard: int | None = 3
    force: Force = "first_step"


@dataclass(frozen=True, slots=True)
class SavedRun:
    """A run paused before an answer's calls ran."""

    messages: list[dict[str, Any]]  # the conversation before the paused assistant message
    step: int
    limits: RunLimits
    requests: int
    usage: Usage
    seen: list[Seen]
    route: RouteDecision
    offered: tuple[str, ...]
    attempt: Attempt
    message: dict[str, Any]
    pending: tuple[str, ...]  # the ids of the calls waiting for a decision
    # What the paused step had already run and decided: never run again after resume.
    memory: StepMemory = field(default_factory=StepMemory)
    # Two pauses of the same conversation are still two states: each may be resumed once.
    id: str = field(default_factory=lambda: uuid.uuid4().hex)


def encode_state(saved: SavedRun, steps: Sequence[Step]) -> str:
    """The JSON text of `saved`, with a summary of `steps` for whoever reads it."""
    attempt = saved.attempt
    payload: dict[str, Any] = {
        "kind": _KIND,
        "version": _VERSION,
        "id": saved.id,
        "messages": saved.messages,
        "step": saved.step,
        "limits": asdict(saved.limits),
        "requests": saved.requests,
        "usage": asdict(saved.usage),
        "seen": [asdict(item) for item in saved.seen],
        "route": asdict(saved.route),
        "offered": list(saved.offered),
        "attempt": {
            "number": attempt.number,
            "request": asdict(attempt.request),
            "raw_message": attempt.raw_message,
            "finish_reason": attempt.finish_reason,
            "usage": asdict(attempt.usage),
            "latency_s": attempt.latency_s,
            "parser_miss": attempt.parser_miss,
            "repairs": list(attempt.repairs),
        },
        "message": saved.message,
        "pending": list(saved.pending),
        "memory": saved.memory.to_json(),
        "steps": [_step_summary(step) for step in steps],
    }
    payload["checksum"] = _checksum(payload)
    return json.dumps(payload, ensure_ascii=False)


def decode_state(text: str, tools: Mapping[str, Tool[..., Any]]) -> SavedRun:
    """Read a state written by `encode_state`.

    Raises:
        ResumeError: Not such a state, altered since it was written, or naming tools this
            client does not have.
    """
    if not isinstance(text, str):
        raise ResumeError(
            f"state must be the JSON string from ApprovalRequired.state (got {type(text).__name__})"
        )
    try:
        payload = json.loads(text)
    except ValueError as exc:
        raise ResumeError(f"state is not JSON ({exc}); pass ApprovalRequired.state as is") from exc
    except RecursionError:  # nested deeper than the parser's stack: no state is
        raise ResumeError(
            "state is not a paused run (JSON nested too deep to read); pass "
            "ApprovalRequired.state as is"
        ) from None
    if not isinstance(payload, dict) or payload.get("kind") != _KIND:
        raise ResumeError("state is not a paused run; pass ApprovalRequired.state as is")
    if payload.get("version") != _VERSION:
        raise ResumeError(
            f"state has version {payload.get('version')!r}; this toolcall-sdk reads "
            f"version {_VERSION}. Resume it with the version that paused it"
        )
    checksum = payload.pop("checksum", None)
    if not isinstance(checksum, str) or not hmac.compare_digest(checksum, _checksum(payload)):
        raise ResumeError(
            "state was altered after the run paused (its checksum does not match); "
            "resume only the exact text of ApprovalRequired.state"
        )
    wrong = check_state_shape(payload)
    if wrong is not None:
        raise ResumeError(
            f"state has fields of the wrong type or value ({wrong}); nothing ran. Resume "
            "only the exact text of ApprovalRequired.state"
        )
    try:
        # A state written before states had ids is known by its checksum.
        saved = _saved_run(payload, tools, state_id=str(payload.get("id") or checksum))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ResumeError(f"state is incomplete: {type(exc).__name__}: {exc}") from exc
    missing = sorted({*saved.offered} - set(tools))
    if missing:
        raise ResumeError(
            f"the paused run offered tool(s) {missing} that this client does not have; "
            "resume with a client built with the same tools"
        )
    return saved


def check_approvals(saved: SavedRun, approvals: Any) -> dict[str, bool]:
    """The person's decisions, one per pending call and nothing else.

    Raises:
        ResumeError: A decision for a call that is not pending, a pending call without a
            decision, or a decision that is not True or False.
    """
    if not isinstance(approvals, Mapping):
        raise ResumeError(
            "approvals must be a mapping {call_id: True | False} "
            f"(got {type(approvals).__name__})"
        )
    pending = list(saved.pending)
    unknown = sorted(str(key) for key in approvals if key not in pending)
    if unknown:
        raise ResumeError(
            f"approvals name call id(s) {unknown} that are not pending; the pending calls are "
            f"{pending} (ApprovalRequired.pending)"
        )
    missing = [call_id for call_id in pending if call_id not in approvals]
    if missing:
        raise ResumeError(
            f"no decision for pending call(s) {missing}: give each pending call True or False"
        )
    wrong = sorted(str(key) for key, value in approvals.items() if not isinstance(value, bool))
    if wrong:
        raise ResumeError(f"approvals for {wrong} must be True or False")
    return {str(key): bool(value) for key, value in approvals.items()}


def _saved_run(
    payload: dict[str, Any], tools: Mapping[str, Tool[..., Any]], *, state_id: str
) -> SavedRun:
    # Every field's type and bounds were checked (`check_state_shape`): read as they are.
    attempt = payload["attempt"]
    request = attempt["request"]
    return SavedRun(
        messages=[dict(message) for message in payload["messages"]],
        step=payload["step"],
        limits=RunLimits(**payload["limits"]),
        requests=payload["requests"],
        usage=Usage(**payload["usage"]),
        seen=[Seen(**item) for item in payload["seen"]],
        route=RouteDecision(**payload["route"]),
        offered=tuple(str(name) for name in payload["offered"]),
        attempt=Attempt(
            number=attempt["number"],
            request=RequestSummary(
                **{
                    **request,
                    "tools": tuple(request["tools"]),
                    "constrained": tuple(request.get("constrained", ())),
                }
            ),
            raw_message=dict(attempt["raw_message"]),
            finish_reason=attempt["finish_reason"],
            usage=Usage(**attempt["usage"]),
            latency_s=float(attempt["latency_s"]),
            parser_miss=bool(attempt["parser_miss"]),
            repairs=[str(item) for item in attempt["repairs"]],
        ),
        message=dict(payload["message"]),
        pending=tuple(str(call_id) for call_id in payload["pending"]),
        memory=StepMemory.from_json(payload.get("memory"), tools),
        id=state_id,
    )


def _step_summary(step: Step) -> dict[str, Any]:
    return {
        "number": step.number,
        "called": step.called,
        "content": step.content,
        "usage": asdict(step.usage),
        "calls": [
            {
                "id": call.id,
                "name": call.name,
                "arguments": call.raw_arguments,
                "executed": call.executed,
                "skipped": call.skipped,
            }
            for call in step.calls
        ],
    }


def _checksum(payload: Mapping[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
