"""The rungs that use the plain openai client: `auto`, `auto+parser` and `required`.

They send one request each, as a user without the SDK would, and take the calls exactly as
the server returns them: no validation, no retry, no reading of calls left in the text.
"""

from __future__ import annotations

from typing import Any, Final

import httpx2
import openai

from toolcall_sdk._recovery import recover_calls
from toolcall_sdk._transport import is_transient
from toolcall_sdk._validation import no_call_problem, read_arguments
from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._matching import MadeCall
from toolcall_sdk.evals._outcome import PipelineOutcome, first_line
from toolcall_sdk.evals._settings import EvalSettings, raw_request_options

__all__ = ["RAW_RUNGS", "run_raw"]

RAW_RUNGS: Final[frozenset[str]] = frozenset({"auto", "auto+parser", "required"})


async def run_raw(
    pipeline: str, case: EvalCase, settings: EvalSettings, http_client: httpx2.AsyncClient
) -> PipelineOutcome:
    """One request with the plain openai client; `pipeline` is one of `RAW_RUNGS`.

    `auto` asks the wrong-parser server (`settings.auto_base_url`), the other two the main
    one; `required` forces a call, the `auto` rungs let the model choose.
    """
    forced = pipeline == "required"
    client = openai.AsyncOpenAI(
        base_url=settings.auto_base_url if pipeline == "auto" else settings.base_url,
        api_key=settings.api_key or "EMPTY",
        max_retries=0,
        timeout=settings.timeout,
        http_client=http_client,
    )
    params: dict[str, Any] = {
        "model": settings.model,
        "messages": [dict(m) for m in case.messages],
        # The `auto` rungs get the plain form (strict tools would be constrained even under
        # auto); `required` the SDK's strict form, which recent vLLM needs to constrain a
        # forced call. Tools a case file defines as JSON go out exactly as written either way.
        "tools": [t.openai_schema(strict=forced) for t in case.tools],
        "tool_choice": "required" if forced else "auto",
        **raw_request_options(settings),
    }
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
            outcome.hard_error = f"{problem.kind}: {first_line(problem.message)}"
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
            outcome.hard_error = f"invalid_json: {first_line(error)}"
            outcome.hard_kind = "unparseable"
            outcome.hard_tool = name
            return outcome
        outcome.calls.append(MadeCall(name=name, arguments=arguments))
    return outcome


def _api_error(exc: openai.APIError) -> str:
    status = getattr(exc, "status_code", None)
    prefix = f"HTTP {status}: " if status else f"{type(exc).__name__}: "
    return prefix + first_line(str(getattr(exc, "message", None) or exc))
