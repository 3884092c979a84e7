"""The pipeline, free of I/O, shared by the sync and async clients.

`flow()` is a generator. It yields effects (a chat request to send, a router to consult,
the business functions of one answer to run) and receives their outcome; the sync and
async clients only differ in how they carry effects out. Everything that decides —
routing, the request parameters, validation, feedback, the retry bound, what may run
(the loop guard, approvals) — lives here once. One `flow()` is one step; the agent loop
(`_run_loop.run_flow`) drives one per step, and tells a step after the first that the model
may answer in text (`StepControl.may_answer`: stage 2 under `tool_choice="auto"`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, assert_never, get_args

from pydantic import BaseModel

from toolcall_sdk._answer_calls import CallReading, call_name
from toolcall_sdk._call_tags import CallTagMode, TagSupport, tagged_request
from toolcall_sdk._completion import Candidate, Shape, complete
from toolcall_sdk._context import RunContext
from toolcall_sdk._demonstrations import ExampleBank, with_examples
from toolcall_sdk._errors import (
    DeadlineExceededError,
    NoAnswerError,
    ToolCallError,
    ToolCallFailed,
    ToolTimeoutError,
    TransportError,
)
from toolcall_sdk._events import (
    ArgumentsRepaired,
    AttemptFailed,
    CallsRecovered,
    Escalated,
    FeedbackSent,
    HookEvent,
    RouteDecided,
    ToolCallValidated,
    ToolExecuted,
    ToolStatus,
)
from toolcall_sdk._feedback import (
    denied_text,
    feedback_text,
    repeated_call_text,
)
from toolcall_sdk._listed_values import ListedValues, request_text
from toolcall_sdk._loop_guard import LoopGuard, call_key
from toolcall_sdk._messages import (
    assistant_history_entry,
    tool_output_content,
)
from toolcall_sdk._next_calls import continued_request
from toolcall_sdk._recovery import recover_calls
from toolcall_sdk._results import (
    Attempt,
    Problem,
    RequestSummary,
    SkipReason,
    Step,
    ToolCall,
    ToolCallResult,
    Usage,
)
from toolcall_sdk._sampling import Sampled, agreed, sampled
from toolcall_sdk._step_memory import StepMemory
from toolcall_sdk._tools import Tool
from toolcall_sdk._validation import check_answer
from toolcall_sdk._wire import STAGE_ANSWER, STAGE_CALL, STAGE_ROUTE
from toolcall_sdk.grounding import FULL_POLICY, GroundingPolicy
from toolcall_sdk.grounding._check import Grounder
from toolcall_sdk.grounding._decoding import DecodingMode, grounded_request
from toolcall_sdk.grounding._implied import implied_policy
from toolcall_sdk.grounding._policy import resolve_grounding
from toolcall_sdk.grounding._slips import slipped
from toolcall_sdk.grounding._unstated import OptionalValues, left_out_unstated
from toolcall_sdk.parsing import detect_format
from toolcall_sdk.routing import (
    AskModel,
    Consult,
    RouteDecision,
    coerce_decision,
    resolve_router,
    route_flow,
)

if TYPE_CHECKING:
    from toolcall_sdk._options import ClientOptions

__all__ = [
    "TOOL_CHOICES",
    "Answer",
    "ChatRequest",
    "Config",
    "Effect",
    "Execute",
    "ExecuteMany",
    "LoopStop",
    "Notify",
    "Outcome",
    "ResumePoint",
    "RouteQuery",
    "StepControl",
    "StepPaused",
    "ToolChoice",
    "flow",
    "request_summary",
]

ToolChoice = Literal["required", "auto"]
"""Stage 2's `tool_choice`: "required" forces a call (named when one tool is left); "auto" is
for servers without `required` and lets a text answer come back as such."""
# The values of `ToolChoice`, for checks and messages: read from the type, never restated.
TOOL_CHOICES: tuple[ToolChoice, ...] = get_args(ToolChoice)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the pipeline needs to know about a client, fixed at construction."""

    model: str
    tools: Mapping[str, Tool[..., Any]]
    schemas: Mapping[str, dict[str, Any]]  # the `tools` entry of each tool, built once
    router: Any
    max_retries: int
    temperature: float | None
    max_tokens: int | None
    parallel_tool_calls: bool | None
    extra_body: Mapping[str, Any] | None
    validation_context: Any
    recover: bool = True  # read calls back from the text when the server's parser missed them
    tool_choice: ToolChoice = "required"
    # Hooks listen: yield the events only they read (a client without hooks builds none).
    observe: bool = False
    # What the grounding check looks at (None: no check), and the check of these tools.
    grounding: GroundingPolicy | None = None
    grounder: Grounder | None = None
    # When a forced request's values are held to the conversation's (grounding/_decoding).
    grounded_decoding: DecodingMode = "off"
    # What an `auto` answer's call is held to once it starts (_call_tags), and whether the
    # server takes the tag (learnt once per client).
    call_tags: CallTagMode = "off"
    tag_support: TagSupport = field(default_factory=TagSupport)
    # Whether an answer that leaves out values the request lists is asked to complete.
    listed_values: ListedValues = "continue_listed"
    # Whether an optional free-text value nobody stated is left out (grounding/_unstated).
    optional_values: OptionalValues = "stated"
    samples: int = 1  # answers per stage-2 request, one kept by vote (_sampling)
    examples: ExampleBank | None = None  # demonstrations of stage 2 (_demonstrations)

    @classmethod
    def from_options(
        cls,
        options: ClientOptions,
        *,
        model: str,
        tools: Mapping[str, Tool[..., Any]],
        schemas: Mapping[str, dict[str, Any]],
        observe: bool = False,
    ) -> Config:
        """The pipeline's part of a client's checked options (`_options.resolve_options`).

        Each field named like a `ClientOptions` key is taken from it (`router` and
        `grounding` in their resolved form), so an option the pipeline reads is declared
        once: in `ClientOptions`, with its default in `DEFAULTS`, and here as a field of
        the same name. The rest is what the client built from the options.
        """
        given: Mapping[str, Any] = options
        built: dict[str, Any] = {
            "model": model,
            "tools": tools,  # the `tools` option, made into `Tool`s by name
            "schemas": schemas,
            "observe": observe,
            "grounder": Grounder(tools, schemas),
        }
        taken = {
            item.name: _RESOLVE.get(item.name, _as_given)(given[item.name])
            for item in fields(cls)
            if item.name in given and item.name not in built
        }
        return cls(**built, **taken)


def _as_given(value: Any) -> Any:
    return value


# The options stored in another form than the one given.
_RESOLVE: dict[str, Callable[[Any], Any]] = {
    "router": resolve_router,
    "grounding": resolve_grounding,
}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """Effect: send one chat-completions request and return an `Answer`."""

    stage: str  # one of toolcall_sdk._wire's STAGE_* values
    params: dict[str, Any]
    attempt: int = 0  # the stage-2 attempt number; 0 for the route and answer stages


@dataclass(frozen=True, slots=True)
class RouteQuery:
    """Effect: ask a router object; return its raw answer (bool or RouteDecision)."""

    router: Any
    messages: list[dict[str, Any]]
    tools: list[Tool[..., Any]]


@dataclass(frozen=True, slots=True)
class Execute:
    """One business function to run, with its validated arguments (an item of `ExecuteMany`)."""

    tool: Tool[..., Any]
    arguments: BaseModel
    call_id: str = ""
    context: RunContext[Any] | None = None  # for a tool with a RunContext parameter


@dataclass(frozen=True, slots=True)
class ExecuteMany:
    """Effect: run the calls of one answer, each exactly once; return their `Outcome`s.

    The reply is a list in call order. The sync client runs the calls in order and stops
    at the first `ModelRetry` (the calls after it get None: not run); the async client
    runs them concurrently, so every call runs.
    """

    calls: tuple[Execute, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    """What the server answered to a `ChatRequest`.

    `others` are the choices after the first where the request asked for several (its
    `n`, `samples=`), each with the request's latency and no usage of its own.
    """

    message: dict[str, Any]
    finish_reason: str | None
    usage: Usage
    latency_s: float
    others: tuple[Answer, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What running a business function gave: an output, an error, a retry request, or
    nothing in time (`timed_out`: the client stopped waiting at the tool's `timeout`)."""

    output: Any = None
    error: BaseException | None = None
    retry_message: str | None = None
    timed_out: bool = False
    started_at: float = 0.0  # time.time() when it started, for hooks
    duration_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Notify:
    """Effect: tell the caller what was decided (for `stream()` and hooks); return None."""

    event: HookEvent


Effect = ChatRequest | RouteQuery | ExecuteMany | Notify


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """A step paused for approval, taken up again: its answer and the person's decisions."""

    route: RouteDecision
    offered: tuple[str, ...]
    attempt: Attempt  # the stage-2 attempt whose answer paused
    message: dict[str, Any]  # its assistant message (calls recovered from text included)
    approvals: Mapping[str, bool]
    # What the step had run and decided before it paused (a repeat is not run again).
    memory: StepMemory = field(default_factory=StepMemory)


@dataclass(slots=True)
class StepControl:
    """What the agent loop hands one step of `run()`; the defaults are a lone step."""

    number: int = 1
    deps: Any = None
    guard: LoopGuard | None = None
    resume: ResumePoint | None = None
    # Stage 2 lets the model answer in text (`tool_choice="auto"`): a step after one whose
    # calls ran. A call it makes is recovered, validated and fed back as under a forced call.
    may_answer: bool = False
    # The run's finished steps: an error raised out of this step carries their attempts
    # (a `TransportError`) and the calls that ran in them, as well as this step's.
    earlier: Sequence[Step] = ()


class StepPaused(Exception):
    """Signal to the run loop (never to users): an answer's calls need approval; none ran."""

    def __init__(
        self,
        *,
        history: list[dict[str, Any]],
        attempts: list[Attempt],
        usage: Usage,
        route: RouteDecision,
        offered: list[str],
        message: dict[str, Any],
        calls: list[ToolCall],
        pending: list[ToolCall],
        memory: StepMemory,
    ) -> None:
        super().__init__("paused for approval")
        self.history = history  # without the paused assistant message
        self.attempts = attempts
        self.usage = usage
        self.route = route
        self.offered = offered
        self.message = message
        self.calls = calls
        self.pending = pending
        # What the step ran (in earlier attempts, before a ModelRetry) and decided; it goes
        # into the paused state, so that nothing of it runs again after `resume()`.
        self.memory = memory
        self.executed = memory.executed


class LoopStop(Exception):
    """Signal to the run loop (never to users): a call made again after the guard's feedback."""

    def __init__(self, name: str, arguments: str, count: int) -> None:
        super().__init__(name)
        self.name = name
        self.arguments = arguments
        self.count = count


@dataclass(slots=True)
class _Run:
    """Mutable state of one `call()`/`run()` step."""

    history: list[dict[str, Any]]
    step: int = 1
    observe: bool = False  # hooks listen (Config.observe)
    # The user's request this step answers, where `listed_values` reads it ("" otherwise,
    # and where the conversation goes on after it: `_listed_values.request_text`).
    request: str = ""
    usage: Usage = field(default_factory=Usage)
    attempts: list[Attempt] = field(default_factory=list)
    # The tool message of each call answered without running (denied, repeated), by id.
    notes: dict[str, str] = field(default_factory=dict)
    # The calls that ran in this step and a person's decisions, by tool and canonical
    # arguments: a repeat reuses the outcome or the decision (across steps the loop guard
    # decides). Carried through an approval pause.
    memory: StepMemory = field(default_factory=StepMemory)

    @property
    def executed(self) -> list[ToolCall]:
        """The calls of this step's rejected answers that ran (or reused an outcome)."""
        return self.memory.executed


def flow(
    config: Config,
    messages: list[dict[str, Any]],
    *,
    execute: bool,
    context: Any = None,
    control: StepControl | None = None,
) -> Generator[Effect, Any, ToolCallResult]:
    """Route, call, validate, give feedback, retry; optionally execute.

    Args:
        config: The client's configuration.
        messages: The conversation so far.
        execute: Run the validated calls (`run()`), or only return them (`call()`).
        context: The validation context of this call (else the client's).
        control: Set by the agent loop: the step number, deps, the loop guard, and the
            answer to take up again after an approval.

    Raises:
        ToolCallFailed: No valid call within `max_retries + 1` stage-2 requests.
        StepPaused: (to the run loop) an answer needs approval before it runs.
        LoopStop: (to the run loop) the loop guard stopped a repeated call.
    """
    control = control if control is not None else StepControl()
    state = _Run(
        history=list(messages),
        step=control.number,
        observe=config.observe,
        request=request_text(messages) if config.listed_values != "off" else "",
    )
    try:
        return (yield from _step_flow(config, state, execute, context, control))
    except ToolCallError as exc:
        # Raised here, or thrown in by the client (a failed request, a router that raised,
        # a usage limit): say what had happened before. This is the one place that sets
        # `.attempts` of a `TransportError` and `.executed` of an error out of a step, for
        # `call()` and for every step of `run()` alike (the run loop adds only `.steps`).
        _tell_what_happened(exc, control.earlier, state)
        raise


def _tell_what_happened(exc: ToolCallError, earlier: Sequence[Step], state: _Run) -> None:
    if isinstance(exc, TransportError):
        exc.attempts = [*(a for step in earlier for a in step.attempts), *state.attempts]
    ran_before = (call for step in earlier for call in step.calls if call.executed)
    exc.executed = [*ran_before, *state.executed]


def _checked(
    config: Config,
    state: _Run,
    message: dict[str, Any],
    offered_tools: Mapping[str, Tool[..., Any]],
    validation_context: Any,
    attempt: Attempt,
    repairs: list[str],
) -> tuple[list[ToolCall], list[Problem]]:
    """An answer's calls and problems: the schema and the rules, then grounding."""
    schemas = {name: config.schemas[name]["function"]["parameters"] for name in offered_tools}
    if config.optional_values == "stated":
        # An optional value nobody stated, where its tool documents leaving it out.
        sources = (config.grounding or FULL_POLICY).sources
        plans = _grounder(config).plan
        message, left = left_out_unstated(
            message, offered_tools, schemas, plans, state.history, sources
        )
        repairs += left
    calls, problems = check_answer(
        message,
        offered_tools,
        context=validation_context,
        schemas=schemas,
        finish_reason=attempt.finish_reason,
        repairs=repairs,
    )
    # With the check off, a retry that swaps the rejected call's tool, a call that copies its
    # tool's example id or slips on a stated value must still carry stated values (`_implied`).
    functions = {name: config.schemas[name]["function"] for name in offered_tools}
    policy = config.grounding or implied_policy(calls, state.attempts, functions, state.history)
    if policy is not None and calls:
        calls, problems = _grounded(config, policy, message, calls, problems, state)
    return calls, problems


@dataclass(frozen=True, slots=True)
class _Offer:
    """What a step offers the model: the route's decision and the shortlisted tools."""

    decision: RouteDecision
    names: list[str]
    tools: Mapping[str, Tool[..., Any]]
    first: int  # the first attempt's number (a resumed step goes on from its paused one)


def _step_flow(
    config: Config, state: _Run, execute: bool, context: Any, control: StepControl
) -> Generator[Effect, Any, ToolCallResult]:
    """One step: route (or resume), then per attempt validate, screen, pause for approval,
    execute, record for the loop guard, and either accept the answer or feed back.

    The ordering rules, each enforced in the piece named:
    - `_offer`: a resumed step skips stage 1 and its first attempt is the paused answer
      (`_resumed`), checked again before any new request is sent.
    - `_validate` before anything runs: no business function of an answer with a problem
      (schema, rules, grounding) runs, and none of its calls is screened.
    - `_screen` before `_pause_for_approval`: a call the loop guard answers from memory or a
      person denied never waits for approval; a call repeated after the guard's feedback
      stops the run before anything of the answer runs.
    - `_pause_for_approval` before `_execute`: while one call of an answer waits, none of it
      runs (the pause is all or nothing per answer).
    - `_execute` runs each call at most once per step (`_Run.memory`), calls of earlier
      attempts and of the answers before an approval pause included;
      `_record_for_loop_guard` after it, so the guard holds results.
    - `_feedback` only for a rejected answer, after it in the history; the last rejected
      attempt escalates (`ToolCallFailed`) with no business function run for it.
    """
    start = yield from _offer(config, state, control)
    if isinstance(start, ToolCallResult):
        return start  # stage 1 said no tool
    offer = start
    base_context = context if context is not None else config.validation_context
    validation_context = _validation_context(base_context, control)
    resume = control.resume
    # Where the answer decides (a later step of a run, or an `answer_decides` router) the
    # first attempt may answer in text.
    answer_decides = control.may_answer or offer.decision.answer_decides
    retry_may_answer = False
    # A resumed step takes up its paused answer whatever this client's `max_retries` (a
    # person approved its calls); the retries after it are bounded by `max_retries`.
    last = max(config.max_retries + 1, offer.first)
    number = offer.first - 1
    while number < last:
        number += 1
        if resume is not None:
            candidate = _resumed(state, resume)
            resume = None
        else:
            # Once the model has called, its retries are forced like any other call's:
            # feedback cannot be dodged with a text reply, and the forced retry is decoded
            # under the schema's grammar, where an `auto` one repeated the same unknown
            # field (the 0.5B demo model sent `get_order(customer_id=...)` three times
            # over). The exception: the only problem was values the user never gave
            # (`_may_retreat`).
            may_answer = answer_decides and (number == offer.first or retry_may_answer)
            candidate = yield from _ask(
                config, state, offer, number, may_answer, validation_context
            )
            # A later step's text is its answer even to a forced retry (a server that does
            # not honour the forcing): the run has what it ran, and text may end it.
            if (
                (may_answer or control.may_answer)
                and not candidate.message.get("tool_calls")
                and not _cut_off_call(candidate)
            ):
                return (
                    yield from _answered(
                        config, state, offer.decision, candidate.message, execute, control
                    )
                )
        calls, problems = yield from _validate(
            config, state, candidate, offer, validation_context, number
        )
        if not problems and state.request and not candidate.approvals and number < last:
            port = _Port(config, state, offer, validation_context)
            candidate, calls = yield from complete(config.listed_values, port, candidate, calls)
            number = state.attempts[-1].number  # the next attempt goes on after the ask
        if not problems and execute and control.may_answer and _only_repeats(calls, control):
            return (yield from _answer_now(config, state, offer.decision, calls, control))
        if not problems and execute:
            skipped = _screen(calls, control.guard, candidate.approvals, state.memory)
            _pause_for_approval(state, offer, candidate, calls, skipped)
            _skip(calls, skipped, state.notes)
            contexts = _ToolContexts(control, base_context)
            problems = yield from _execute(calls, state, offer.tools, contexts, number)
            _record_for_loop_guard(control.guard, calls, state.notes)
        if not problems:
            return (
                yield from _accepted(
                    state, offer, candidate, calls, execute, candidate.attempt.number
                )
            )
        # With grounded decoding the retry of an answer whose values nobody gave is forced,
        # so that its values are held to the stated ones (under auto nothing holds them).
        retry_may_answer = (
            answer_decides
            and _may_retreat(problems, state.history)
            and config.grounded_decoding == "off"
        )
        yield from _feedback(config, state, offer, candidate, calls, problems, retry_may_answer)

    yield from _told_escalation(config, state)
    raise ToolCallFailed(
        _failure_message(state.attempts),
        attempts=state.attempts,
        executed=state.executed,
    )


def _offer(
    config: Config, state: _Run, control: StepControl
) -> Generator[Effect, Any, _Offer | ToolCallResult]:
    """Stage 1 (the router) and the shortlist; or, resuming, what the paused step offered.

    Returns the plain answer when the router decides no tool is needed.
    """
    resume = control.resume
    if resume is not None:
        names = list(resume.offered)
        tools = {name: config.tools[name] for name in names}
        return _Offer(resume.route, names, tools, first=resume.attempt.number)
    decision = yield from _route(config, state, list(config.tools.values()))
    yield from _told_route(config, state.step, decision)
    if not decision.call:
        return (yield from _plain_answer(config, state, decision))
    names = _shortlist(config, decision)
    return _Offer(decision, names, {name: config.tools[name] for name in names}, first=1)


def _resumed(state: _Run, resume: ResumePoint) -> Candidate:
    """The paused answer, as this step's first attempt (validated again: deterministic),
    with what the step had run and decided before it paused."""
    # Read from the state for this resume alone: the step goes on with it.
    state.memory = resume.memory
    state.notes.update(resume.memory.contents)
    state.attempts.append(resume.attempt)
    state.usage += resume.attempt.usage
    return Candidate(resume.attempt, resume.message, [], resume.approvals)


def _ask(
    config: Config,
    state: _Run,
    offer: _Offer,
    number: int,
    may_answer: bool,
    validation_context: Any,
) -> Generator[Effect, Any, Candidate]:
    def check(answer: Answer, message: dict[str, Any], repairs: list[str]) -> Sampled:
        attempt = replace(state.attempts[-1], finish_reason=answer.finish_reason)
        cut_off = _cut_off_call(Candidate(attempt, message, [], {}))
        if may_answer and not message.get("tool_calls") and not cut_off:
            return Sampled((), (), text=True)  # text where text may answer
        calls, problems = _checked(
            config, state, message, offer.tools, validation_context, attempt, repairs
        )
        return Sampled(calls, problems)

    attempt, message = yield from _ask_for_calls(
        config,
        state,
        offer.names,
        number,
        may_answer=may_answer,
        check=check if config.samples > 1 else None,
    )
    return Candidate(attempt, message, attempt.repairs, {})


_Check = Callable[[Answer, dict[str, Any], list[str]], Sampled]


def _validate(
    config: Config,
    state: _Run,
    candidate: Candidate,
    offer: _Offer,
    validation_context: Any,
    number: int,
) -> Generator[Effect, Any, tuple[list[ToolCall], list[Problem]]]:
    """The answer's calls and problems: the schema and the rules, then grounding."""
    calls, problems = _checked(
        config,
        state,
        candidate.message,
        offer.tools,
        validation_context,
        candidate.attempt,
        candidate.repairs,
    )
    yield from _told_repairs(config, state.step, number, candidate.repairs)
    return calls, problems


def _pause_for_approval(
    state: _Run,
    offer: _Offer,
    candidate: Candidate,
    calls: list[ToolCall],
    skipped: Mapping[str, tuple[SkipReason, str]],
) -> None:
    """Stop the step, nothing of the answer run, while a call waits for a person.

    Raises:
        StepPaused: A call of a `requires_approval` tool has no decision yet.
    """
    memory = state.memory
    # A call equal to one that ran in this step is answered with that outcome, and one equal
    # to a call a person decided is held to that decision: neither waits again.
    pending = [
        call
        for call in calls
        if call.id not in skipped
        and offer.tools[call.name].requires_approval
        and call.id not in candidate.approvals
        and memory.earlier_run(call) is None
        and memory.decision(call) is None
    ]
    if pending:
        memory.contents.update(_contents(memory.executed, state.notes))
        raise StepPaused(
            history=list(state.history),
            attempts=state.attempts,
            usage=state.usage,
            route=offer.decision,
            offered=offer.names,
            message=candidate.message,
            calls=calls,
            pending=pending,
            memory=memory,
        )


def _record_for_loop_guard(
    guard: LoopGuard | None, calls: Sequence[ToolCall], notes: Mapping[str, str]
) -> None:
    """Tell the run's loop guard what each call gave, for the steps after this one."""
    if guard is not None:
        guard.record(calls, _contents(calls, notes))


def _accepted(
    state: _Run,
    offer: _Offer,
    candidate: Candidate,
    calls: list[ToolCall],
    execute: bool,
    number: int,
) -> Generator[Effect, Any, ToolCallResult]:
    """The step's result: the answer, its tool messages (when run) and its calls."""
    state.history.append(assistant_history_entry(candidate.message))
    if execute:
        state.history.extend(_tool_messages(calls, state.notes))
    for call in calls:
        yield Notify(ToolCallValidated(call, number))
    return ToolCallResult(
        called=True,
        calls=[*state.executed, *calls] if execute else calls,
        content=candidate.message.get("content") or None,
        attempts=state.attempts,
        messages=state.history,
        route=offer.decision,
        usage=state.usage,
    )


@dataclass(frozen=True, slots=True)
class _Port:
    """The pipeline's side of `_completion.Stage2`, for one step."""

    config: Config
    state: _Run
    offer: _Offer
    validation_context: Any

    @property
    def request(self) -> str:
        return self.state.request

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.state.history

    def ask(
        self, names: Sequence[str], number: int, *, shape: Shape | None, parallel: bool
    ) -> Generator[Effect, Any, Candidate | None]:
        config = replace(self.config, parallel_tool_calls=True) if parallel else self.config
        try:
            attempt, message = yield from _ask_for_calls(
                config, self.state, names, number, may_answer=False, shape=shape
            )
        except DeadlineExceededError:
            raise  # the whole call's time is spent
        except TransportError:
            return None  # retried and failed: an optional request, the valid answer stands
        return Candidate(attempt, message, attempt.repairs, {})

    @property
    def model(self) -> str:
        return self.config.model

    def continued(self, text: str, number: int) -> Generator[Effect, Any, Candidate | None]:
        params = _call_params(self.config, self.state.history, self.offer.names, may_answer=True)
        params = continued_request(params, text)
        try:
            answer: Answer = yield ChatRequest(STAGE_CALL, params, attempt=number)
        except DeadlineExceededError:
            raise
        except TransportError:
            return None
        self.state.usage += answer.usage
        attempt = Attempt(
            number=number,
            request=request_summary(STAGE_CALL, params),
            raw_message=answer.message,
            finish_reason=answer.finish_reason,
            usage=answer.usage,
            latency_s=answer.latency_s,
        )
        self.state.attempts.append(attempt)
        return Candidate(attempt, dict(answer.message), [], {})

    def validate(
        self, candidate: Candidate, names: Sequence[str], number: int
    ) -> Generator[Effect, Any, tuple[list[ToolCall], list[Problem]]]:
        tools = {name: self.offer.tools[name] for name in names}
        offer = replace(self.offer, names=list(names), tools=tools)
        return (
            yield from _validate(
                self.config, self.state, candidate, offer, self.validation_context, number
            )
        )

    def send_back(
        self, candidate: Candidate, calls: list[ToolCall], problems: list[Problem]
    ) -> None:
        _sent_back(self.state, self.offer, candidate, calls, problems, may_answer=False)

    def taken_ids(self) -> list[str]:
        return [call.id for call in self.state.executed]


def _may_retreat(problems: Sequence[Problem], messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether, where the answer decides, the retry of a rejected answer may answer in text
    instead of calling.

    Where the answer decides whether a tool is needed (an `answer_decides` router, or a later
    step), a call whose only fault is values the conversation never gave is as likely a call
    that should not have been made (BFCL's irrelevance cases: the 0.5B demo model invents
    `weight=70, height=1.75` for a BMI tool nobody asked about) as a mistyped value: the
    feedback says both, and the model chooses. A value one slip from a stated one
    (`_slips`) was meant: that retry is forced, and held to the stated value.
    """
    ungrounded = bool(problems) and all(p.kind == "ungrounded" for p in problems)
    return ungrounded and not slipped(problems, messages)


def _feedback(
    config: Config,
    state: _Run,
    offer: _Offer,
    candidate: Candidate,
    calls: list[ToolCall],
    problems: list[Problem],
    may_answer: bool,
) -> Generator[Effect, Any, None]:
    """Record why the answer was rejected and put it, then the feedback, in the history."""
    _sent_back(state, offer, candidate, calls, problems, may_answer=may_answer)
    yield from _rejected(config, state.step, candidate.attempt)


def _sent_back(
    state: _Run,
    offer: _Offer,
    candidate: Candidate,
    calls: list[ToolCall],
    problems: list[Problem],
    *,
    may_answer: bool,
) -> None:
    """Record the answer's problems and put it, then the feedback on them, in the history."""
    attempt = candidate.attempt
    attempt.problems = problems
    attempt.feedback = _feedback_messages(
        candidate.message, calls, problems, offer.names, state.notes, may_answer=may_answer
    )
    state.history.append(assistant_history_entry(candidate.message))
    state.history.extend(attempt.feedback)


def _grounded(
    config: Config,
    policy: GroundingPolicy,
    message: Mapping[str, Any],
    calls: list[ToolCall],
    problems: list[Problem],
    state: _Run,
) -> tuple[list[ToolCall], list[Problem]]:
    """The schema-valid calls whose values the conversation gives, and every problem of the
    answer (the `ungrounded` ones added, all in call order)."""
    grounder = _grounder(config)
    # The sources are the messages this answer replied to, as sent (feedback included: the
    # check itself leaves the SDK's notes out).
    grounded, ungrounded = grounder.check(calls, state.history, policy)
    if not ungrounded:
        return grounded, problems
    order = {str(c.get("id")): i for i, c in enumerate(message.get("tool_calls") or [])}
    merged = sorted([*problems, *ungrounded], key=lambda p: order.get(str(p.call_id), len(order)))
    return grounded, merged


# The `_told_*` functions return the Notify effects to yield (`yield from` them): none when
# no hook listens, so a client without hooks builds no event.


def _told_repairs(
    config: Config, step: int, number: int, repairs: Sequence[str]
) -> tuple[Notify, ...]:
    if not (config.observe and repairs):
        return ()
    return (Notify(ArgumentsRepaired(step, number, tuple(repairs))),)


def _rejected(config: Config, step: int, attempt: Attempt) -> tuple[Notify, ...]:
    """Say an answer was rejected and, when another attempt follows, that feedback goes."""
    retrying = attempt.number <= config.max_retries
    failed = Notify(AttemptFailed(attempt, retrying=retrying))
    if not (config.observe and retrying):
        return (failed,)
    kinds = tuple(problem.kind for problem in attempt.problems)
    return failed, Notify(FeedbackSent(step, attempt.number, len(attempt.feedback), kinds))


def _told_escalation(config: Config, state: _Run) -> tuple[Notify, ...]:
    if not config.observe:
        return ()
    last = state.attempts[-1].problems if state.attempts else []
    kinds = tuple(problem.kind for problem in last)
    return (Notify(Escalated(state.step, len(state.attempts), kinds)),)


def _ask_for_calls(
    config: Config,
    state: _Run,
    offered: Sequence[str],
    number: int,
    *,
    may_answer: bool,
    shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    check: _Check | None = None,
) -> Generator[Effect, Any, tuple[Attempt, dict[str, Any]]]:
    """One stage-2 request; the attempt record and the answer (calls read from text too).

    `shape` changes the request as built, before grounded decoding (`listed_values`).
    With `check` (an answer as the vote sees it) the request asks for the client's
    `samples` answers and goes on with the one they agree on (`_sampling`).
    """
    params = _call_params(config, state.history, offered, may_answer=may_answer)
    if shape is not None:
        params = shape(params)
    hold = partial(
        grounded_request,
        grounder=_grounder(config),
        policy=config.grounding or FULL_POLICY,
        attempts=state.attempts,
    )
    params, held = hold(params, mode=config.grounded_decoding)
    params, tag_held = tagged_request(
        params,
        mode=config.call_tags,
        support=config.tag_support,
        hold=partial(hold, mode="forced"),
    )
    # After grounded decoding, never in `state.history`: examples are no grounding source.
    params = with_examples(params, config.examples, config.tools, first_step=state.step == 1)
    if check is not None:
        params = sampled(params, config.samples)
    answer: Answer = yield ChatRequest(STAGE_CALL, params, attempt=number)
    state.usage += answer.usage
    attempt = Attempt(
        number=number,
        request=replace(request_summary(STAGE_CALL, params), constrained=(*held, *tag_held)),
        raw_message=answer.message,
        finish_reason=answer.finish_reason,
        usage=answer.usage,
        latency_s=answer.latency_s,
    )
    state.attempts.append(attempt)
    reading = CallReading(
        offered=offered,
        schemas={name: config.schemas[name]["function"]["parameters"] for name in offered},
        functions={name: config.schemas[name]["function"] for name in offered},
        model=config.model,
        recover=config.recover,
        auto=params.get("tool_choice") == "auto",
        attempt=number,
        taken=[call.id for call in state.executed],
    )
    read = reading.read(answer.message)
    if answer.others and check is not None:
        # Each answer read and checked as if it were the only one (`_sampling`).
        answers = [answer, *answer.others]
        reads = [read, *(reading.read(other.message) for other in answer.others)]
        checked = [
            check(a, r.message, list(r.repairs)) for a, r in zip(answers, reads, strict=True)
        ]
        chosen = agreed(checked)
        read = reads[chosen]
        attempt.raw_message = answers[chosen].message
        attempt.finish_reason = answers[chosen].finish_reason
    attempt.repairs.extend(read.repairs)
    attempt.parser_miss = read.parser_miss
    if read.parser_miss and config.observe:
        names = tuple(call_name(call) for call in read.message.get("tool_calls") or ())
        yield Notify(CallsRecovered(state.step, number, names))
    return attempt, read.message


def _answered(
    config: Config,
    state: _Run,
    decision: RouteDecision,
    message: dict[str, Any],
    execute: bool,
    control: StepControl,
) -> Generator[Effect, Any, ToolCallResult]:
    """The step's text answer, where the model was free to give one."""
    if not _has_text(message):
        # Nothing to end the step with: asked again without tools (`_plain_answer` raises
        # `NoAnswerError` when that is empty too).
        return (yield from _plain_answer(config, state, decision))
    if not control.may_answer and _writes_a_call(config, message):
        # On a first step, text that is only a call to a tool nobody offered (a small
        # model's `{"name": "tell_joke", ...}`) is no answer: ask again without tools.
        return (yield from _plain_answer(config, state, decision))
    return _text_answer(state, decision, message, execute)


# Sent (as the user's turn, which every chat template accepts mid-conversation) when a step
# that may answer only repeats calls whose results the conversation already holds: the
# 0.5B demo model, asked "weather in Hanoi?", calls get_weather(Hanoi) again after every
# result, and without tools writes the call as its answer; told this, it answers.
ANSWER_NOW_TEXT = (
    "The tool results above already have what was asked. Answer in plain text now, "
    "without calling a tool."
)


# Sent (as the user's turn) when an answer where only text can be used had none: empty, or
# a structured call although no tool was offered (`router="never"`).
ANSWER_IN_TEXT = "Answer in plain text now, without calling a tool."


def _only_repeats(calls: Sequence[ToolCall], control: StepControl) -> bool:
    """Whether every call of an answer ran already in an earlier step of this run."""
    guard = control.guard
    return guard is not None and bool(calls) and all(guard.seen(c) for c in calls)


def _answer_now(
    config: Config,
    state: _Run,
    decision: RouteDecision,
    calls: Sequence[ToolCall],
    control: StepControl,
) -> Generator[Effect, Any, ToolCallResult]:
    """A later step that only repeats earlier calls: nothing runs again; the model is asked
    to answer from the results it has, without tools.

    Raises:
        LoopStop: It answers with no text again (a call where none can be made): the
            model repeats the call whatever it is told, and the run stops (`LoopDetected`).
    """
    state.history.append({"role": "user", "content": ANSWER_NOW_TEXT})
    try:
        return (yield from _plain_answer(config, state, decision))
    except NoAnswerError:
        name, arguments = call_key(calls[0])
        seen = control.guard.verdict(calls[0])[1] if control.guard is not None else None
        raise LoopStop(name, arguments, (seen.count if seen is not None else 0) + 1) from None


def _writes_a_call(config: Config, message: Mapping[str, Any]) -> bool:
    """Whether a text answer reads as tool calls (to tools nobody offered, by then)."""
    return bool(message.get("content")) and (
        recover_calls(dict(message), hint=config.model, attempt=0) is not None
    )


def _told_route(config: Config, step: int, decision: RouteDecision) -> tuple[Notify, ...]:
    if not config.observe:
        return ()
    told = RouteDecided(
        step=step,
        call=decision.call,
        score=decision.score,
        router=decision.router,
        tools=tuple(decision.tools),
        reason=decision.reason,
    )
    return (Notify(told),)


def _validation_context(base: Any, control: StepControl) -> Any:
    # With deps, validators get the RunContext (the plain context inside it); without,
    # exactly what they got before deps existed.
    if control.deps is None:
        return base
    return RunContext(deps=control.deps, validation_context=base, step=control.number)


class _ToolContexts:
    """Builds the RunContext a tool with a RunContext parameter receives."""

    def __init__(self, control: StepControl, base: Any) -> None:
        self._control = control
        self._base = base

    def for_call(self, tool: Tool[..., Any], call: ToolCall) -> RunContext[Any] | None:
        if not tool.wants_context:
            return None
        return RunContext(
            deps=self._control.deps,
            validation_context=self._base,
            step=self._control.number,
            tool_name=call.name,
            call_id=call.id,
        )


def _screen(
    calls: Sequence[ToolCall],
    guard: LoopGuard | None,
    approvals: Mapping[str, bool],
    memory: StepMemory,
) -> dict[str, tuple[SkipReason, str]]:
    """Which calls are answered without running, and with what (the loop guard, denials).

    A person's decisions hold for the rest of the step: a call equal to a denied one (in
    this answer or a later one, after a `ModelRetry`) is denied too.

    Raises:
        LoopStop: A call made again after the loop guard's feedback.
    """
    memory.remember_decisions(calls, approvals)
    skipped: dict[str, tuple[SkipReason, str]] = {}
    for call in calls:
        if guard is not None:
            verdict, seen = guard.verdict(call)
            if verdict == "stop":
                name, arguments = call_key(call)
                raise LoopStop(name, arguments, (seen.count if seen else 0) + 1)
            if verdict == "repeat" and seen is not None:
                text = repeated_call_text(call.name, seen.arguments, seen.count, seen.result)
                skipped[call.id] = ("repeated", text)
                continue
        if memory.decision(call) is False:  # a person said no: whatever the tool says now
            skipped[call.id] = ("denied", denied_text(call.name))
    return skipped


def _skip(
    calls: Sequence[ToolCall],
    skipped: Mapping[str, tuple[SkipReason, str]],
    notes: dict[str, str],
) -> None:
    for call in calls:
        if call.id in skipped:
            call.skipped, notes[call.id] = skipped[call.id]


def _route(
    config: Config, state: _Run, tools: list[Tool[..., Any]]
) -> Generator[Effect, Any, RouteDecision]:
    """Drive the router's flow: its model questions go to this client's server."""
    if not tools:
        return RouteDecision(call=False, score=0.0, router="none", reason="no tools offered")
    history = list(state.history)
    steps = route_flow(config.router, history, tools)
    try:
        effect = next(steps)
        while True:
            reply: Any
            match effect:
                case AskModel(params=params):
                    answer: Answer = yield ChatRequest(
                        STAGE_ROUTE, {**params, "model": config.model}
                    )
                    state.usage += answer.usage
                    reply = answer.message
                case Consult(router=router):
                    reply = yield RouteQuery(router, history, tools)
                case _:
                    assert_never(effect)
            effect = steps.send(reply)
    except StopIteration as done:
        return coerce_decision(done.value, config.router)


def _plain_answer(
    config: Config, state: _Run, decision: RouteDecision
) -> Generator[Effect, Any, ToolCallResult]:
    # Sent without `tools` (and so without `tool_choice`, which vLLM refuses alone): with
    # the tools in the prompt, `tool_choice="none"` or not, a small model writes a call as
    # its text answer (Qwen2.5-Coder-0.5B asked the capital of France answers with a
    # get_weather call). Earlier calls and tool messages stay in the history.
    answer = yield from _ask_plain(config, state)
    if _writes_a_call(config, answer.message) and _told_results(state.history):
        # After tool results, a small model without tools often writes the call again as
        # its answer (the 0.5B does after every result); told the results are there, it
        # answers. Once: a second such answer is returned as it is.
        state.history.append({"role": "user", "content": ANSWER_NOW_TEXT})
        answer = yield from _ask_plain(config, state)
    elif not _has_text(answer.message) and not _ends_with_note(state.history):
        # Empty, or only a structured call where no tool can be called: no answer. Asked
        # once more, told to answer in text; a step never ends in nothing.
        note = ANSWER_NOW_TEXT if _told_results(state.history) else ANSWER_IN_TEXT
        state.history.append({"role": "user", "content": note})
        answer = yield from _ask_plain(config, state)
    if not _has_text(answer.message):
        raise NoAnswerError(
            _no_answer_text(answer), message=answer.message, finish_reason=answer.finish_reason
        )
    content = answer.message.get("content")
    state.history.append({"role": "assistant", "content": content})
    return ToolCallResult(
        called=False,
        content=content,
        # The stage-2 attempts of the step, when it got that far (none after a router "no").
        attempts=state.attempts,
        messages=state.history,
        route=decision,
        usage=state.usage,
    )


def _grounder(config: Config) -> Grounder:
    """The grounding plans of the client's tools (built here for a `Config` made without)."""
    return config.grounder or Grounder(config.tools, config.schemas)


def _has_text(message: Mapping[str, Any]) -> bool:
    """Whether an answer has text to end a step with (more than whitespace)."""
    content = message.get("content")
    return isinstance(content, str) and bool(content.strip())


def _no_answer_text(answer: Answer) -> str:
    calls = answer.message.get("tool_calls") or []
    what = (
        f"only tool call(s) ({', '.join(call_name(c) or '?' for c in calls)}) where no tool "
        "could be called"
        if calls
        else "no text"
    )
    cut = " (cut off at max_tokens)" if answer.finish_reason == "length" else ""
    return (
        f"the model answered with {what}{cut}, where a text answer was needed, twice; "
        "nothing was returned as an answer. The answer is in .message; check the chat "
        "template and max_tokens"
    )


def _cut_off_call(candidate: Candidate) -> bool:
    """Whether a text answer is a call cut off at `max_tokens` (`<tool_call>\\n{"name": ...`
    with no end): never an answer, not even half a tag, but a call to ask for again."""
    if candidate.attempt.finish_reason != "length":
        return False
    content = candidate.message.get("content")
    return isinstance(content, str) and detect_format(content) is not None


def _ask_plain(config: Config, state: _Run) -> Generator[Effect, Any, Answer]:
    params: dict[str, Any] = {"model": config.model, "messages": list(state.history)}
    _common_params(config, params)
    answer: Answer = yield ChatRequest(STAGE_ANSWER, params)
    state.usage += answer.usage
    return answer


def _ends_with_note(history: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the last message is the SDK's note asking for a text answer."""
    return bool(history) and history[-1].get("content") in (ANSWER_NOW_TEXT, ANSWER_IN_TEXT)


def _told_results(history: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the conversation holds tool results, and no answer-now note after them."""
    roles = [m.get("role") for m in history]
    if "tool" not in roles:
        return False
    last_tool = len(roles) - 1 - roles[::-1].index("tool")
    return all(m.get("content") != ANSWER_NOW_TEXT for m in history[last_tool:])


def _text_answer(
    state: _Run, decision: RouteDecision, message: Mapping[str, Any], execute: bool
) -> ToolCallResult:
    """A step that may answer did: its text ends the run (calls that ran before stay)."""
    content = message.get("content") or None
    state.history.append({"role": "assistant", "content": content})
    return ToolCallResult(
        called=False,
        calls=list(state.executed) if execute else [],
        content=content,
        attempts=state.attempts,
        messages=state.history,
        route=decision,
        usage=state.usage,
    )


def _shortlist(config: Config, decision: RouteDecision) -> list[str]:
    known = [name for name in dict.fromkeys(decision.tools) if name in config.tools]
    return known or list(config.tools)


def _call_params(
    config: Config, history: list[dict[str, Any]], offered: Sequence[str], *, may_answer: bool
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "model": config.model,
        "messages": list(history),
        "tools": [config.schemas[name] for name in offered],
    }
    if config.tool_choice == "auto" or may_answer:
        params["tool_choice"] = "auto"
    elif len(offered) == 1 and config.parallel_tool_calls is not True:
        # vLLM decodes a named choice as exactly one call; a caller who asked for parallel
        # calls keeps `required`, whose grammar allows several calls of the one offered tool.
        params["tool_choice"] = {"type": "function", "function": {"name": offered[0]}}
    else:
        params["tool_choice"] = "required"
    if config.parallel_tool_calls is not None:
        params["parallel_tool_calls"] = config.parallel_tool_calls
    _common_params(config, params)
    return params


def _common_params(config: Config, params: dict[str, Any]) -> None:
    if config.temperature is not None:
        params["temperature"] = config.temperature
    if config.max_tokens is not None:
        params["max_tokens"] = config.max_tokens
    if config.extra_body:
        params["extra_body"] = dict(config.extra_body)


def request_summary(stage: str, params: Mapping[str, Any]) -> RequestSummary:
    """What a request asks, without its messages (for `Attempt.request` and hooks)."""
    return RequestSummary(
        stage=stage,
        tool_choice=params.get("tool_choice"),
        tools=tuple(t["function"]["name"] for t in params.get("tools", ())),
        temperature=params.get("temperature"),
        message_count=len(params.get("messages", ())),
        samples=params.get("n") or 1,
    )


def _execute(
    calls: list[ToolCall],
    state: _Run,
    tools: Mapping[str, Tool[..., Any]],
    contexts: _ToolContexts,
    attempt: int,
) -> Generator[Effect, Any, list[Problem]]:
    """Run each call of the answer once (those not skipped); a ModelRetry sends it back.

    A call equal (tool and canonical arguments) to one that already ran in this step, or
    to an earlier call of this answer, is not run again: it carries that call's outcome.
    When hooks listen, each function that ran is announced (with `attempt`, its answer).
    """
    runnable: list[ToolCall] = []
    first_of: dict[tuple[str, str], ToolCall] = {}
    repeats: list[tuple[ToolCall, ToolCall]] = []
    for call in calls:
        if call.skipped is not None:
            continue
        key = call_key(call)
        earlier = state.memory.ran.get(key) or first_of.get(key)
        if earlier is not None:
            repeats.append((call, earlier))
            continue
        first_of[key] = call
        runnable.append(call)
    outcomes: list[Outcome | None] = []
    if runnable:
        outcomes = yield ExecuteMany(
            tuple(
                Execute(
                    tools[call.name],
                    call.arguments,
                    call_id=call.id,
                    context=contexts.for_call(tools[call.name], call),
                )
                for call in runnable
            )
        )
    problems: list[Problem] = []
    for call, outcome in zip(runnable, outcomes, strict=True):
        if outcome is None or outcome.retry_message is not None:
            problems.append(
                Problem(
                    kind="not_executed" if outcome is None else "tool_retry",
                    message=(
                        "not run: an earlier call of this answer asked for a retry"
                        if outcome is None
                        else str(outcome.retry_message)
                    ),
                    tool_name=call.name,
                    call_id=call.id,
                    raw_arguments=call.raw_arguments,
                )
            )
            continue
        call.executed = True
        call.output = outcome.output
        call.error = _timeout_error(tools[call.name], call) if outcome.timed_out else outcome.error
        state.memory.ran[call_key(call)] = call
    for call, earlier in repeats:
        # The side effect must not happen twice (typically a call repeated after a
        # ModelRetry on another one); the repeat is answered with the recorded outcome.
        if earlier.executed:
            call.executed = True
            call.output, call.error, call.reused_from = earlier.output, earlier.error, earlier.id
            if earlier.id in state.notes:  # read back from a paused state: its exact message
                state.notes[call.id] = state.notes[earlier.id]
        else:  # its twin in this answer did not run (a retry stopped it): neither does it
            problems.append(
                Problem(
                    kind="not_executed",
                    message="not run: an equal call of this answer did not run",
                    tool_name=call.name,
                    call_id=call.id,
                    raw_arguments=call.raw_arguments,
                )
            )
    yield from _told_tools(state, attempt, runnable, outcomes)  # the outcomes are now set
    if problems:
        # Calls that ran before the retry keep their outputs: they never run again.
        state.executed.extend(call for call in calls if call.executed)
    return problems


def _told_tools(
    state: _Run, attempt: int, calls: Sequence[ToolCall], outcomes: Sequence[Outcome | None]
) -> tuple[Notify, ...]:
    if not state.observe:
        return ()
    return tuple(
        Notify(_tool_executed(state.step, attempt, call, outcome))
        for call, outcome in zip(calls, outcomes, strict=True)
        if outcome is not None
    )


def _tool_executed(step: int, attempt: int, call: ToolCall, outcome: Outcome) -> ToolExecuted:
    status: ToolStatus = "ok"
    if outcome.retry_message is not None:
        status = "retry"
    elif outcome.timed_out:
        status = "timeout"
    elif outcome.error is not None:
        status = "error"
    return ToolExecuted(step, attempt, call, status, outcome.started_at, outcome.duration_s)


def _timeout_error(tool: Tool[..., Any], call: ToolCall) -> ToolTimeoutError:
    timeout = float(tool.timeout or 0.0)
    return ToolTimeoutError(
        f"tool {tool.name!r} did not finish within its timeout of {timeout:g} s; "
        "it was not run again",
        tool_name=tool.name,
        call_id=call.id,
        timeout=timeout,
    )


def _result_content(call: ToolCall, notes: Mapping[str, str]) -> str:
    """The `tool` message content answering a call that ran or was answered without running."""
    if call.id in notes:
        return notes[call.id]
    if call.error is not None:
        return f"ERROR: {type(call.error).__name__}: {call.error}"
    return tool_output_content(call.output)


def _contents(calls: Sequence[ToolCall], notes: Mapping[str, str]) -> dict[str, str]:
    return {
        call.id: _result_content(call, notes) for call in calls if call.executed or call.id in notes
    }


def _tool_messages(calls: Sequence[ToolCall], notes: Mapping[str, str]) -> list[dict[str, Any]]:
    return [
        {"role": "tool", "tool_call_id": call.id, "content": _result_content(call, notes)}
        for call in calls
    ]


def _feedback_messages(
    message: Mapping[str, Any],
    calls: Sequence[ToolCall],
    problems: Sequence[Problem],
    offered: Sequence[str],
    notes: Mapping[str, str],
    *,
    may_answer: bool = False,
) -> list[dict[str, Any]]:
    if not message.get("tool_calls"):
        return [{"role": "user", "content": feedback_text(problems[0], offered)}]
    by_id = {problem.call_id: problem for problem in problems}
    feedback: list[dict[str, Any]] = []
    for call in calls:
        if call.id in by_id:
            continue
        if call.executed or call.id in notes:
            content = _result_content(call, notes)
        else:
            content = feedback_text(
                Problem(kind="not_executed", message="", tool_name=call.name, call_id=call.id),
                offered,
            )
        feedback.append({"role": "tool", "tool_call_id": call.id, "content": content})
    for problem in problems:
        feedback.append(
            {
                "role": "tool",
                "tool_call_id": problem.call_id,
                "content": feedback_text(problem, offered, may_answer=may_answer),
            }
        )
    # Tool messages must follow the order of the calls they answer.
    order = {str(c.get("id")): i for i, c in enumerate(message.get("tool_calls") or [])}
    feedback.sort(key=lambda m: order.get(str(m["tool_call_id"]), len(order)))
    return feedback


def _failure_message(attempts: Sequence[Attempt]) -> str:
    last = attempts[-1].problems if attempts else []
    detail = "; ".join(f"{p.kind}: {p.message}" for p in last) or "no detail"
    return (
        f"no valid tool call after {len(attempts)} attempt(s); last problem(s): {detail}. "
        "Each attempt is in .attempts"
    )
