"""The pipeline, free of I/O, shared by the sync and async clients.

`flow()` is a generator. It yields effects (a chat request to send, a router to consult,
a business function to run) and receives their outcome; the sync and async clients only
differ in how they carry effects out. Everything that decides — routing, the request
parameters, validation, feedback, the retry bound — lives here once.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from toolcall_sdk._errors import ToolCallFailed
from toolcall_sdk._events import AttemptFailed, ToolCallEvent, ToolCallValidated
from toolcall_sdk._feedback import feedback_text
from toolcall_sdk._hybrid_router import HybridRouter
from toolcall_sdk._messages import assistant_history_entry, tool_output_content
from toolcall_sdk._recovery import recover_calls
from toolcall_sdk._results import (
    Attempt,
    Problem,
    RequestSummary,
    ToolCall,
    ToolCallResult,
    Usage,
)
from toolcall_sdk._routing import LLMRouter, RouteDecision, coerce_decision
from toolcall_sdk._tools import Tool
from toolcall_sdk._validation import check_answer

__all__ = [
    "TOOL_CHOICES",
    "Answer",
    "ChatRequest",
    "Config",
    "Execute",
    "Notify",
    "Outcome",
    "RouteQuery",
    "flow",
]

STAGE_ROUTE = "route"
STAGE_CALL = "call"
STAGE_ANSWER = "answer"
# Stage-2 `tool_choice` values: "required" forces a call (named when one tool is left);
# "auto" is for servers without `required` and lets a text answer come back as such.
TOOL_CHOICES = ("required", "auto")


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
    tool_choice: str = "required"  # one of TOOL_CHOICES


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """Effect: send one chat-completions request and return an `Answer`."""

    stage: str
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
    """Effect: run a business function; return an `Outcome`."""

    tool: Tool[..., Any]
    arguments: BaseModel


@dataclass(frozen=True, slots=True)
class Answer:
    """What the server answered to a `ChatRequest`."""

    message: dict[str, Any]
    finish_reason: str | None
    usage: Usage
    latency_s: float


@dataclass(frozen=True, slots=True)
class Outcome:
    """What running a business function gave: an output, an error or a retry request."""

    output: Any = None
    error: BaseException | None = None
    retry_message: str | None = None


@dataclass(frozen=True, slots=True)
class Notify:
    """Effect: tell the caller what was decided (for `stream()`); return None."""

    event: ToolCallEvent


Effect = ChatRequest | RouteQuery | Execute | Notify


@dataclass(slots=True)
class _Run:
    """Mutable state of one `call()`/`run()`."""

    history: list[dict[str, Any]]
    usage: Usage = field(default_factory=Usage)
    attempts: list[Attempt] = field(default_factory=list)
    executed: list[ToolCall] = field(default_factory=list)


def flow(
    config: Config,
    messages: list[dict[str, Any]],
    *,
    execute: bool,
    context: Any = None,
) -> Generator[Effect, Any, ToolCallResult]:
    """Route, call, validate, give feedback, retry; optionally execute.

    Raises:
        ToolCallFailed: No valid call within `max_retries + 1` stage-2 requests.
    """
    state = _Run(history=list(messages))
    tools = list(config.tools.values())
    decision = yield from _route(config, state, tools)
    if not decision.call:
        return (yield from _plain_answer(config, state, decision))

    offered = _shortlist(config, decision)
    validation_context = context if context is not None else config.validation_context
    for number in range(1, config.max_retries + 2):
        params = _call_params(config, state.history, offered)
        answer: Answer = yield ChatRequest(STAGE_CALL, params, attempt=number)
        state.usage += answer.usage
        attempt = Attempt(
            number=number,
            request=_summary(STAGE_CALL, params),
            raw_message=answer.message,
            finish_reason=answer.finish_reason,
            usage=answer.usage,
            latency_s=answer.latency_s,
        )
        state.attempts.append(attempt)
        message = answer.message
        if config.recover and not message.get("tool_calls"):
            recovered = recover_calls(message, hint=config.model, attempt=number)
            if recovered is not None:
                message = recovered
                attempt.parser_miss = True
        offered_tools = {name: config.tools[name] for name in offered}
        calls, problems = check_answer(
            message,
            offered_tools,
            context=validation_context,
            schemas={name: config.schemas[name]["function"]["parameters"] for name in offered},
            finish_reason=answer.finish_reason,
            repairs=attempt.repairs,
        )
        assistant = assistant_history_entry(message)

        if not problems and execute:
            problems = yield from _execute(calls, state, offered_tools)

        if not problems:
            state.history.append(assistant)
            if execute:
                state.history.extend(_tool_messages(calls))
            for call in calls:
                yield Notify(ToolCallValidated(call, number))
            return ToolCallResult(
                called=True,
                calls=[*state.executed, *calls] if execute else calls,
                content=message.get("content") or None,
                attempts=state.attempts,
                messages=state.history,
                route=decision,
                usage=state.usage,
            )

        attempt.problems = problems
        attempt.feedback = _feedback_messages(message, calls, problems, offered)
        state.history.append(assistant)
        state.history.extend(attempt.feedback)
        yield Notify(AttemptFailed(attempt, retrying=number <= config.max_retries))

    raise ToolCallFailed(
        _failure_message(state.attempts),
        attempts=state.attempts,
        executed=state.executed,
    )


def _route(
    config: Config, state: _Run, tools: list[Tool[..., Any]]
) -> Generator[Effect, Any, RouteDecision]:
    if not tools:
        return RouteDecision(call=False, score=0.0, router="none", reason="no tools offered")
    router = config.router
    if isinstance(router, LLMRouter):
        return (yield from _ask_llm(config, state, router, tools))
    if isinstance(router, HybridRouter):
        # The embedding half runs like any router object (in a thread under asyncio);
        # the LLM half is a routing request to the client's own server.
        raw = yield RouteQuery(router.embedding, list(state.history), tools)
        first = coerce_decision(raw, router.embedding)
        if not router.uncertain(first):
            return router.settle(first)
        second = yield from _ask_llm(config, state, router.llm, tools)
        return router.combine(first, second)
    raw = yield RouteQuery(router, list(state.history), tools)
    return coerce_decision(raw, router)


def _ask_llm(
    config: Config, state: _Run, router: LLMRouter, tools: list[Tool[..., Any]]
) -> Generator[Effect, Any, RouteDecision]:
    params = router.request_params(state.history, tools)
    params["model"] = config.model
    answer: Answer = yield ChatRequest(STAGE_ROUTE, params)
    state.usage += answer.usage
    return router.interpret(answer.message)


def _plain_answer(
    config: Config, state: _Run, decision: RouteDecision
) -> Generator[Effect, Any, ToolCallResult]:
    params: dict[str, Any] = {"model": config.model, "messages": list(state.history)}
    if config.tools:
        # vLLM rejects tool_choice without tools; with tools it still renders them into
        # the prompt, which keeps the model's view of the conversation consistent.
        params["tools"] = [config.schemas[name] for name in config.tools]
        params["tool_choice"] = "none"
    _common_params(config, params)
    answer: Answer = yield ChatRequest(STAGE_ANSWER, params)
    state.usage += answer.usage
    content = answer.message.get("content")
    state.history.append({"role": "assistant", "content": content})
    return ToolCallResult(
        called=False,
        content=content,
        messages=state.history,
        route=decision,
        usage=state.usage,
    )


def _shortlist(config: Config, decision: RouteDecision) -> list[str]:
    known = [name for name in dict.fromkeys(decision.tools) if name in config.tools]
    return known or list(config.tools)


def _call_params(
    config: Config, history: list[dict[str, Any]], offered: Sequence[str]
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "model": config.model,
        "messages": list(history),
        "tools": [config.schemas[name] for name in offered],
    }
    if config.tool_choice == "auto":
        params["tool_choice"] = "auto"
    elif len(offered) == 1:
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


def _summary(stage: str, params: Mapping[str, Any]) -> RequestSummary:
    return RequestSummary(
        stage=stage,
        tool_choice=params.get("tool_choice"),
        tools=tuple(t["function"]["name"] for t in params.get("tools", ())),
        temperature=params.get("temperature"),
        message_count=len(params.get("messages", ())),
    )


def _execute(
    calls: list[ToolCall], state: _Run, tools: Mapping[str, Tool[..., Any]]
) -> Generator[Effect, Any, list[Problem]]:
    """Run each call once, in order; a ModelRetry stops the rest of this answer."""
    problems: list[Problem] = []
    for call in calls:
        if problems:
            problems.append(
                Problem(
                    kind="not_executed",
                    message="not run: an earlier call of this answer asked for a retry",
                    tool_name=call.name,
                    call_id=call.id,
                    raw_arguments=call.raw_arguments,
                )
            )
            continue
        outcome: Outcome = yield Execute(tools[call.name], call.arguments)
        if outcome.retry_message is not None:
            problems.append(
                Problem(
                    kind="tool_retry",
                    message=outcome.retry_message,
                    tool_name=call.name,
                    call_id=call.id,
                    raw_arguments=call.raw_arguments,
                )
            )
            continue
        call.executed = True
        call.output = outcome.output
        call.error = outcome.error
    if problems:
        # Calls that ran before the retry keep their outputs: they never run again.
        state.executed.extend(call for call in calls if call.executed)
    return problems


def _tool_messages(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    messages = []
    for call in calls:
        if call.error is not None:
            content = f"ERROR: {type(call.error).__name__}: {call.error}"
        else:
            content = tool_output_content(call.output)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return messages


def _feedback_messages(
    message: Mapping[str, Any],
    calls: Sequence[ToolCall],
    problems: Sequence[Problem],
    offered: Sequence[str],
) -> list[dict[str, Any]]:
    if not message.get("tool_calls"):
        return [{"role": "user", "content": feedback_text(problems[0], offered)}]
    by_id = {problem.call_id: problem for problem in problems}
    feedback: list[dict[str, Any]] = []
    for call in calls:
        if call.id in by_id:
            continue
        if call.executed:
            content = tool_output_content(call.output)
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
                "content": feedback_text(problem, offered),
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
