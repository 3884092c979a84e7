"""The ladder: six ways of asking a server for tool calls, from no help to the full SDK.

- `auto`: the raw openai client, `tool_choice="auto"`, against the wrong-parser server
  (the same model behind vLLM's plain `hermes` parser; the main server when none is given).
- `auto+parser`: the same request against the main server, whose tool parser is the SDK's
  plugin parser (the right parser).
- `auto+recover`: the SDK with `tool_choice="auto"` and no router, no feedback retry:
  calls the parser left in the text are read back, arguments validated.
- `required`: the raw openai client, `tool_choice="required"` with the SDK's strict
  schemas (structured outputs); no validation, no retry.
- `required+validate`: the SDK with `router="always"`, `max_retries=0`: forced call,
  Pydantic validation, no feedback retry, no recovery of calls left in the text.
- `full`: the SDK as users get it: router, forced call, validation, feedback retries,
  recovery of calls the server's parser missed.

Multi-step tasks (cases with an `agent` object) have their own pipelines, `AGENT_LADDER`:
`raw-loop` (a hand-written loop over the openai client), `agent` (the SDK's loop) and
`agent-route-first` (the SDK's loop, router at the first step only), in `_agent_rungs.py`.

Each pipeline returns a `PipelineOutcome`: the calls made (JSON-normal arguments), or the
hard failure, plus what it cost (requests, tokens, latency). The raw rungs live in
`_raw_rungs.py`, the SDK rungs in `_sdk_rungs.py`.
"""

from __future__ import annotations

import contextvars
import time
from typing import Final

import httpx2

from toolcall_sdk.evals._agent_rungs import AGENT_RUNGS, run_agent
from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._outcome import PipelineOutcome
from toolcall_sdk.evals._raw_rungs import RAW_RUNGS, run_raw
from toolcall_sdk.evals._sdk_rungs import run_sdk
from toolcall_sdk.evals._settings import EvalSettings, describe_settings

__all__ = [
    "AGENT_LADDER",
    "ALL_PIPELINES",
    "LADDER",
    "PIPELINES",
    "EvalSettings",
    "PipelineOutcome",
    "counting_http_client",
    "describe_settings",
    "run_pipeline",
]

LADDER: Final[tuple[str, ...]] = (
    "auto",
    "auto+parser",
    "auto+recover",
    "required",
    "required+validate",
    "full",
)
"""The pipelines, from least to most help, in report order."""

AGENT_LADDER: Final[tuple[str, ...]] = AGENT_RUNGS
"""The agent-loop pipelines for multi-step tasks, baseline first, in report order."""

ALL_PIPELINES: Final[tuple[str, ...]] = (*LADDER, *AGENT_LADDER)
"""Every pipeline, in report order."""

PIPELINES: Final[frozenset[str]] = frozenset(ALL_PIPELINES)


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
        pipeline: One of `LADDER`, or of `AGENT_LADDER` for a multi-step task.
        case: The case.
        settings: Servers, model and the `full` pipeline's options.
        http_client: From `counting_http_client()`; shared by every case.

    Raises:
        ValueError: An unknown pipeline name.
    """
    if pipeline not in PIPELINES:
        raise ValueError(f"unknown pipeline {pipeline!r}; choose from {', '.join(ALL_PIPELINES)}")
    counter = _Counter()
    token = _current.set(counter)
    started = time.monotonic()
    try:
        if pipeline in AGENT_LADDER:
            outcome = await run_agent(pipeline, case, settings, http_client)
        elif pipeline in RAW_RUNGS:
            outcome = await run_raw(pipeline, case, settings, http_client)
        else:
            outcome = await run_sdk(pipeline, case, settings, http_client)
    finally:
        _current.reset(token)
    outcome.latency_s = time.monotonic() - started
    outcome.requests = counter.requests
    return outcome
