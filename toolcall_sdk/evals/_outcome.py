"""What one rung of the ladder did with one case: `PipelineOutcome`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolcall_sdk.evals._matching import MadeCall

__all__ = ["PipelineOutcome", "first_line"]


@dataclass(slots=True)
class PipelineOutcome:
    """What one pipeline did with one case.

    Attributes:
        calls: The calls made, arguments JSON-normal.
        content: The assistant text, if any.
        hard_error: Why no usable answer came back (server error, unparseable arguments,
            retries exhausted); None when one did.
        hard_kind: `server_error`, `unparseable` or `exhausted_retries`.
        hard_field: The argument at fault when validation exhausted the retries.
        hard_tool: The tool concerned, when known.
        parser_miss: The server's parser left a call in the text (recovered by the rungs
            that recover).
        repaired: A deterministic repair was applied to the arguments.
        attempts: Stage-2 model answers (1 for the raw pipelines).
        requests: HTTP requests sent, router and transport retries included.
        prompt_tokens: Prompt tokens the server reported.
        completion_tokens: Completion tokens the server reported.
        latency_s: Wall time of the case in this pipeline.
        unfinished: Why the server could not be used (connection, timeout, 429, 5xx after
            the retries), or None. Such an outcome is not a result: it is not stored, and
            the next run tries the pair again.
        steps: Steps the agent-loop pipelines took (0 for the single-step rungs).
        trace: One entry per step of an agent-loop pipeline: `step`, `route` (the router's
            call/no-call, None where no router decided), `router` and `calls` (those that
            ran, as `{"name", "arguments"}`).
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
    steps: int = 0
    trace: list[dict[str, Any]] = field(default_factory=list)


def first_line(text: str, limit: int = 200) -> str:
    """The first line of an error text, cut to `limit` characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
