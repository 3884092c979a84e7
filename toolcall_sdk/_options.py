"""The client's options, declared once for both twins (and for anything that builds a client).

`ClientOptions` is the keyword surface of `ToolCallClient` and `AsyncToolCallClient` besides
`base_url`, `model` and the twin-specific `openai_client`/`http_client`; `DEFAULTS` holds
the value of every option left out. Each option is documented on `ToolCallClient`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from toolcall_sdk._errors import ToolCallFailed
from toolcall_sdk._transport import RetryPolicy

if TYPE_CHECKING:
    from toolcall_sdk._results import ToolCallResult
    from toolcall_sdk.routing import RouterSpec

__all__ = ["DEFAULTS", "ClientOptions", "Escalation", "ToolChoice", "check_option_names"]

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


def check_option_names(owner: str, options: Mapping[str, Any]) -> None:
    """Refuse a misspelt option at once, as a plain keyword signature would.

    Raises:
        TypeError: An option that `ClientOptions` does not declare.
    """
    unknown = sorted(set(options) - set(ClientOptions.__annotations__))
    if unknown:
        raise TypeError(
            f"{owner}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"options are: {', '.join(sorted(ClientOptions.__annotations__))}"
        )
