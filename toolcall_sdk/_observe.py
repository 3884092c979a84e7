"""What the twins tell hooks, metrics and the traffic recorder about a call.

`Hooks` holds a client's hooks; `CallWatch` follows one call: it builds the events only the
client sees (the call's start and end, each request and answer), tracks the step the
pipeline's events announce, delivers events to the call's receivers, and records the call in
the client's metrics, and in its traffic recording when `record=` asked for one (`_traffic`),
when it ends. The sync twin delivers with `emit`, the async one with `aemit`; the rest is
shared. The traffic entry is the one piece of I/O here, the same in both twins: one short
locked append (`_recorder`), which the async twin makes on its event loop, as a logging
handler would, rather than pay a worker thread on every call.

A hook that raises is logged (logger `toolcall_sdk`, WARNING, with the traceback) and the
call goes on: observing a call never changes it.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from toolcall_sdk._errors import InvalidArgumentError, ToolCallFailed, TransportError
from toolcall_sdk._events import (
    AnswerReceived,
    CallFinished,
    CallHook,
    CallOutcome,
    CallStarted,
    Hook,
    HookEvent,
    Operation,
    RequestSent,
    StepStarted,
)
from toolcall_sdk._metrics import MetricsRecorder
from toolcall_sdk._pipeline import Answer, ChatRequest, request_summary
from toolcall_sdk._results import Attempt, ToolCallResult, Usage
from toolcall_sdk._traffic import TrafficCall

__all__ = ["CallWatch", "Hooks"]

logger = logging.getLogger("toolcall_sdk")

RunAwaitable = Callable[[Awaitable[Any]], Any]


class Hooks:
    """A client's hooks, checked once.

    Raises:
        InvalidArgumentError: An item is neither callable nor has `start_call`.
    """

    __slots__ = ("capture_content", "items")

    def __init__(self, hooks: Iterable[Any]) -> None:
        if isinstance(hooks, (str, bytes)) or not isinstance(hooks, Iterable):
            raise InvalidArgumentError(
                f"hooks must be a list of functions or hook objects (got {type(hooks).__name__})"
            )
        items = tuple(hooks)
        for item in items:
            if not (callable(item) or isinstance(item, CallHook)):
                raise InvalidArgumentError(
                    f"hook {item!r} is neither callable nor has start_call(event): pass a "
                    "function taking an event, or an object such as toolcall_sdk.otel.OtelHook"
                )
        # Whether each one keeps per-call state: decided once, not per call.
        self.items = tuple((item, isinstance(item, CallHook)) for item in items)
        # Message text reaches events only when a hook asks for it.
        self.capture_content = any(getattr(item, "capture_content", False) for item in items)


class CallWatch:
    """One call, followed for hooks and metrics."""

    __slots__ = (
        "_done",
        "_metrics",
        "_pending",
        "_start",
        "_traffic",
        "content",
        "escalated",
        "operation",
        "receivers",
        "step",
    )

    def __init__(
        self,
        metrics: MetricsRecorder,
        hooks: Hooks | None,
        *,
        operation: Operation,
        model: str,
        tools: Iterable[str],
        streamed: bool,
        traffic: TrafficCall | None = None,
    ) -> None:
        self._metrics = metrics
        self._traffic = traffic
        self._start = time.perf_counter()
        self.operation = operation
        self.step = 1
        self.escalated = False  # set when `on_escalate` gave the result
        self._done = False
        self.content = hooks is not None and hooks.capture_content
        # None: no hook, so no event is built. `_pending` gets the CallStarted at `begin`.
        self.receivers: list[Hook] | None = None
        self._pending: tuple[CallStarted, list[Hook]] | None = None
        if hooks is not None and hooks.items:
            started = CallStarted(operation, model, tuple(tools), streamed)
            self.receivers, plain = _open(hooks.items, started)
            self._pending = (started, plain)

    def begin(self, run_awaitable: RunAwaitable) -> None:
        """Give the plain hooks the `CallStarted` (sync twin)."""
        if self._pending is not None:
            started, plain = self._pending
            self._pending = None
            for hook in plain:
                _deliver(hook, started, run_awaitable)

    async def abegin(self) -> None:
        """Give the plain hooks the `CallStarted` (async twin)."""
        if self._pending is not None:
            started, plain = self._pending
            self._pending = None
            for hook in plain:
                await _adeliver(hook, started)

    def emit(self, event: HookEvent | None, run_awaitable: RunAwaitable) -> None:
        """Deliver `event` to the call's receivers (sync twin); None is nothing to say."""
        if event is None:
            return
        if isinstance(event, StepStarted):
            self.step = event.step
        for hook in self.receivers or ():
            _deliver(hook, event, run_awaitable)

    async def aemit(self, event: HookEvent | None) -> None:
        """Deliver `event` to the call's receivers (async twin); None is nothing to say."""
        if event is None:
            return
        if isinstance(event, StepStarted):
            self.step = event.step
        for hook in self.receivers or ():
            await _adeliver(hook, event)

    def request_sent(self, request: ChatRequest, streamed: bool) -> RequestSent:
        """The event for `request`; hooks may add headers to its `headers`."""
        return RequestSent(
            step=self.step,
            attempt=request.attempt,
            request=request_summary(request.stage, request.params),
            streamed=streamed,
            headers={},
            messages=list(request.params.get("messages", ())) if self.content else None,
        )

    def answer_received(self, request: ChatRequest, answer: Answer) -> AnswerReceived:
        """The event for the answer to `request`."""
        return AnswerReceived(
            step=self.step,
            attempt=request.attempt,
            stage=request.stage,
            finish_reason=answer.finish_reason,
            tool_calls=len(answer.message.get("tool_calls") or ()),
            usage=answer.usage,
            latency_s=answer.latency_s,
            message=answer.message if self.content else None,
        )

    def finished(self, result: ToolCallResult) -> CallFinished | None:
        """Record a call that gave a result; its `CallFinished` when hooks listen."""
        outcome: CallOutcome = "escalated" if self.escalated else "ok"
        return self._finish(outcome, result.attempts, result.usage, None, result)

    def failed(self, exc: BaseException) -> CallFinished | None:
        """Record a call that raised (or a stream left early); its `CallFinished`.

        A stream closed after its last event was already recorded: nothing more is said.
        """
        if self._done:
            return None
        outcome: CallOutcome
        if isinstance(exc, GeneratorExit):
            outcome, error_type = "cancelled", None
        else:
            outcome = "failed" if isinstance(exc, ToolCallFailed) else "error"
            error_type = type(exc).__name__
        return self._finish(outcome, _attempts_of(exc), None, error_type, exc)

    def _finish(
        self,
        outcome: CallOutcome,
        attempts: list[Attempt],
        usage: Usage | None,
        error_type: str | None,
        ending: ToolCallResult | BaseException,
    ) -> CallFinished | None:
        self._done = True
        duration = time.perf_counter() - self._start
        self._metrics.record(
            outcome=outcome,
            attempts=attempts,
            usage=usage,
            error_type=error_type,
            duration_s=duration,
        )
        if self.receivers is None and self._traffic is None:
            return None
        if usage is None:
            usage = sum((attempt.usage for attempt in attempts), Usage())
        if self._traffic is not None:
            self._traffic.end(ending, attempts=attempts, usage=usage, latency_s=duration)
        if self.receivers is None:
            return None
        return CallFinished(
            operation=self.operation,
            outcome=outcome,
            error_type=error_type,
            attempts=len(attempts),
            parser_misses=sum(attempt.parser_miss for attempt in attempts),
            repairs=sum(len(attempt.repairs) for attempt in attempts),
            usage=usage,
            duration_s=duration,
        )


def _open(
    hooks: tuple[tuple[Any, bool], ...], started: CallStarted
) -> tuple[list[Hook], list[Hook]]:
    """Each hook's receiver for this call, and the plain hooks (owed the `CallStarted`)."""
    receivers: list[Hook] = []
    plain: list[Hook] = []
    for hook, per_call in hooks:
        if per_call:
            try:
                receiver = hook.start_call(started)
            except Exception:
                _log_failure(hook, started)
                continue
            if receiver is not None:
                receivers.append(receiver)
        else:
            receivers.append(hook)
            plain.append(hook)
    return receivers, plain


def _deliver(hook: Hook, event: HookEvent, run_awaitable: RunAwaitable) -> None:
    try:
        value = hook(event)
        if inspect.isawaitable(value):
            run_awaitable(value)
    except Exception:
        _log_failure(hook, event)


async def _adeliver(hook: Hook, event: HookEvent) -> None:
    try:
        value = hook(event)
        if inspect.isawaitable(value):
            await value
    except Exception:
        _log_failure(hook, event)


def _log_failure(hook: Any, event: HookEvent) -> None:
    name = getattr(hook, "__qualname__", None) or type(hook).__qualname__
    logger.warning(
        "hook %s raised on %s; the call goes on", name, type(event).__name__, exc_info=True
    )


def _attempts_of(exc: BaseException) -> list[Attempt]:
    attempts = getattr(exc, "attempts", None)
    if isinstance(exc, TransportError):  # the run loop put the earlier steps' in already
        return list(exc.attempts)
    steps = getattr(exc, "steps", None) or ()  # the steps of the run before the error
    earlier = [attempt for step in steps for attempt in step.attempts]
    return [*earlier, *attempts] if isinstance(attempts, list) else earlier
