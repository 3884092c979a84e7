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

from toolcall_sdk._client import AsyncToolCallClient, ToolCallClient
from toolcall_sdk._embedding_router import EmbeddingRouter
from toolcall_sdk._errors import (
    AuthenticationError,
    ContextLengthExceededError,
    MalformedResponseError,
    ModelNotFoundError,
    ModelRetry,
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
from toolcall_sdk._routing import AlwaysRouter, LLMRouter, NeverRouter, RouteDecision, Router
from toolcall_sdk._schema import to_strict_schema
from toolcall_sdk._tools import Tool, tool
from toolcall_sdk._transport import RetryPolicy
from toolcall_sdk._version import __version__

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
