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
    from toolcall_sdk._balancer import BalancePolicy, ServerState
    from toolcall_sdk._client import (
        AsyncToolCallClient,
        ToolCallClient,
    )
    from toolcall_sdk._context import RunContext
    from toolcall_sdk._example_bank import ExampleBank
    from toolcall_sdk._extras import MissingDependencyError, install_command
    from toolcall_sdk._metrics import ClientMetrics
    from toolcall_sdk._recorder import TrafficRecorder
    from toolcall_sdk._results import (
        Attempt,
        FieldError,
        PendingCall,
        Problem,
        RequestSummary,
        Step,
        ToolCall,
        ToolCallResult,
        Usage,
    )
    from toolcall_sdk._resume_ledger import (
        InMemoryResumeLedger,
        ResumeLedger,
        SQLiteResumeLedger,
    )
    from toolcall_sdk._schema import to_strict_schema
    from toolcall_sdk._schema_tools import tool_from_openai
    from toolcall_sdk._tools import (
        Tool,
        tool,
    )
    from toolcall_sdk._transport import RetryPolicy
    from toolcall_sdk.errors import (
        AlreadyResumed,
        ApprovalRequired,
        AuthenticationError,
        ClientClosedError,
        ContextLengthExceededError,
        DeadlineExceededError,
        EndpointNotFoundError,
        ExamplesError,
        InvalidArgumentError,
        LoopDetected,
        MalformedResponseError,
        MaxStepsExceeded,
        ModelNotFoundError,
        ModelRetry,
        NoAnswerError,
        PromptEmbedsError,
        RateLimitedError,
        RequestRejectedError,
        ResponseTooLargeError,
        ResumeError,
        RouterError,
        RunStopped,
        ServerConnectionError,
        ServerError,
        ServerTimeoutError,
        ServerUnavailableError,
        StrictSchemaError,
        ToolCallError,
        ToolCallFailed,
        ToolDefinitionError,
        ToolExecutionError,
        ToolTimeoutError,
        ToolValidatorError,
        TransportError,
        UsageLimitExceeded,
    )
    from toolcall_sdk.events import (
        AttemptFailed,
        ContentDelta,
        StreamCompleted,
        ToolArgumentsDelta,
        ToolCallEvent,
        ToolCallStarted,
        ToolCallValidated,
    )
    from toolcall_sdk.grounding import Derived, Grounded, GroundingPolicy
    from toolcall_sdk.routing import (
        AlwaysRouter,
        EmbeddingRouter,
        HybridRouter,
        LLMRouter,
        NeverRouter,
        RouteDecision,
        Router,
    )

_LAZY: dict[str, str] = {
    "AlreadyResumed": "toolcall_sdk.errors",
    "AlwaysRouter": "toolcall_sdk.routing",
    "ApprovalRequired": "toolcall_sdk.errors",
    "AsyncToolCallClient": "toolcall_sdk._client",
    "Attempt": "toolcall_sdk._results",
    "AttemptFailed": "toolcall_sdk.events",
    "AuthenticationError": "toolcall_sdk.errors",
    "BalancePolicy": "toolcall_sdk._balancer",
    "ClientClosedError": "toolcall_sdk.errors",
    "ClientMetrics": "toolcall_sdk._metrics",
    "ContentDelta": "toolcall_sdk.events",
    "ContextLengthExceededError": "toolcall_sdk.errors",
    "DeadlineExceededError": "toolcall_sdk.errors",
    "Derived": "toolcall_sdk.grounding",
    "EmbeddingRouter": "toolcall_sdk.routing",
    "EndpointNotFoundError": "toolcall_sdk.errors",
    "ExampleBank": "toolcall_sdk._example_bank",
    "ExamplesError": "toolcall_sdk.errors",
    "FieldError": "toolcall_sdk._results",
    "Grounded": "toolcall_sdk.grounding",
    "GroundingPolicy": "toolcall_sdk.grounding",
    "HybridRouter": "toolcall_sdk.routing",
    "InMemoryResumeLedger": "toolcall_sdk._resume_ledger",
    "InvalidArgumentError": "toolcall_sdk.errors",
    "LLMRouter": "toolcall_sdk.routing",
    "LoopDetected": "toolcall_sdk.errors",
    "MalformedResponseError": "toolcall_sdk.errors",
    "MaxStepsExceeded": "toolcall_sdk.errors",
    "MissingDependencyError": "toolcall_sdk._extras",
    "ModelNotFoundError": "toolcall_sdk.errors",
    "ModelRetry": "toolcall_sdk.errors",
    "NeverRouter": "toolcall_sdk.routing",
    "NoAnswerError": "toolcall_sdk.errors",
    "PendingCall": "toolcall_sdk._results",
    "Problem": "toolcall_sdk._results",
    "PromptEmbedsError": "toolcall_sdk.errors",
    "RateLimitedError": "toolcall_sdk.errors",
    "RequestRejectedError": "toolcall_sdk.errors",
    "RequestSummary": "toolcall_sdk._results",
    "ResponseTooLargeError": "toolcall_sdk.errors",
    "ResumeError": "toolcall_sdk.errors",
    "ResumeLedger": "toolcall_sdk._resume_ledger",
    "RetryPolicy": "toolcall_sdk._transport",
    "RouteDecision": "toolcall_sdk.routing",
    "Router": "toolcall_sdk.routing",
    "RouterError": "toolcall_sdk.errors",
    "RunContext": "toolcall_sdk._context",
    "RunStopped": "toolcall_sdk.errors",
    "SQLiteResumeLedger": "toolcall_sdk._resume_ledger",
    "ServerConnectionError": "toolcall_sdk.errors",
    "ServerError": "toolcall_sdk.errors",
    "ServerState": "toolcall_sdk._balancer",
    "ServerTimeoutError": "toolcall_sdk.errors",
    "ServerUnavailableError": "toolcall_sdk.errors",
    "Step": "toolcall_sdk._results",
    "StreamCompleted": "toolcall_sdk.events",
    "StrictSchemaError": "toolcall_sdk.errors",
    "Tool": "toolcall_sdk._tools",
    "ToolArgumentsDelta": "toolcall_sdk.events",
    "ToolCall": "toolcall_sdk._results",
    "ToolCallClient": "toolcall_sdk._client",
    "ToolCallError": "toolcall_sdk.errors",
    "ToolCallEvent": "toolcall_sdk.events",
    "ToolCallFailed": "toolcall_sdk.errors",
    "ToolCallResult": "toolcall_sdk._results",
    "ToolCallStarted": "toolcall_sdk.events",
    "ToolCallValidated": "toolcall_sdk.events",
    "ToolDefinitionError": "toolcall_sdk.errors",
    "ToolExecutionError": "toolcall_sdk.errors",
    "ToolTimeoutError": "toolcall_sdk.errors",
    "ToolValidatorError": "toolcall_sdk.errors",
    "TrafficRecorder": "toolcall_sdk._recorder",
    "TransportError": "toolcall_sdk.errors",
    "Usage": "toolcall_sdk._results",
    "UsageLimitExceeded": "toolcall_sdk.errors",
    "install_command": "toolcall_sdk._extras",
    "to_strict_schema": "toolcall_sdk._schema",
    "tool": "toolcall_sdk._tools",
    "tool_from_openai": "toolcall_sdk._schema_tools",
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
    "AlreadyResumed",
    "AlwaysRouter",
    "ApprovalRequired",
    "AsyncToolCallClient",
    "Attempt",
    "AttemptFailed",
    "AuthenticationError",
    "BalancePolicy",
    "ClientClosedError",
    "ClientMetrics",
    "ContentDelta",
    "ContextLengthExceededError",
    "DeadlineExceededError",
    "Derived",
    "EmbeddingRouter",
    "EndpointNotFoundError",
    "ExampleBank",
    "ExamplesError",
    "FieldError",
    "Grounded",
    "GroundingPolicy",
    "HybridRouter",
    "InMemoryResumeLedger",
    "InvalidArgumentError",
    "LLMRouter",
    "LoopDetected",
    "MalformedResponseError",
    "MaxStepsExceeded",
    "MissingDependencyError",
    "ModelNotFoundError",
    "ModelRetry",
    "NeverRouter",
    "NoAnswerError",
    "PendingCall",
    "Problem",
    "PromptEmbedsError",
    "RateLimitedError",
    "RequestRejectedError",
    "RequestSummary",
    "ResponseTooLargeError",
    "ResumeError",
    "ResumeLedger",
    "RetryPolicy",
    "RouteDecision",
    "Router",
    "RouterError",
    "RunContext",
    "RunStopped",
    "SQLiteResumeLedger",
    "ServerConnectionError",
    "ServerError",
    "ServerState",
    "ServerTimeoutError",
    "ServerUnavailableError",
    "Step",
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
    "ToolTimeoutError",
    "ToolValidatorError",
    "TrafficRecorder",
    "TransportError",
    "Usage",
    "UsageLimitExceeded",
    "__version__",
    "install_command",
    "to_strict_schema",
    "tool",
    "tool_from_openai",
]
