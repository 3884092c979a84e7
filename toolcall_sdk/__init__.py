"""toolcall-sdk: reliable LLM tool calling on self-hosted models.

```python
from toolcall_sdk import ToolCallClient, tool

@tool
def get_weather(city: str) -> str:
    \"\"\"Current weather for a city.\"\"\"
    return f"sunny in {city}"

client = ToolCallClient(base_url="http://localhost:8000/v1", model="my-model", tools=[get_weather])
result = client.run("Weather in Oslo?")
```
"""

# The names are imported on first use (PEP 562), so `import toolcall_sdk` and the CLI's
# `--help` do not pay for openai (~0.8 s) until a client or an error class is needed.
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolcall_sdk._version import __version__

if TYPE_CHECKING:
    from toolcall_sdk._client import (
        AsyncToolCallClient,
        ToolCallClient,
    )
    from toolcall_sdk._embedding_router import EmbeddingRouter
    from toolcall_sdk._errors import (
        AuthenticationError,
        ContextLengthExceededError,
        MalformedResponseError,
        ModelNotFoundError,
        ModelRetry,
        PromptEmbedsError,
        RateLimitedError,
        RequestRejectedError,
        RouterError,
        ServerConnectionError,
        ServerError,
        ServerTimeoutError,
        ServerUnavailableError,
        StrictSchemaError,
        ToolCallError,
        ToolCallFailed,
        ToolDefinitionError,
        ToolExecutionError,
        TransportError,
    )
    from toolcall_sdk._events import (
        AttemptFailed,
        ContentDelta,
        StreamCompleted,
        ToolArgumentsDelta,
        ToolCallEvent,
        ToolCallStarted,
        ToolCallValidated,
    )
    from toolcall_sdk._extras import MissingDependencyError
    from toolcall_sdk._hybrid_router import HybridRouter
    from toolcall_sdk._results import (
        Attempt,
        FieldError,
        Problem,
        RequestSummary,
        ToolCall,
        ToolCallResult,
        Usage,
    )
    from toolcall_sdk._routing import (
        AlwaysRouter,
        LLMRouter,
        NeverRouter,
        RouteDecision,
        Router,
    )
    from toolcall_sdk._schema import to_strict_schema
    from toolcall_sdk._tools import (
        Tool,
        tool,
    )
    from toolcall_sdk._transport import RetryPolicy

_LAZY: dict[str, str] = {
    "AlwaysRouter": "toolcall_sdk._routing",
    "AsyncToolCallClient": "toolcall_sdk._client",
    "Attempt": "toolcall_sdk._results",
    "AttemptFailed": "toolcall_sdk._events",
    "AuthenticationError": "toolcall_sdk._errors",
    "ContentDelta": "toolcall_sdk._events",
    "ContextLengthExceededError": "toolcall_sdk._errors",
    "EmbeddingRouter": "toolcall_sdk._embedding_router",
    "FieldError": "toolcall_sdk._results",
    "HybridRouter": "toolcall_sdk._hybrid_router",
    "LLMRouter": "toolcall_sdk._routing",
    "MalformedResponseError": "toolcall_sdk._errors",
    "MissingDependencyError": "toolcall_sdk._extras",
    "ModelNotFoundError": "toolcall_sdk._errors",
    "ModelRetry": "toolcall_sdk._errors",
    "NeverRouter": "toolcall_sdk._routing",
    "Problem": "toolcall_sdk._results",
    "PromptEmbedsError": "toolcall_sdk._errors",
    "RateLimitedError": "toolcall_sdk._errors",
    "RequestRejectedError": "toolcall_sdk._errors",
    "RequestSummary": "toolcall_sdk._results",
    "RetryPolicy": "toolcall_sdk._transport",
    "RouteDecision": "toolcall_sdk._routing",
    "Router": "toolcall_sdk._routing",
    "RouterError": "toolcall_sdk._errors",
    "ServerConnectionError": "toolcall_sdk._errors",
    "ServerError": "toolcall_sdk._errors",
    "ServerTimeoutError": "toolcall_sdk._errors",
    "ServerUnavailableError": "toolcall_sdk._errors",
    "StreamCompleted": "toolcall_sdk._events",
    "StrictSchemaError": "toolcall_sdk._errors",
    "Tool": "toolcall_sdk._tools",
    "ToolArgumentsDelta": "toolcall_sdk._events",
    "ToolCall": "toolcall_sdk._results",
    "ToolCallClient": "toolcall_sdk._client",
    "ToolCallError": "toolcall_sdk._errors",
    "ToolCallEvent": "toolcall_sdk._events",
    "ToolCallFailed": "toolcall_sdk._errors",
    "ToolCallResult": "toolcall_sdk._results",
    "ToolCallStarted": "toolcall_sdk._events",
    "ToolCallValidated": "toolcall_sdk._events",
    "ToolDefinitionError": "toolcall_sdk._errors",
    "ToolExecutionError": "toolcall_sdk._errors",
    "TransportError": "toolcall_sdk._errors",
    "Usage": "toolcall_sdk._results",
    "to_strict_schema": "toolcall_sdk._schema",
    "tool": "toolcall_sdk._tools",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolcall_sdk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "AlwaysRouter",
    "AsyncToolCallClient",
    "Attempt",
    "AttemptFailed",
    "AuthenticationError",
    "ContentDelta",
    "ContextLengthExceededError",
    "EmbeddingRouter",
    "FieldError",
    "HybridRouter",
    "LLMRouter",
    "MalformedResponseError",
    "MissingDependencyError",
    "ModelNotFoundError",
    "ModelRetry",
    "NeverRouter",
    "Problem",
    "PromptEmbedsError",
    "RateLimitedError",
    "RequestRejectedError",
    "RequestSummary",
    "RetryPolicy",
    "RouteDecision",
    "Router",
    "RouterError",
    "ServerConnectionError",
    "ServerError",
    "ServerTimeoutError",
    "ServerUnavailableError",
    "StreamCompleted",
    "StrictSchemaError",
    "Tool",
    "ToolArgumentsDelta",
    "ToolCall",
    "ToolCallClient",
    "ToolCallError",
    "ToolCallEvent",
    "ToolCallFailed",
    "ToolCallResult",
    "ToolCallStarted",
    "ToolCallValidated",
    "ToolDefinitionError",
    "ToolExecutionError",
    "TransportError",
    "Usage",
    "__version__",
    "to_strict_schema",
    "tool",
]
