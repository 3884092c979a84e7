"""The agent loop, free of I/O: `run(messages, max_steps=N)` for both clients.

`run_flow()` drives one `flow()` per step and passes its effects through. Each step is the
whole pipeline (route, call, validate, retry, execute); the tool results go back as `tool`
messages and the next step starts at stage 1, until a step answers in text. The first step
forces its call; a later one (which follows a step whose calls ran) lets the model answer
(`tool_choice="auto"`), unless the run forces every step (`force="every_step"`). On the
way it enforces the run's bounds: `max_steps`, the usage limits (checked before each
request, so the request that would pass them is never sent) and the loop guard; and it
turns a step paused for approval into `ApprovalRequired`, whose JSON state `resume` picks
up. Any error it raises carries the steps finished so far (`.steps`) and every call of the
run that ran (`.executed`). When hooks listen (or `stream_run` shows the steps) it tells
each step's start and end (`StepStarted`, `StepFinished`).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolcall_sdk._errors import (
    ApprovalRequired,
    LoopDetected,
    MaxStepsExceeded,
    RunStopped,
    ToolCallError,
    UsageLimitExceeded,
)
from toolcall_sdk._events import StepFinished, StepStarted
from toolcall_sdk._loop_guard import LoopGuard
from toolcall_sdk._pipeline import (
    Answer,
    ChatRequest,
    Config,
    Effect,
    LoopStop,
    Notify,
    ResumePoint,
    StepControl,
    StepPaused,
    flow,
)
from toolcall_sdk._results import PendingCall, Step, ToolCall, ToolCallResult, Usage
from toolcall_sdk._run_state import RunLimits, SavedRun, encode_state

__all__ = ["RunLimits", "run_flow"]

Steps = Generator[Effect, Any, ToolCallResult]


@dataclass(slots=True)
class _Loop:
    """Mutable state of one run: its counters, the loop guard and the finished steps."""

    limits: RunLimits
    guard: LoopGuard
    requests: int = 0
    usage: Usage = field(default_factory=Usage)
    steps: list[Step] = field(default_factory=list)

    def bounded(self, steps: Steps) -> Steps:
        """Pass `steps`' effects through, checking the usage limits before each request.

        Like `yield from`, an exception the client throws in (a failed request) goes on
        into the step, which records what had run before re-raising it.
        """
        try:
            effect = next(steps)
            while True:
                if isinstance(effect, ChatRequest):
                    try:
                        self._check_limits(effect)
                    except UsageLimitExceeded as stop:
                        # Into the step, which adds the calls it ran before re-raising it.
                        effect = steps.throw(stop)
                        continue
                try:
                    reply = yield effect
                except GeneratorExit:
                    steps.close()
                    raise
                except BaseException as exc:
                    effect = steps.throw(exc)
                    continue
                if isinstance(effect, ChatRequest):
                    answer: Answer = reply
                    self.requests += 1
                    self.usage += answer.usage
                effect = steps.send(reply)
        except StopIteration as done:
            result: ToolCallResult = done.value
            return result

    def _check_limits(self, request: ChatRequest) -> None:
        limits = self.limits
        if limits.max_requests is not None and self.requests >= limits.max_requests:
            raise self._limit_error(
                "max_requests",
                limits.max_requests,
                f"the run has sent {self.requests} request(s), max_requests="
                f"{limits.max_requests}; the next ({request.stage}) request was not sent",
            )
        if limits.max_tokens_total is None:
            return
        used = self.usage.total_tokens
        planned = request.params.get("max_tokens") or 0
        if used >= limits.max_tokens_total or used + planned > limits.max_tokens_total:
            more = f" plus up to {planned} for its answer (max_tokens)" if planned else ""
            raise self._limit_error(
                "max_tokens_total",
                limits.max_tokens_total,
                f"the run has used {used} tokens{more}, which would pass max_tokens_total="
                f"{limits.max_tokens_total}; the next ({request.stage}) request was not sent",
            )

    def _limit_error(self, limit: str, value: int, detail: str) -> UsageLimitExceeded:
        return UsageLimitExceeded(
            f"{detail}. The steps so far are in .steps; raise {limit} to let the run go on",
            limit=limit,
            value=value,
            requests=self.requests,
            usage=self.usage,
            steps=self.steps,
        )

    def executed(self) -> list[ToolCall]:
        """Every call of the finished steps whose business function ran, in order."""
        return [call for step in self.steps for call in step.calls if call.executed]

    def told(self, error: ToolCallError) -> ToolCallError:
        """`error` with the steps so far (`.steps`).

        An error out of a step already carries `.executed` (and a `TransportError` its
        `.attempts`) over the whole run: `flow()` sets them from `StepControl.earlier`.
        """
        if not isinstance(error, RunStopped):  # a bound's steps are set where it is raised
            error.steps = list(self.steps)
        return error

    def stopped(self, error: RunStopped) -> RunStopped:
        """`error`, raised by the loop itself between steps, with every call that ran."""
        error.executed = self.executed()
        return error

    def result(self, last: ToolCallResult) -> ToolCallResult:
        return ToolCallResult(
            called=any(step.called for step in self.steps),
            calls=self.executed(),
            content=last.content,
            attempts=[attempt for step in self.steps for attempt in step.attempts],
            messages=last.messages,
            route=last.route,
            usage=self.usage,
            steps=list(self.steps),
        )


def run_flow(
    config: Config,
    messages: list[dict[str, Any]],
    *,
    limits: RunLimits,
    deps: Any = None,
    context: Any = None,
    saved: SavedRun | None = None,
    approvals: Mapping[str, bool] | None = None,
) -> Steps:
    """Run steps until a text answer (or one step when `max_steps` is 1).

    Args:
        config: The client's configuration.
        messages: The conversation (ignored when resuming: the saved one is used).
        limits: The run's bounds.
        deps: Handed to tools' `RunContext` parameters and, as a `RunContext`, to validators.
        context: The validation context (else the client's).
        saved: A paused run to continue, with `approvals` deciding its pending calls.
        approvals: `{call_id: bool}` for the paused calls (checked by the caller).

    Raises:
        MaxStepsExceeded: A step numbered `max_steps` (> 1) still called tools.
        UsageLimitExceeded: The next request would pass a usage limit.
        LoopDetected: A call repeated after the loop guard's feedback.
        ApprovalRequired: An answer's calls wait for approval; nothing of it ran.
        ToolCallFailed: A step found no valid call within its retries.
    """
    if saved is None:
        loop = _Loop(limits=limits, guard=LoopGuard(limits.loop_guard))
        history, number, resume = list(messages), 1, None
    else:
        loop = _Loop(
            limits=saved.limits,
            guard=LoopGuard(saved.limits.loop_guard, saved.seen),
            requests=saved.requests,
            usage=saved.usage,
        )
        history, number = list(saved.messages), saved.step
        resume = ResumePoint(
            route=saved.route,
            offered=saved.offered,
            attempt=saved.attempt,
            message=saved.message,
            approvals=dict(approvals or {}),
            memory=saved.memory,
        )
    limits = loop.limits
    while True:
        control = StepControl(
            number=number,
            deps=deps,
            guard=loop.guard,
            resume=resume,
            # Steps after the first follow one whose calls ran: the model may answer now.
            may_answer=number > 1 and limits.force == "first_step",
            earlier=tuple(loop.steps),
        )
        resume = None
        if config.observe:
            yield Notify(StepStarted(number))
        try:
            result = yield from loop.bounded(
                flow(config, history, execute=True, context=context, control=control)
            )
        except StepPaused as paused:
            raise _approval_required(loop, paused, number) from None
        except ToolCallError as exc:
            loop.told(exc)
            raise
        except LoopStop as stop:
            raise loop.stopped(
                LoopDetected(
                    f"the model called {stop.name} with the same arguments {stop.arguments} "
                    f"in {stop.count} steps, after being told it already had the result; the "
                    "run was stopped. The steps so far are in .steps",
                    tool_name=stop.name,
                    arguments=stop.arguments,
                    count=stop.count,
                    steps=loop.steps,
                )
            ) from None
        step = Step(
            number=number,
            called=result.called,
            calls=result.calls,
            content=result.content,
            attempts=result.attempts,
            route=result.route,
            usage=result.usage,
        )
        loop.steps.append(step)
        if config.observe:
            yield Notify(_step_finished(step))
        history = result.messages
        if limits.max_steps == 1 or not result.called:
            return loop.result(result)
        if number >= limits.max_steps:
            forced = (
                " (force='every_step' forces a call at every step: only a router that says "
                "'no tool' ends such a run)"
                if limits.force == "every_step"
                else ""
            )
            raise loop.stopped(
                MaxStepsExceeded(
                    f"the model was still calling tools after max_steps={limits.max_steps} "
                    f"steps (their calls ran; see .steps). Raise max_steps{forced}",
                    max_steps=limits.max_steps,
                    steps=loop.steps,
                )
            )
        number += 1


def _step_finished(step: Step) -> StepFinished:
    return StepFinished(
        step=step.number,
        called=step.called,
        tools=tuple(call.name for call in step.calls),
        attempts=len(step.attempts),
        usage=step.usage,
    )


def _approval_required(loop: _Loop, paused: StepPaused, number: int) -> ApprovalRequired:
    step = Step(
        number=number,
        called=True,
        calls=[*paused.executed, *paused.calls],
        content=paused.message.get("content") or None,
        attempts=paused.attempts,
        route=paused.route,
        usage=paused.usage,
    )
    attempt = paused.attempts[-1]
    saved = SavedRun(
        messages=paused.history,
        step=number,
        limits=loop.limits,
        requests=loop.requests,
        usage=loop.usage,
        seen=loop.guard.entries(),
        route=paused.route,
        offered=tuple(paused.offered),
        attempt=attempt,
        message=paused.message,
        pending=tuple(call.id for call in paused.pending),
        memory=paused.memory,
    )
    pending = [
        PendingCall(
            id=call.id,
            name=call.name,
            arguments=call.arguments.model_dump(mode="json"),
            raw_arguments=call.raw_arguments,
        )
        for call in paused.pending
    ]
    names = ", ".join(f"{call.name} ({call.id})" for call in pending)
    error = ApprovalRequired(
        f"call(s) waiting for approval before they run: {names}. Nothing of this answer "
        "ran. Show .pending to a person, then call "
        "client.resume(err.state, approvals={call_id: True or False}) once",
        pending=pending,
        state=encode_state(saved, [*loop.steps, step]),
        state_id=saved.id,
        steps=[*loop.steps, step],
    )
    error.executed = [*loop.executed(), *paused.executed]
    return error
