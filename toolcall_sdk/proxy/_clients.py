"""Ready pipeline clients, one per tool set and options, over one upstream connection pool.

Building a client turns each tool's JSON Schema into a Pydantic model and its strict form;
agents send the same tools with every turn, so the client is kept, keyed by the canonical
JSON of what defines it (`ToolRequest.client_key`). All of them send through the proxy's one
`httpx2.AsyncClient`, so the upstream sees one pool of connections whatever the mix.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import httpx2

from toolcall_sdk import AsyncToolCallClient, tool_from_openai
from toolcall_sdk.proxy._options import ProxyConfig
from toolcall_sdk.proxy._request import ToolRequest

__all__ = ["ClientCache"]

# vLLM accepts any key unless started with --api-key; the openai client insists on one.
_NO_KEY = "EMPTY"


class ClientCache:
    """The proxy's pipeline clients, least recently used dropped first.

    A dropped client is not closed: its connections belong to the shared pool.
    """

    def __init__(self, config: ProxyConfig, http_client: Callable[[], httpx2.AsyncClient]) -> None:
        self._config = config
        self._http_client = http_client
        self._clients: OrderedDict[str, AsyncToolCallClient] = OrderedDict()

    def __len__(self) -> int:
        return len(self._clients)

    def clear(self) -> None:
        """Forget every client (when the shared pool is closed)."""
        self._clients.clear()

    def get(self, request: ToolRequest, authorization: str | None) -> AsyncToolCallClient:
        """The client for `request`, built on first use.

        Raises:
            ToolDefinitionError: A tool definition cannot become a tool (bad schema).
        """
        if self._config.upstream_api_key is not None:
            authorization = f"Bearer {self._config.upstream_api_key}"
        key = request.client_key(authorization)
        client = self._clients.get(key)
        if client is not None:
            self._clients.move_to_end(key)
            return client
        client = self._build(request, authorization)
        self._clients[key] = client
        while len(self._clients) > self._config.max_clients:
            self._clients.popitem(last=False)
        return client

    def _build(self, request: ToolRequest, authorization: str | None) -> AsyncToolCallClient:
        api_key, headers = _credentials(authorization)
        options: dict[str, Any] = {}
        if self._config.retry is not None:
            options["retry"] = self._config.retry
        return AsyncToolCallClient(
            list(self._config.upstreams),
            model=request.model,
            tools=[tool_from_openai(definition) for definition in request.tools],
            api_key=api_key,
            max_retries=self._config.max_retries,
            router=request.router,
            tool_choice="auto" if request.call_tool_choice == "auto" else "required",
            temperature=request.temperature,
            max_tokens=request.max_tokens,
            parallel_tool_calls=request.parallel_tool_calls,
            extra_body=request.extra_body or None,
            default_headers=headers or None,
            timeout=self._config.timeout,
            http_client=self._http_client(),
            grounding=self._config.grounding or False,
            **options,
        )


def _credentials(authorization: str | None) -> tuple[str, dict[str, str]]:
    """The openai client's `api_key` and headers that send `authorization` unchanged."""
    if authorization is None:
        return _NO_KEY, {}
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip(), {}
    # Another scheme (Basic, a gateway's own): the header itself overrides the bearer one.
    return _NO_KEY, {"Authorization": authorization}
