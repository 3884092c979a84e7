"""The rungs that use the SDK's client: `auto+recover`, `required+validate` and `full`.

- `auto+recover`: `tool_choice="auto"`, `router="always"` (no stage 1), plain schemas,
  `max_retries=0`: what reading calls back from the text adds to `auto+parser`. Arguments
  are still validated (and deterministically repaired); an invalid call is a `hard_fail`,
  and a text answer with no call in it is taken as the model's answer, as under `auto`.
- `required+validate`: `router="always"`, forced call, Pydantic validation, `max_retries=0`,
  no recovery.
- `full`: the SDK as users get it: the settings' router and feedback retries, recovery,
  the settings' grounding check (the client's default unless told otherwise), grounded
  decoding and demonstrations (`examples`, none unless told).

The two lower SDK rungs run without the grounding check: they measure the schema alone.
"""

from __future__ import annotations

from typing import Any, Final

import httpx2

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
from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._matching import MadeCall
from toolcall_sdk.evals._outcome import PipelineOutcome, first_line
from toolcall_sdk.evals._settings import EvalSettings
from toolcall_sdk.grounding._policy import GroundingPolicy, named_grounding

__all__ = ["SDK_RUNGS", "run_sdk", "sdk_client", "settings_grounding"]

SDK_RUNGS: Final[frozenset[str]] = frozenset({"auto+recover", "required+validate", "full"})

# The server could not be used, this time: such a pair has no result yet, and runs again.
_UNFINISHED: Final = (
    ServerConnectionError,
    ServerTimeoutError,
    RateLimitedError,
    ServerUnavailableError,
)


def _options(pipeline: str, settings: EvalSettings) -> dict[str, Any]:
    if pipeline == "auto+recover":
        # Plain schemas, as `auto+parser` sends them: strict ones would be constrained even
        # under auto, and the rung would measure the grammar instead of the recovery.
        return {
            "router": "always",
            "tool_choice": "auto",
            "max_retries": 0,
            "recover": True,
            "strict": False,
            "grounding": False,
            "optional_values": "any",
        }
    if pipeline == "required+validate":
        return {
            "router": "always",
            "max_retries": 0,
            "recover": False,
            "grounding": False,
            "optional_values": "any",
        }
    return {
        "router": settings.router,
        "max_retries": settings.max_retries,
        "recover": True,
        "grounding": settings_grounding(settings),
        "grounded_decoding": settings.grounded_decoding,
        "call_tags": settings.call_tags,
        "listed_values": settings.listed_values,
        "optional_values": settings.optional_values,
        "samples": settings.samples,
        "examples": settings.examples,
    }


def settings_grounding(settings: EvalSettings) -> GroundingPolicy | bool:
    """The client's `grounding=` for the settings' policy name (`False` for `off`)."""
    policy = named_grounding(settings.grounding)
    return policy if policy is not None else False


def sdk_client(
    case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient, **options: Any
) -> AsyncToolCallClient:
    """The SDK's client for one case: the run's server, model and limits, then `options`."""
    return AsyncToolCallClient(
        settings.base_url,
        model=settings.model,
        tools=case.tools,
        api_key=settings.api_key,
        timeout=settings.timeout,
        max_tokens=settings.max_tokens,
        http_client=http_client,
        retry=settings.retry,
        parallel_tool_calls=settings.parallel_tool_calls,
        **options,
    )


async def run_sdk(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    """One case through the SDK's client; `pipeline` is one of `SDK_RUNGS`."""
    client = sdk_client(case, settings, http_client, **_options(pipeline, settings))
    outcome = PipelineOutcome()
    try:
        result = await client.call([dict(m) for m in case.messages], context=case.context)
    except ToolCallFailed as failed:
        _describe_attempts(outcome, failed.attempts, settings.model)
        last = failed.attempts[-1] if failed.attempts else None
        problems = last.problems if last is not None else []
        if pipeline == "auto+recover" and last is not None and _only_text(last):
            # Under auto a text answer is an answer: the case's expectation judges it.
            outcome.content = last.raw_message.get("content") or None
            return outcome
        first = problems[0] if problems else None
        outcome.hard_kind = "exhausted_retries"
        outcome.hard_error = (
            f"{first.kind}: {first_line(first.message, limit=160)}"
            if first
            else "no valid tool call"
        )
        if first is not None:
            outcome.hard_tool = first.tool_name
            outcome.hard_field = first.fields[0].field if first.fields else None
        return outcome
    except TransportError as exc:
        reason = f"server error: {type(exc).__name__}: {first_line(str(exc))}"
        if isinstance(exc, _UNFINISHED):
            outcome.unfinished = reason
            return outcome
        outcome.hard_error = reason
        outcome.hard_kind = "server_error"
        return outcome
    except ToolCallError as exc:
        outcome.hard_error = f"{type(exc).__name__}: {first_line(str(exc))}"
        outcome.hard_kind = "server_error"
        return outcome
    _describe_result(outcome, result, settings.model)
    return outcome


def _only_text(attempt: Attempt) -> bool:
    """The model answered in text by its own choice: no call, and not cut off by the limit
    (a cut answer is a failure in every rung, named the same way)."""
    if attempt.finish_reason == "length":
        return False
    return bool(attempt.problems) and all(p.kind == "no_tool_call" for p in attempt.problems)


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
