"""The agent-loop pipelines, for multi-step tasks (cases with an `agent` object).

- `raw-loop`: the loop a user writes over the plain openai client: ask with
  `tool_choice="auto"` and the tools, run each call the server returns (arguments as JSON,
  straight into the function; an exception becomes the `tool` message), send the results
  back, until the model answers in text or `max_steps` requests were answered with calls.
  No router, no validation, no retry, no reading of calls left in the text.
- `agent`: the SDK's loop as shipped, `run(max_steps=...)` with the settings' router (which
  decides at every step), feedback retries and recovery.
- `agent-route-first`: the same loop with the router asked at the first step only; a later
  step goes straight to stage 2 under `tool_choice="auto"`, where the model calls again or
  answers, and the router's request is saved. It measures the alternative to the default.

Each fills a `PipelineOutcome` with the calls that ran over the whole run, the final text,
the steps and a per-step trace; `_agent_score.py` judges it.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping, Sequence
from typing import Any, Final

import httpx2
import openai

from toolcall_sdk._errors import (
    LoopDetected,
    MaxStepsExceeded,
    RateLimitedError,
    ServerConnectionError,
    ServerTimeoutError,
    ServerUnavailableError,
    ToolCallError,
    ToolCallFailed,
    TransportError,
    UsageLimitExceeded,
)
from toolcall_sdk._messages import tool_output_content
from toolcall_sdk._results import Step
from toolcall_sdk._tools import Tool
from toolcall_sdk._transport import is_transient
from toolcall_sdk.evals._cases import DEFAULT_AGENT_MAX_STEPS, EvalCase
from toolcall_sdk.evals._matching import MadeCall
from toolcall_sdk.evals._outcome import PipelineOutcome, first_line
from toolcall_sdk.evals._sdk_rungs import sdk_client, settings_grounding
from toolcall_sdk.evals._settings import EvalSettings, raw_request_options
from toolcall_sdk.routing import RouteDecision, coerce_decision, resolve_router, route_flow

__all__ = ["AGENT_RUNGS", "FirstStepRouter", "run_agent"]

AGENT_RUNGS: Final[tuple[str, ...]] = ("raw-loop", "agent", "agent-route-first")
"""The agent-loop pipelines, in report order: the baseline first."""

_SKIPPED: Final = "skipped"
"""`RouteDecision.router` of a later step that `FirstStepRouter` did not route."""

_UNFINISHED: Final = (
    ServerConnectionError,
    ServerTimeoutError,
    RateLimitedError,
    ServerUnavailableError,
)


class FirstStepRouter:
    """A router that decides at the first step of a run only.

    Later steps (the conversation has grown past its opening messages: calls and their
    results came back) are "call" without a request, so stage 2 runs under
    `tool_choice="auto"` and the model itself calls again or answers.

    Args:
        inner: The router of the first step (any `router=` value).
        opening: How many messages the run starts with.
    """

    name = "first-step"

    def __init__(self, inner: Any, opening: int) -> None:
        self.inner = resolve_router(inner)
        self.opening = opening

    def decide(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]) -> Any:
        """Unused inside a client (it drives `route_flow`); outside one, the same answer."""
        raise NotImplementedError("FirstStepRouter is driven through route_flow")

    def route_flow(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]
    ) -> Generator[Any, Any, RouteDecision]:
        """The inner router's flow at the first step; "call" without a request after it."""
        if len(messages) > self.opening:
            return RouteDecision(call=True, router=_SKIPPED, reason="a later step")
        answer = yield from route_flow(self.inner, messages, tools)
        return coerce_decision(answer, self.inner)


async def run_agent(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    """One multi-step task through one of `AGENT_RUNGS`."""
    if pipeline == "raw-loop":
        return await _raw_loop(case, settings, http_client)
    return await _sdk_loop(pipeline, case, settings, http_client)


def _max_steps(case: EvalCase) -> int:
    return case.agent.max_steps if case.agent is not None else DEFAULT_AGENT_MAX_STEPS


async def _sdk_loop(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    router: Any = settings.router
    if pipeline == "agent-route-first":
        router = FirstStepRouter(settings.router, len(case.messages))
    client = sdk_client(
        case,
        settings,
        http_client,
        router=router,
        max_retries=settings.max_retries,
        recover=True,
        grounding=settings_grounding(settings),
    )
    outcome = PipelineOutcome()
    try:
        result = await client.run(
            [dict(m) for m in case.messages], max_steps=_max_steps(case), context=case.context
        )
    except ToolCallError as exc:
        if isinstance(exc, _UNFINISHED):
            outcome.unfinished = f"server error: {type(exc).__name__}: {first_line(str(exc))}"
            return outcome
        _describe_steps(outcome, exc.steps)
        failed_attempts = exc.attempts if isinstance(exc, ToolCallFailed) else []
        outcome.attempts += len(failed_attempts)
        for attempt in failed_attempts:
            outcome.prompt_tokens += attempt.usage.prompt_tokens
            outcome.completion_tokens += attempt.usage.completion_tokens
        outcome.hard_kind = _hard_kind(exc)
        outcome.hard_error = f"{type(exc).__name__}: {first_line(str(exc), limit=160)}"
        if isinstance(exc, ToolCallFailed) and exc.attempts and exc.attempts[-1].problems:
            first = exc.attempts[-1].problems[0]
            outcome.hard_tool = first.tool_name
            outcome.hard_field = first.fields[0].field if first.fields else None
        return outcome
    _describe_steps(outcome, result.steps)
    outcome.prompt_tokens = result.usage.prompt_tokens
    outcome.completion_tokens = result.usage.completion_tokens
    outcome.content = result.content
    return outcome


def _hard_kind(exc: ToolCallError) -> str:
    if isinstance(exc, MaxStepsExceeded):
        return "max_steps"
    if isinstance(exc, LoopDetected):
        return "loop"
    if isinstance(exc, UsageLimitExceeded):
        return "usage_limit"
    if isinstance(exc, ToolCallFailed):
        return "exhausted_retries"
    return "server_error" if isinstance(exc, TransportError) else "error"


def _describe_steps(outcome: PipelineOutcome, steps: Sequence[Step]) -> None:
    for step in steps:
        ran = [
            MadeCall(
                name=call.name,
                arguments=call.arguments.model_dump(mode="json", by_alias=True, exclude_unset=True),
            )
            for call in step.calls
            if call.executed and call.skipped is None
        ]
        outcome.calls.extend(ran)
        route = step.route if isinstance(step.route, RouteDecision) else None
        # A decision left to the answer (the default `llm` router) is the model's under
        # auto, not a router's: the trace says so, as for a step that skipped the router.
        decided = (
            route is not None
            and route.router not in (_SKIPPED, "always")
            and not route.answer_decides
        )
        outcome.trace.append(
            {
                "step": step.number,
                "route": route.call if decided and route is not None else None,
                "router": route.router if route is not None else None,
                "calls": [{"name": c.name, "arguments": dict(c.arguments)} for c in ran],
            }
        )
        outcome.attempts += len(step.attempts)
        outcome.prompt_tokens += step.usage.prompt_tokens
        outcome.completion_tokens += step.usage.completion_tokens
    outcome.steps = len(steps)


async def _raw_loop(
    case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    client = openai.AsyncOpenAI(
        base_url=settings.base_url,
        api_key=settings.api_key or "EMPTY",
        max_retries=0,
        timeout=settings.timeout,
        http_client=http_client,
    )
    tools = {t.name: t for t in case.tools}
    messages: list[dict[str, Any]] = [dict(m) for m in case.messages]
    params: dict[str, Any] = {
        "model": settings.model,
        # The plain form, as a user writes it: strict tools would be constrained under auto.
        "tools": [t.openai_schema(strict=False) for t in case.tools],
        "tool_choice": "auto",
        **raw_request_options(settings),
    }
    outcome = PipelineOutcome()
    for number in range(1, _max_steps(case) + 1):
        try:
            completion = await client.chat.completions.create(**{**params, "messages": messages})
        except openai.APIError as exc:
            reason = f"server error: {type(exc).__name__}: {first_line(str(exc))}"
            if is_transient(exc):
                outcome.unfinished = reason
            else:
                outcome.hard_error, outcome.hard_kind = reason, "server_error"
            return outcome
        outcome.attempts += 1
        outcome.steps = number
        if completion.usage is not None:
            outcome.prompt_tokens += completion.usage.prompt_tokens or 0
            outcome.completion_tokens += completion.usage.completion_tokens or 0
        if not completion.choices:
            outcome.hard_error, outcome.hard_kind = "server error: no choices", "server_error"
            return outcome
        message = completion.choices[0].message.model_dump(mode="json", exclude_none=True)
        raw_calls = message.get("tool_calls") or []
        if not raw_calls:
            outcome.content = message.get("content") or None
            outcome.trace.append({"step": number, "route": None, "router": None, "calls": []})
            return outcome
        messages.append(message)
        ran: list[MadeCall] = []
        for raw in raw_calls:
            function = raw.get("function") or {}
            name = str(function.get("name") or "")
            content, arguments = _run_raw_call(tools, name, function.get("arguments"))
            if arguments is not None:
                ran.append(MadeCall(name=name, arguments=arguments))
            messages.append({"role": "tool", "tool_call_id": raw.get("id", ""), "content": content})
        outcome.calls.extend(ran)
        outcome.trace.append(
            {
                "step": number,
                "route": None,
                "router": None,
                "calls": [{"name": c.name, "arguments": dict(c.arguments)} for c in ran],
            }
        )
    outcome.hard_kind = "max_steps"
    outcome.hard_error = f"MaxStepsExceeded: still calling tools after {_max_steps(case)} steps"
    return outcome


def _run_raw_call(
    tools: Mapping[str, Tool[..., Any]], name: str, raw_arguments: Any
) -> tuple[str, dict[str, Any] | None]:
    """Run one call as a hand-written loop does; the `tool` message and the arguments that
    ran (None when the function was not reached)."""
    target = tools.get(name)
    if target is None or target.function is None:
        return f"error: no tool named {name!r}", None
    try:
        arguments = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError as exc:
        return f"error: arguments are not JSON ({exc.msg})", None
    if not isinstance(arguments, dict):
        return "error: arguments must be a JSON object", None
    try:
        output = target.function(**arguments)
    except Exception as exc:  # a user's loop reports any failure of the tool to the model
        return f"error: {type(exc).__name__}: {exc}", arguments
    return tool_output_content(output), arguments
