"""The ladder: four ways of asking a server for tool calls, from no help to the full SDK.

- `auto`: the raw openai client, `tool_choice="auto"`; calls taken as they come.
- `required`: the raw openai client, `tool_choice="required"` with the SDK's strict
  schemas (structured outputs); no validation, no retry.
- `required+validate`: the SDK with `router="always"`, `max_retries=0`: forced call,
  Pydantic validation, no feedback retry, no recovery of calls left in the text.
- `full`: the SDK as users get it: router, forced call, validation, feedback retries,
  recovery of calls the server's parser missed.

Each pipeline returns a `PipelineOutcome`: the calls made (JSON-normal arguments), or the
hard failure, plus what it cost (requests, tokens, latency).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import httpx2
import openai

from toolcall_sdk._client import AsyncToolCallClient
from toolcall_sdk._errors import (
    RateLimitedError,
    ServerConnectionError,
    ServerTimeoutError,
    ServerUnavailableError,
    ToolCallError,
    ToolCallFailed,
    TransportError,
)
from toolcall_sdk._recovery import recover_calls
from toolcall_sdk._results import Attempt, ToolCallResult
from toolcall_sdk._transport import RetryPolicy, is_transient
from toolcall_sdk._validation import no_call_problem, read_arguments
from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._matching import MadeCall
from toolcall_sdk.routing import RouterSpec

__all__ = [
    "LADDER",
    "PIPELINES",
    "EvalSettings",
    "PipelineOutcome",
    "counting_http_client",
    "describe_settings",
    "run_pipeline",
]

LADDER: Final[tuple[str, ...]] = ("auto", "required", "required+validate", "full")
"""The pipelines, from least to most help, in report order."""

PIPELINES: Final[frozenset[str]] = frozenset(LADDER)

# The raw pipelines get the same sampling as the SDK (temperature 0): the ladder measures
# the pipeline, not the sampler.
_TEMPERATURE: Final = 0.0
# The server could not be used, this time: such a pair has no result yet, and runs again.
_UNFINISHED: Final = (
    ServerConnectionError,
    ServerTimeoutError,
    RateLimitedError,
    ServerUnavailableError,
)


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """Where and how the pipelines reach the server.

    Attributes:
        base_url: The server's `/v1` URL.
        model: The served model name.
        api_key: The server's key, if it has one.
        router: The `full` pipeline's router (`llm`, `always`, ...).
        max_retries: The `full` pipeline's feedback retries.
        timeout: Seconds per request.
        max_tokens: Token limit per answer (None: the server's default).
        retry: The SDK pipelines' transport retries (None: the client's default); tests
            pass one whose sleeps are recorded.
    """

    base_url: str
    model: str
    api_key: str | None = None
    router: RouterSpec = "llm"
    max_retries: int = 2
    timeout: float = 120.0
    max_tokens: int | None = None
    retry: RetryPolicy | None = None


@dataclass(slots=True)
class PipelineOutcome:
    """What one pipeline did with one case.

    Attributes:
        calls: The calls made, arguments JSON-normal.
        content: The assistant text, if any.
        hard_error: Why no usable answer came back (server error, arguments that are not
            JSON, an answer cut off at the token limit, retries exhausted); None when one
            did. A rejected answer reads `KIND: message` with the SDK's problem kind and
            message (`invalid_json: cut off at the token limit: ...`) in every pipeline.
        hard_kind: `server_error`, `unparseable` (a raw pipeline's answer whose call cannot
            be read) or `exhausted_retries`.
        hard_field: The argument at fault when validation exhausted the retries.
        hard_tool: The tool concerned, when known.
        parser_miss: The server's parser left a call in the text (recovered by `full`).
        repaired: A deterministic repair was applied to the arguments.
        attempts: Stage-2 model answers (1 for the raw pipelines).
        requests: HTTP requests sent, router and transport retries included.
        prompt_tokens: Prompt tokens the server reported.
        completion_tokens: Completion tokens the server reported.
        latency_s: Wall time of the case in this pipeline.
        unfinished: Why the server could not be used (connection, timeout, 429, 5xx after
            the retries), or None. Such an outcome is not a result: it is not stored, and
            the next run tries the pair again.
    """

    calls: list[MadeCall] = field(default_factory=list)
    content: str | None = None
    hard_error: str | None = None
    hard_kind: str | None = None
    hard_field: str | None = None
    hard_tool: str | None = None
    parser_miss: bool = False
    repaired: bool = False
    attempts: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    unfinished: str | None = None


class _Counter:
    def __init__(self) -> None:
        self.requests = 0


_current: contextvars.ContextVar[_Counter | None] = contextvars.ContextVar(
    "toolcall_eval_counter", default=None
)


async def _count_request(request: httpx2.Request) -> None:
    counter = _current.get()
    if counter is not None:
        counter.requests += 1


def counting_http_client(
    *, transport: httpx2.AsyncBaseTransport | None = None, timeout: float = 120.0
) -> httpx2.AsyncClient:
    """The HTTP client every pipeline shares; it counts each case's requests.

    Each case runs in its own task with its own counter (a context variable), so the
    count is exact under concurrency and includes router requests and transport retries.

    Args:
        transport: A transport to use instead of the network (tests).
        timeout: Seconds per request.
    """
    return httpx2.AsyncClient(
        transport=transport,
        timeout=timeout,
        event_hooks={"request": [_count_request]},
        limits=httpx2.Limits(max_connections=256, max_keepalive_connections=64),
    )


async def run_pipeline(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    """Run one case through one pipeline of the ladder.

    Args:
        pipeline: One of `LADDER`.
        case: The case.
        settings: Server, model and the `full` pipeline's options.
        http_client: From `counting_http_client()`; shared by every case.

    Raises:
        ValueError: An unknown pipeline name.
    """
    if pipeline not in PIPELINES:
        raise ValueError(f"unknown pipeline {pipeline!r}; choose from {', '.join(LADDER)}")
    counter = _Counter()
    token = _current.set(counter)
    started = time.monotonic()
    try:
        if pipeline in ("auto", "required"):
            outcome = await _raw(pipeline, case, settings, http_client)
        else:
            outcome = await _sdk(pipeline, case, settings, http_client)
    finally:
        _current.reset(token)
    outcome.latency_s = time.monotonic() - started
    outcome.requests = counter.requests
    return outcome


async def _raw(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    client = openai.AsyncOpenAI(
        base_url=settings.base_url,
        api_key=settings.api_key or "EMPTY",
        max_retries=0,
        timeout=settings.timeout,
        http_client=http_client,
    )
    params: dict[str, Any] = {
        "model": settings.model,
        "messages": [dict(m) for m in case.messages],
        # `auto` gets the plain form (strict tools would be constrained even under auto);
        # `required` the SDK's strict form, which recent vLLM needs to constrain a forced
        # call. Tools a case file defines as JSON go out exactly as written either way.
        "tools": [t.openai_schema(strict=pipeline == "required") for t in case.tools],
        "tool_choice": pipeline,
        "temperature": _TEMPERATURE,
    }
    if settings.max_tokens is not None:
        params["max_tokens"] = settings.max_tokens
    outcome = PipelineOutcome(attempts=1)
    try:
        completion = await client.chat.completions.create(**params)
    except openai.APIError as exc:
        if is_transient(exc):
            outcome.unfinished = f"server error: {_api_error(exc)}"
            return outcome
        outcome.hard_error = f"server error: {_api_error(exc)}"
        outcome.hard_kind = "server_error"
        return outcome
    usage = completion.usage
    if usage is not None:
        outcome.prompt_tokens = usage.prompt_tokens or 0
        outcome.completion_tokens = usage.completion_tokens or 0
    if not completion.choices:
        outcome.hard_error = "server error: the answer has no choices"
        outcome.hard_kind = "server_error"
        return outcome
    choice = completion.choices[0]
    message = choice.message.model_dump(mode="json", exclude_none=True)
    outcome.content = message.get("content") or None
    raw_calls = message.get("tool_calls") or []
    if not raw_calls:
        # Not used (this pipeline takes calls as they come), only reported.
        outcome.parser_miss = recover_calls(message, hint=settings.model, attempt=1) is not None
        if choice.finish_reason == "length" and case.expects_call:
            # Cut off before its call: named as the SDK's pipelines name it.
            problem = no_call_problem(choice.finish_reason)
            outcome.hard_error = f"{problem.kind}: {_generic(problem.message)}"
            outcome.hard_kind = "unparseable"
        return outcome
    for raw in raw_calls:
        function = raw.get("function") or {}
        name = str(function.get("name") or "")
        # The SDK's reading of arguments, without its repairs: the same failure gets the
        # same name (`invalid_json`, `cut off at the token limit`) in every pipeline.
        arguments, error = read_arguments(
            function.get("arguments"), finish_reason=choice.finish_reason
        )
        if error is not None:
            outcome.hard_error = f"invalid_json: {_generic(error)}"
            outcome.hard_kind = "unparseable"
            outcome.hard_tool = name
            return outcome
        outcome.calls.append(MadeCall(name=name, arguments=arguments))
    return outcome


async def _sdk(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    options: dict[str, Any] = {}
    if pipeline == "required+validate":
        options.update(router="always", max_retries=0, recover=False)
    else:
        options.update(router=settings.router, max_retries=settings.max_retries, recover=True)
    client = AsyncToolCallClient(
        settings.base_url,
        model=settings.model,
        tools=case.tools,
        api_key=settings.api_key,
        timeout=settings.timeout,
        max_tokens=settings.max_tokens,
        http_client=http_client,
        retry=settings.retry,
        **options,
    )
    outcome = PipelineOutcome()
    try:
        result = await client.call([dict(m) for m in case.messages], context=case.context)
    except ToolCallFailed as failed:
        _describe_attempts(outcome, failed.attempts, settings.model)
        last = failed.attempts[-1].problems if failed.attempts else []
        first = last[0] if last else None
        outcome.hard_kind = "exhausted_retries"
        outcome.hard_error = (
            f"{first.kind}: {_generic(first.message)}" if first else "no valid tool call"
        )
        if first is not None:
            outcome.hard_tool = first.tool_name
            outcome.hard_field = first.fields[0].field if first.fields else None
        return outcome
    except TransportError as exc:
        reason = f"server error: {type(exc).__name__}: {_first_line(str(exc))}"
        if isinstance(exc, _UNFINISHED):
            outcome.unfinished = reason
            return outcome
        outcome.hard_error = reason
        outcome.hard_kind = "server_error"
        return outcome
    except ToolCallError as exc:
        outcome.hard_error = f"{type(exc).__name__}: {_first_line(str(exc))}"
        outcome.hard_kind = "server_error"
        return outcome
    _describe_result(outcome, result, settings.model)
    return outcome


def _describe_attempts(outcome: PipelineOutcome, attempts: list[Attempt], model: str) -> None:
    outcome.attempts = len(attempts)
    # With recovery off the SDK does not look for calls in the text; the eval still does,
    # so that the flag means the same thing in every pipeline.
    outcome.parser_miss = any(
        a.parser_miss
        or (
            not a.raw_message.get("tool_calls")
            and recover_calls(a.raw_message, hint=model, attempt=a.number) is not None
        )
        for a in attempts
    )
    outcome.repaired = any(a.repairs for a in attempts)
    outcome.prompt_tokens = sum(a.usage.prompt_tokens for a in attempts)
    outcome.completion_tokens = sum(a.usage.completion_tokens for a in attempts)


def _describe_result(outcome: PipelineOutcome, result: ToolCallResult, model: str) -> None:
    _describe_attempts(outcome, result.attempts, model)
    # The result's usage covers every request, the router's included.
    outcome.prompt_tokens = result.usage.prompt_tokens
    outcome.completion_tokens = result.usage.completion_tokens
    outcome.content = result.content
    outcome.calls = [
        MadeCall(
            name=call.name,
            arguments=call.arguments.model_dump(mode="json", by_alias=True, exclude_unset=True),
        )
        for call in result.calls
    ]


def _api_error(exc: openai.APIError) -> str:
    status = getattr(exc, "status_code", None)
    prefix = f"HTTP {status}: " if status else f"{type(exc).__name__}: "
    return prefix + _first_line(str(getattr(exc, "message", None) or exc))


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _generic(message: str) -> str:
    """A problem message without the values, so that equal failures group together."""
    return _first_line(message, limit=160)


def describe_settings(settings: EvalSettings) -> Mapping[str, Any]:
    """The settings as report metadata (no credential)."""
    return {
        "base_url": settings.base_url,
        "model": settings.model,
        "router": settings.router if isinstance(settings.router, str) else repr(settings.router),
        "max_retries": settings.max_retries,
        "max_tokens": settings.max_tokens,
    }
