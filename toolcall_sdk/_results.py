"""What a call returns: validated calls, one record per model answer, and the result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from toolcall_sdk._errors import ToolExecutionError

__all__ = [
    "Attempt",
    "FieldError",
    "PendingCall",
    "Problem",
    "ProblemKind",
    "RequestSummary",
    "SkipReason",
    "Step",
    "ToolCall",
    "ToolCallResult",
    "Usage",
]

ProblemKind = Literal[
    "unknown_tool",  # the model named a tool that is not offered
    "invalid_json",  # the arguments are not a JSON object
    "invalid_arguments",  # the arguments failed Pydantic validation
    "no_tool_call",  # a forced call came back as text
    "tool_retry",  # the business function raised ModelRetry
    "not_executed",  # valid, but sent back because another call of the same answer failed
    "ungrounded",  # valid, but a value is not one the conversation gives (`grounding=`)
    # valid, but the request lists values no call of the answer used (`listed_values=`)
    "missing_calls",
]


# Why a validated call was answered without running its function.
SkipReason = Literal[
    "denied",  # the user refused it at an approval (`resume(..., approvals={id: False})`)
    "repeated",  # the loop guard answered it with the earlier result instead of running it
]


@dataclass(frozen=True, slots=True)
class FieldError:
    """One invalid field of a call's arguments.

    Attributes:
        field: Dotted location, e.g. `customer_id` or `items.0.sku`.
        message: What is wrong, in words a small model can act on.
        value: The value the model sent, if there was one.
    """

    field: str
    message: str
    value: Any = None


@dataclass(frozen=True, slots=True)
class Problem:
    """Why one tool call (or a whole answer) was rejected.

    Attributes:
        kind: The class of failure.
        message: One-line summary.
        tool_name: The tool the model named, if any.
        call_id: The tool-call id the feedback answers, if any.
        raw_arguments: The arguments exactly as the model sent them.
        fields: Field-level errors for `invalid_arguments`, and the values not found in
            the conversation for `ungrounded`.
    """

    kind: ProblemKind
    message: str
    tool_name: str | None = None
    call_id: str | None = None
    raw_arguments: str | None = None
    fields: tuple[FieldError, ...] = ()


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of a request: the server's, or an estimate where its report is missing
    or cannot be true (a negative count, say; see `_usage` and docs/agents.md)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True, slots=True)
class RequestSummary:
    """What was asked of the server, without the messages or any credential.

    Attributes:
        stage: `route`, `call` or `answer`.
        tool_choice: The `tool_choice` sent.
        tools: Names of the tools offered.
        temperature: The temperature sent.
        message_count: How many messages the request carried.
        constrained: The fields whose values the request held to the conversation's
            (grounded decoding), as `tool:/field`; empty when none was.
        samples: How many answers the request asked for (its `n`: `samples=`); the
            attempt holds the one the step went on with.
    """

    stage: str
    tool_choice: Any
    tools: tuple[str, ...]
    temperature: float | None
    message_count: int
    constrained: tuple[str, ...] = ()
    samples: int = 1


@dataclass(slots=True)
class ToolCall:
    """One validated tool call.

    Attributes:
        id: The tool-call id the server gave.
        name: The tool's name.
        arguments: The validated Pydantic model instance.
        raw_arguments: The JSON text the model produced.
        output: What the business function returned (set by `run()`).
        error: The exception the business function raised, if it did (set by `run()`);
            a `ToolTimeoutError` when it ran past its `@tool(timeout=...)`.
        executed: Whether the call has its function's outcome (`output` or `error`).
        reused_from: Set when the model repeated a call that had already run in this
            step: the id of that call, whose outcome this one carries; the function did
            not run again.
        skipped: Why the function did not run although the call was valid: `"denied"` at
            an approval, or `"repeated"` (answered by the loop guard); None otherwise.
    """

    id: str
    name: str
    arguments: BaseModel
    raw_arguments: str
    output: Any = None
    error: BaseException | None = None
    executed: bool = False
    reused_from: str | None = None
    skipped: SkipReason | None = None


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A validated call waiting for a person's approval (`ApprovalRequired.pending`).

    Attributes:
        id: The tool-call id; the key of `resume(..., approvals={id: bool})`.
        name: The tool's name.
        arguments: The validated arguments, as JSON values.
        raw_arguments: The JSON text the model produced.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str


@dataclass(slots=True)
class Attempt:
    """One model answer in stage 2 and what became of it.

    Attributes:
        number: 1 for the first request, 2 for the first retry, ...
        request: What was asked.
        raw_message: The assistant message as the server sent it (a dict).
        finish_reason: The server's finish reason.
        problems: Why the answer (or some of its calls) was rejected; empty when it passed.
        feedback: The messages appended for the next attempt.
        usage: Tokens the server reported for this request.
        latency_s: Seconds the request took, transport retries included.
        parser_miss: The server returned no `tool_calls` but the calls were found in the
            text (content or reasoning) and recovered: the server's --tool-call-parser does
            not match the model's format.
        repairs: Deterministic repairs applied before validation, as `tool:repair`
            (e.g. `create_invoice:scalar_from_string:/amount_vnd`).
    """

    number: int
    request: RequestSummary
    raw_message: dict[str, Any]
    finish_reason: str | None
    problems: list[Problem] = field(default_factory=list)
    feedback: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    parser_miss: bool = False
    repairs: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every call of this answer was accepted."""
        return not self.problems

    @property
    def error_kinds(self) -> list[str]:
        """The kinds of the problems, in order (`["invalid_arguments"]`, ...)."""
        return [problem.kind for problem in self.problems]


@dataclass(slots=True)
class Step:
    """One pass of the pipeline in `run()`: route, then a text answer or validated calls.

    Attributes:
        number: 1 for the first step of the run, 2 for the next, ...
        called: Whether the step called tools (False: it answered in text).
        calls: The step's accepted calls, with `.output`/`.error`, or `.skipped`.
        content: The assistant's text in this step, if any.
        attempts: One record per stage-2 model answer of this step.
        route: The stage-1 decision.
        usage: Tokens of this step's requests, router included.
    """

    number: int
    called: bool
    calls: list[ToolCall] = field(default_factory=list)
    content: str | None = None
    attempts: list[Attempt] = field(default_factory=list)
    route: Any = None
    usage: Usage = field(default_factory=Usage)


@dataclass(slots=True)
class ToolCallResult:
    """The outcome of `call()` or `run()`.

    Attributes:
        called: Whether stage 1 decided a tool was needed (in any step of a `run()`).
        calls: The validated calls (after `run()`: every call of the run whose function
            ran, with `.output`).
        content: The assistant's text when no tool was called (else any text it added);
            after a multi-step `run()`, the final answer.
        attempts: One record per stage-2 model answer (every step's, in order).
        messages: The conversation to continue from: the input, the accepted assistant
            message and, after `run()`, one `tool` message per executed call.
        route: The stage-1 decision (of the last step).
        usage: Tokens over every request made, router included.
        steps: After `run()`, each step in order (one unless `max_steps` > 1).
    """

    called: bool
    calls: list[ToolCall] = field(default_factory=list)
    content: str | None = None
    attempts: list[Attempt] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    route: Any = None
    usage: Usage = field(default_factory=Usage)
    steps: list[Step] = field(default_factory=list)

    @property
    def call(self) -> ToolCall:
        """The single call; raises if there is not exactly one."""
        if len(self.calls) != 1:
            raise ValueError(f"expected exactly one tool call, got {len(self.calls)}")
        return self.calls[0]

    @property
    def outputs(self) -> list[Any]:
        """The outputs of the executed calls, in order."""
        return [c.output for c in self.calls]

    def raise_for_errors(self) -> None:
        """Raise `ToolExecutionError` for the first call whose business function raised."""
        for call in self.calls:
            if call.error is not None:
                raise ToolExecutionError(
                    f"tool {call.name!r} (call {call.id}) raised "
                    f"{type(call.error).__name__}: {call.error}",
                    tool_name=call.name,
                    call_id=call.id,
                ) from call.error
