"""Ready pipeline clients, one per tool set and options, over one upstream connection pool.

Building a client turns each tool's JSON Schema into a Pydantic model and its strict form;
agents send the same tools with every turn, so the client is kept, keyed by the canonical
JSON of what defines it (`ToolRequest.client_key`). All of them send through the proxy's one
`httpx2.AsyncClient`, so the upstream sees one pool of connections whatever the mix.

The definitions are the caller's, unchecked: a schema the SDK cannot compile is the caller's
error (HTTP 400 naming the tool), never the proxy's (500).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import httpx2

from toolcall_sdk import AsyncToolCallClient, ToolCallError, ToolDefinitionError, tool_from_openai
from toolcall_sdk._schema_tools import SchemaTool
from toolcall_sdk.proxy._options import ProxyConfig
from toolcall_sdk.proxy._request import BadRequest, ToolRequest

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
            BadRequest: A tool definition cannot become a tool (bad schema), naming it.
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
        tools = [_tool(index, definition) for index, definition in enumerate(request.tools)]
        try:
            return self._client(request, tools, api_key, headers, options)
        except ToolDefinitionError as exc:
            raise BadRequest(str(exc), param="tools") from exc
        except ToolCallError as exc:  # an option the client refuses; the message names it
            raise BadRequest(str(exc)) from exc
        except Exception as exc:  # as in _tool, should the client compile more than it does
            raise BadRequest(
                f"the tools' schemas cannot be used ({_reason(exc)}); fix them", param="tools"
            ) from exc

    def _client(
        self,
        request: ToolRequest,
        tools: list[SchemaTool],
        api_key: str,
        headers: dict[str, str],
        options: dict[str, Any],
    ) -> AsyncToolCallClient:
        return AsyncToolCallClient(
            list(self._config.upstreams),
            model=request.model,
            tools=tools,
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
            # The proxy's --timeout bounds the caller's whole request: without this an
            # answer that streams on and on would be read for the SDK's default 600 s.
            deadline=self._config.timeout,
            http_client=self._http_client(),
            grounding=self._config.grounding or False,
            call_tags=self._config.call_tags,
            listed_values=self._config.listed_values,
            optional_values=self._config.optional_values,
            record=self._config.recorder,
            **options,
        )


def _tool(index: int, definition: dict[str, Any]) -> SchemaTool:
    """The caller's `tools[index]` as an SDK tool.

    Raises:
        BadRequest: It cannot become one.
    """
    try:
        tool = tool_from_openai(definition)
        # The client compiles the strict form too, but for all tools at once: compiled
        # here, a fault in it is pinned on its tool.
        tool.openai_schema(strict=True)
    except Exception as exc:
        # Compiling walks the schema taking each keyword to have its JSON Schema type, and
        # Pydantic refuses impossible bounds: an AttributeError (`properties` a list), a
        # TypeError (`required: 5`), a pydantic_core.SchemaError (`multipleOf: 0`), a
        # KeyError (`allOf` an object) ... is the schema's fault, and the caller's to fix,
        # whether or not the SDK wrapped it in a ToolDefinitionError.
        cause = exc.__cause__ if isinstance(exc, ToolDefinitionError) else exc
        if not isinstance(cause, Exception) or isinstance(cause, ToolCallError):
            raise BadRequest(f"tools[{index}]: {exc}", param=f"tools[{index}]") from exc
        name = definition["function"]["name"]
        raise BadRequest(
            f"tools[{index}] ({name!r}): function.parameters is not a JSON Schema the proxy "
            f"can use ({_reason(cause)}); fix the schema",
            param=f"tools[{index}]",
        ) from exc
    return tool


def _reason(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    if len(lines) > 1:
        # Pydantic's schema errors nest one line per level; the last one says what is wrong.
        return lines[-1].strip()
    return f"{type(exc).__name__}: {lines[0] if lines else 'no detail'}"


def _credentials(authorization: str | None) -> tuple[str, dict[str, str]]:
    """The openai client's `api_key` and headers that send `authorization` unchanged."""
    if authorization is None:
        return _NO_KEY, {}
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip(), {}
    # Another scheme (Basic, a gateway's own): the header itself overrides the bearer one.
    return _NO_KEY, {"Authorization": authorization}
