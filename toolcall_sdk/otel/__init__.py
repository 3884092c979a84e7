"""OpenTelemetry tracing for the client: `OtelHook` (extra `otel`: `opentelemetry-api`).

    pip install "toolcall-sdk[otel]"        # from a checkout: pip install -e ".[otel]"

```python
from toolcall_sdk import ToolCallClient
from toolcall_sdk.otel import OtelHook

client = ToolCallClient(base_url=..., model=..., tools=[...], hooks=[OtelHook()])
```

Each call becomes a span tree following the GenAI semantic conventions (the call, each
stage-2 attempt, each chat request, each tool execution), and each request carries W3C
`traceparent`, so a vLLM started with `--otlp-traces-endpoint` joins the trace. See
docs/observability.md.
"""

from toolcall_sdk._extras import require

require("opentelemetry.trace", extra="otel", feature="toolcall_sdk.otel")

from toolcall_sdk.otel._hook import OtelHook  # noqa: E402  (after the check that names the extra)

__all__ = ["OtelHook"]
