"""The client's options, declared once for both twins (and for anything that builds a client).

`ClientOptions` is the keyword surface of `ToolCallClient` and `AsyncToolCallClient` besides
`base_url`, `model` and the twin-specific `openai_client`/`http_client`; `DEFAULTS` holds
the value of every option left out. Each option is documented on `ToolCallClient`.
`RunOptions` are the agent loop's bounds, taken by both twins' `run()`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from toolcall_sdk._errors import ToolCallFailed
from toolcall_sdk._run_state import RunLimits
from toolcall_sdk._transport import RetryPolicy

if TYPE_CHECKING:
    from toolcall_sdk._results import ToolCallResult
    from toolcall_sdk.routing import RouterSpec

__all__ = [
    "DEFAULTS",
    "ClientOptions",
    "Escalation",
    "RunOptions",
    "ToolChoice",
    "check_option_names",
    "run_limits",
]

Escalation = Callable[[ToolCallFailed], "ToolCallResult | Awaitable[ToolCallResult]"]
ToolChoice = Literal["required", "auto"]


class ClientOptions(TypedDict, total=False):
    """Keyword options shared by `ToolCallClient` and `AsyncToolCallClient`."""

    tools: Iterable[Any]
    api_key: str | None
    max_retries: int
    router: RouterSpec
    strict: bool
    temperature: float | None
    max_tokens: int | None
    parallel_tool_calls: bool | None
    timeout: float
    retry: RetryPolicy | None
    validation_context: Any
    on_escalate: Escalation | None
    extra_body: Mapping[str, Any] | None
    default_headers: Mapping[str, str] | None
    recover: bool
    tool_choice: ToolChoice


DEFAULTS: ClientOptions = {
    "tools": (),
    "api_key": None,
    "max_retries": 2,
    "router": "llm",
    "strict": True,
    "temperature": 0.0,
    "max_tokens": None,
    "parallel_tool_calls": None,
    "timeout": 120.0,
    "retry": None,
    "validation_context": None,
    "on_escalate": None,
    "extra_body": None,
    "default_headers": None,
    "recover": True,
    "tool_choice": "required",
}


class RunOptions(TypedDict, total=False):
    """The bounds of `run()` (both twins). Each is documented on `ToolCallClient.run`."""

    max_steps: int
    max_requests: int | None
    max_tokens_total: int | None
    loop_guard: int | None


def check_option_names(
    owner: str, options: Mapping[str, Any], declared: type = ClientOptions
) -> None:
    """Refuse a misspelt option at once, as a plain keyword signature would.

    Raises:
        TypeError: An option that `declared` (a TypedDict) does not declare.
    """
    unknown = sorted(set(options) - set(declared.__annotations__))
    if unknown:
        raise TypeError(
            f"{owner}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"options are: {', '.join(sorted(declared.__annotations__))}"
        )


def run_limits(owner: str, options: RunOptions) -> RunLimits:
    """Check `run()`'s options and return them as `RunLimits` (the defaults filled in).

    Raises:
        TypeError: An option `RunOptions` does not declare.
        ValueError: A bound out of range.
    """
    check_option_names(owner, options, RunOptions)
    limits = RunLimits(**options)
    _at_least("max_steps", limits.max_steps, 1, none_ok=False)
    _at_least("max_requests", limits.max_requests, 1)
    _at_least("max_tokens_total", limits.max_tokens_total, 1)
    # 1 would answer the first call of a run with "you already called it".
    _at_least("loop_guard", limits.loop_guard, 2)
    return limits


def _at_least(name: str, value: Any, minimum: int, *, none_ok: bool = True) -> None:
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        off = " or None for no limit" if none_ok else ""
        raise ValueError(f"{name} must be an integer >= {minimum}{off} (got {value!r})")
