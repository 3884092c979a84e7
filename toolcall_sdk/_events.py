"""The events `client.stream()` yields, for UIs that show a call as it is being made.

One `stream()` gives, in order: for each model answer, its `ContentDelta`s and, per call,
a `ToolCallStarted` and `ToolArgumentsDelta`s as the server streams them; then either an
`AttemptFailed` (a retry follows unless it was the last attempt) or one `ToolCallValidated`
per accepted call; and last a `StreamCompleted` carrying the same `ToolCallResult` that
`call()` returns. When every attempt fails, `ToolCallFailed` is raised after the last
`AttemptFailed`, exactly as `call()` raises it.

The deltas are a live preview of what the model writes; `ToolCallValidated` and the result are
what was accepted. Each event names its `attempt` (1 for the first stage-2 request, 0 for a
plain answer), so a UI can drop what it showed for an attempt that then failed.

`stream_run()` (and `stream_resume()`) stream a whole agent run: for each step a
`StepStarted`, that step's events as above, a `ToolExecuted` per business function that ran
and a `StepFinished`; last one `StreamCompleted` with the run's result (`RunEvent`).

Hooks (`ToolCallClient(..., hooks=[...])`) receive a wider vocabulary, `HookEvent`: every
stage of a call, from `CallStarted` to `CallFinished`. Where a stage is also a `stream()`
event they share the class (`AttemptFailed`, `ToolCallValidated`); the text deltas are for
UIs only and never reach hooks. The hook-only events carry names, counts, kinds and timings:
no message text, and no argument values except through the `ToolCall` that `ToolExecuted`
shares with the result. `RequestSent.messages` and `AnswerReceived.message` are filled only
when a hook asks for content (`capture_content = True` on the hook object).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from toolcall_sdk._results import Attempt, RequestSummary, ToolCall, ToolCallResult, Usage

__all__ = [
    "AnswerReceived",
    "ArgumentsRepaired",
    "AttemptFailed",
    "CallFinished",
    "CallHook",
    "CallStarted",
    "CallsRecovered",
    "ContentDelta",
    "Escalated",
    "FeedbackSent",
    "Hook",
    "HookEvent",
    "RequestSent",
    "RouteDecided",
    "RunEvent",
    "StepFinished",
    "StepStarted",
    "StreamCompleted",
    "ToolArgumentsDelta",
    "ToolCallEvent",
    "ToolCallStarted",
    "ToolCallValidated",
    "ToolExecuted",
]


@dataclass(frozen=True, slots=True)
class ContentDelta:
    """A piece of the answer's text.

    Call markup that a server's parser left in the text (`<tool_call>`, `[TOOL_CALLS]`,
    `<function=`) is never sent as text, not even a partial tag: it comes as call events.

    Attributes:
        text: The new text.
        attempt: The stage-2 attempt it belongs to; 0 for a plain (no tool) answer.
    """

    text: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model began a call; its name is known.

    Attributes:
        index: The call's position in the answer, from 0.
        id: The tool-call id (the server's, or the id given to a call recovered from text).
        name: The tool name as the model wrote it (not yet checked against the tools).
        attempt: The stage-2 attempt it belongs to.
    """

    index: int
    id: str
    name: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ToolArgumentsDelta:
    """A piece of call `index`'s argument text, as the model writes it.

    Attributes:
        index: The call it belongs to (see `ToolCallStarted.index`).
        text: The new argument text; the pieces of a call join to its argument JSON.
        attempt: The stage-2 attempt it belongs to.
    """

    index: int
    text: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ToolCallValidated:
    """A call passed validation; it is in the final result.

    Attributes:
        call: The validated call (`.name`, `.arguments` as the Pydantic model, `.id`).
        attempt: The attempt whose answer was accepted.
    """

    call: ToolCall
    attempt: int


@dataclass(frozen=True, slots=True)
class AttemptFailed:
    """An answer was rejected.

    Attributes:
        attempt: The record: `.problems` says why, `.feedback` what is sent back.
        retrying: True when another request follows; False on the last attempt, after which
            `ToolCallFailed` is raised (or `on_escalate`'s result completes the stream).
    """

    attempt: Attempt
    retrying: bool


@dataclass(frozen=True, slots=True)
class StreamCompleted:
    """The last event: the result, equal to what `call()` returns for the same answers.

    Attributes:
        result: The `ToolCallResult`.
    """

    result: ToolCallResult


ToolCallEvent = (
    ContentDelta
    | ToolCallStarted
    | ToolArgumentsDelta
    | ToolCallValidated
    | AttemptFailed
    | StreamCompleted
)
"""Any event `stream()` yields."""


# What a call was: `client.call()`, `run()`, `resume()`, `stream()`, `stream_run()` or
# `stream_resume()`.
Operation = Literal["call", "run", "resume", "stream", "stream_run", "stream_resume"]
# How a call ended: a result; a result from `on_escalate`; `ToolCallFailed`; another error
# (a transport error, a run bound, an approval pause); a stream left before its end.
CallOutcome = Literal["ok", "escalated", "failed", "error", "cancelled"]
# What became of a business function: returned, raised, ran past its timeout, or raised
# `ModelRetry` (its message goes back to the model).
ToolStatus = Literal["ok", "error", "timeout", "retry"]


@dataclass(frozen=True, slots=True)
class CallStarted:
    """A call began (the first event a hook receives for it).

    Attributes:
        operation: `"call"`, `"run"`, `"resume"`, `"stream"`, `"stream_run"` or
            `"stream_resume"`.
        model: The model name sent with every request.
        tools: The client's tool names.
        streamed: Whether the answers are read as streams.
    """

    operation: Operation
    model: str
    tools: tuple[str, ...]
    streamed: bool


@dataclass(frozen=True, slots=True)
class StepStarted:
    """The agent loop (`run()`, `resume()`) began a step.

    Attributes:
        step: 1 for the first step of the run, 2 for the next, ...
    """

    step: int


@dataclass(frozen=True, slots=True)
class RouteDecided:
    """Stage 1 decided.

    Attributes:
        step: The step it belongs to (1 outside the agent loop).
        call: Whether a tool call is needed.
        score: The router's confidence that a call is needed, from 0 to 1.
        router: Which router decided.
        tools: The shortlist for stage 2 (empty: every tool).
        reason: The router's reason, in a few words.
    """

    step: int
    call: bool
    score: float
    router: str
    tools: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class RequestSent:
    """A chat request is about to be sent (transport retries of it send the same request).

    Attributes:
        step: The step it belongs to.
        attempt: The stage-2 attempt number; 0 for the route and answer stages.
        request: What is asked: stage, `tool_choice`, tool names, temperature, message count.
        streamed: Whether the answer is read as a stream.
        headers: Extra HTTP headers for this request: a hook may add to this dict (the
            OpenTelemetry hook adds W3C `traceparent`). The stage header cannot be replaced.
        messages: The messages sent, only when a hook asks for content; else None.
    """

    step: int
    attempt: int
    request: RequestSummary
    streamed: bool
    headers: dict[str, str]
    messages: list[dict[str, Any]] | None = None

    @property
    def stage(self) -> str:
        """`"route"`, `"call"` or `"answer"`."""
        return self.request.stage


@dataclass(frozen=True, slots=True)
class AnswerReceived:
    """The server answered a chat request.

    Attributes:
        step: The step it belongs to.
        attempt: The stage-2 attempt number; 0 for the route and answer stages.
        stage: `"route"`, `"call"` or `"answer"`.
        finish_reason: The server's finish reason.
        tool_calls: How many calls the server's parser returned (0 when they are left in
            the text: see `CallsRecovered`).
        usage: Tokens the server reported.
        latency_s: Seconds the request took, transport retries included.
        message: The assistant message, only when a hook asks for content; else None.
    """

    step: int
    attempt: int
    stage: str
    finish_reason: str | None
    tool_calls: int
    usage: Usage
    latency_s: float
    message: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class CallsRecovered:
    """The server returned no `tool_calls`, and the calls were read from the text instead.

    The server's `--tool-call-parser` does not match the model (`Attempt.parser_miss`).

    Attributes:
        step: The step it belongs to.
        attempt: The stage-2 attempt.
        tools: The names of the recovered calls, in order.
    """

    step: int
    attempt: int
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ArgumentsRepaired:
    """Deterministic repairs were applied to an answer's arguments before validation.

    Attributes:
        step: The step it belongs to.
        attempt: The stage-2 attempt.
        repairs: What was repaired, as `tool:repair:/path` (`Attempt.repairs`): names and
            JSON paths, never values.
    """

    step: int
    attempt: int
    repairs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FeedbackSent:
    """A rejected answer's feedback goes into the next attempt's request.

    Attributes:
        step: The step it belongs to.
        attempt: The rejected attempt (the next request is attempt + 1).
        messages: How many feedback messages were added to the conversation.
        problem_kinds: Why the answer was rejected (`Problem.kind` values, in order).
    """

    step: int
    attempt: int
    messages: int
    problem_kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ToolExecuted:
    """A business function ran (once; a repeated call reusing its outcome sends no event).

    Attributes:
        step: The step it belongs to.
        attempt: The stage-2 attempt whose answer it came from.
        call: The call (`.name`, `.id`, `.arguments`, `.output`, `.error`), the same object
            the result carries.
        status: `"ok"`, `"error"` (it raised), `"timeout"` or `"retry"` (`ModelRetry`).
        started_at: When it started, in seconds since the epoch (`time.time()`).
        duration_s: Seconds it ran (for a timeout: how long the client waited).
    """

    step: int
    attempt: int
    call: ToolCall
    status: ToolStatus
    started_at: float
    duration_s: float

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.call.name

    @property
    def call_id(self) -> str:
        """The tool-call id."""
        return self.call.id


@dataclass(frozen=True, slots=True)
class Escalated:
    """No valid call within the retries: `ToolCallFailed` follows (or `on_escalate` runs).

    Attributes:
        step: The step it belongs to.
        attempts: How many stage-2 attempts the step made.
        problem_kinds: The last attempt's problem kinds, in order.
    """

    step: int
    attempts: int
    problem_kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StepFinished:
    """The agent loop finished a step (its calls ran, or it answered in text).

    Attributes:
        step: The step number.
        called: Whether the step called tools.
        tools: The names of its calls, in order.
        attempts: Its stage-2 attempts.
        usage: Tokens of its requests, router included.
    """

    step: int
    called: bool
    tools: tuple[str, ...]
    attempts: int
    usage: Usage


@dataclass(frozen=True, slots=True)
class CallFinished:
    """The call ended (the last event a hook receives for it).

    Attributes:
        operation: As in `CallStarted`.
        outcome: `"ok"`, `"escalated"` (`on_escalate` gave the result), `"failed"`
            (`ToolCallFailed`), `"error"` (another exception) or `"cancelled"` (a stream left
            before its end).
        error_type: The exception's class name when one ended the call.
        attempts: The stage-2 attempts made (every step's, when known).
        parser_misses: Attempts whose calls were recovered from the text.
        repairs: Argument repairs made.
        usage: Tokens over the call (from the attempts alone when it raised).
        duration_s: Seconds from the start of the call.
    """

    operation: Operation
    outcome: CallOutcome
    error_type: str | None
    attempts: int
    parser_misses: int
    repairs: int
    usage: Usage
    duration_s: float


HookEvent = (
    CallStarted
    | StepStarted
    | RouteDecided
    | RequestSent
    | AnswerReceived
    | CallsRecovered
    | ArgumentsRepaired
    | AttemptFailed
    | FeedbackSent
    | ToolExecuted
    | ToolCallValidated
    | Escalated
    | StepFinished
    | CallFinished
)
"""Any event a hook receives."""

RunEvent = ToolCallEvent | StepStarted | ToolExecuted | StepFinished
"""Any event `stream_run()` and `stream_resume()` yield: each step's events between its
`StepStarted` and `StepFinished`, a `ToolExecuted` per business function that ran, and last
one `StreamCompleted` carrying the run's result."""

# The events of `stream()` that the pipeline decides (the rest come from the answer's text).
STREAMED_DECISIONS = (AttemptFailed, ToolCallValidated)
# And those of `stream_run()`: the steps and the functions that ran, too.
STREAMED_RUN_DECISIONS = (*STREAMED_DECISIONS, StepStarted, ToolExecuted, StepFinished)

Hook = Callable[[HookEvent], Any]
"""A function given every event of every call: sync, or async (its awaitable is awaited)."""


@runtime_checkable
class CallHook(Protocol):
    """A hook that keeps state per call (as `toolcall_sdk.otel.OtelHook` does).

    `start_call` is called at the start of each call, in the caller's thread, and returns
    the function that receives the rest of that call's events (or None to skip the call).
    A hook object may set `capture_content = True` to receive message text.
    """

    def start_call(self, event: CallStarted) -> Hook | None:
        """Begin a call; return its event receiver."""
        ...
