"""`toolcall-sdk proxy`: the SDK's pipeline behind an OpenAI-compatible endpoint.

Any OpenAI-compatible client (the `openai` SDK, LangChain, openai-agents, pydantic-ai, curl)
points its `base_url` at the proxy instead of vLLM. A chat request that offers tools is
routed, forced, recovered, validated against its own JSON Schema and retried with feedback
out of the caller's sight; the caller gets one ordinary completion with validated
`tool_calls`, or HTTP 422 with the attempts summarised. Everything else is relayed byte for
byte. Needs the `proxy` extra: `pip install "toolcall-sdk[proxy]"` (from a checkout:
`pip install -e ".[proxy]"`).

```python
from toolcall_sdk.proxy import create_app, serve_proxy

serve_proxy("http://127.0.0.1:8000/v1", port=8100)      # blocking, like the CLI
app = create_app("http://127.0.0.1:8000/v1", router="always")  # an ASGI app
```

See docs/proxy.md.
"""

from toolcall_sdk._extras import require

for _module in ("starlette", "uvicorn", "prometheus_client"):
    require(_module, extra="proxy", feature="toolcall-sdk proxy")

from toolcall_sdk.proxy._app import create_app  # noqa: E402
from toolcall_sdk.proxy._completion import (  # noqa: E402
    HEADER_ATTEMPTS,
    HEADER_PARSER_MISS,
    HEADER_REPAIRS,
    HEADER_ROUTE,
    HEADER_ROUTE_BY,
)
from toolcall_sdk.proxy._options import (  # noqa: E402
    DEFAULT_HOST,
    DEFAULT_PORT,
    ProxyConfigError,
    ProxyOptions,
)
from toolcall_sdk.proxy._server import serve_in_thread, serve_proxy  # noqa: E402

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "HEADER_ATTEMPTS",
    "HEADER_PARSER_MISS",
    "HEADER_REPAIRS",
    "HEADER_ROUTE",
    "HEADER_ROUTE_BY",
    "ProxyConfigError",
    "ProxyOptions",
    "create_app",
    "serve_in_thread",
    "serve_proxy",
]
