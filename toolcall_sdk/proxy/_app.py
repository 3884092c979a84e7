"""The proxy's ASGI app: `/v1/chat/completions` through the pipeline, the rest relayed.

A chat request that offers tools is answered by an `AsyncToolCallClient` built for its tools
and options (see `_clients`), which routes, forces, recovers, validates and retries out of
the caller's sight; the caller gets one ordinary completion (or stream) with the validated
calls. Any other request, and a chat request without tools, is relayed byte for byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Unpack

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive

from toolcall_sdk import (
    AsyncToolCallClient,
    Attempt,
    ContentDelta,
    StreamCompleted,
    ToolCallError,
    ToolCallEvent,
    ToolCallFailed,
    ToolCallResult,
)
from toolcall_sdk.proxy._clients import ClientCache
from toolcall_sdk.proxy._completion import (
    Completion,
    ErrorReply,
    bad_request,
    chunk,
    completion_body,
    error_reply,
    route_of,
    sse,
    stream_chunks,
    summary_headers,
)
from toolcall_sdk.proxy._disconnect import CallerDisconnected, CallerStream, unless_disconnected
from toolcall_sdk.proxy._forward import Forwarder
from toolcall_sdk.proxy._metrics import CONTENT_TYPE, ProxyMetrics
from toolcall_sdk.proxy._options import ProxyConfig, ProxyOptions, resolve_config
from toolcall_sdk.proxy._request import (
    BadRequest,
    ToolRequest,
    has_tools,
    read_body,
    read_tool_request,
)

__all__ = ["create_app"]

# Toward the upstream. vLLM serves many requests at once; the cap only stops a runaway.
_POOL_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=200)
_SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
_KIND_TOOLS = "tools"
_KIND_PASSTHROUGH = "passthrough"
_DISCONNECTED = "disconnected"
# nginx's "client closed request": logged nowhere but in the metrics, as the caller is gone.
_CLIENT_CLOSED = 499


def create_app(upstream: str | Sequence[str], **options: Unpack[ProxyOptions]) -> Starlette:
    """Build the proxy's ASGI app (serve it with uvicorn, or `serve_proxy`).

    Args:
        upstream: The upstream's `/v1` URL, or several (failover and load spreading).
        **options: See `ProxyOptions`.

    Returns:
        The Starlette app; its `state.proxy` holds the metrics and the client cache.

    Raises:
        ProxyConfigError: An option is invalid.
    """
    proxy = _Proxy(resolve_config(upstream, options))
    app = Starlette(
        routes=[
            Route("/health", proxy.health, methods=["GET"]),
            Route("/metrics", proxy.metrics_endpoint, methods=["GET"]),
            Route("/v1/chat/completions", proxy.chat, methods=["POST"]),
            Route(
                "/v1/{path:path}",
                proxy.relay,
                methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            ),
        ],
        lifespan=proxy.lifespan,
    )
    app.state.proxy = proxy
    return app


class _Proxy:
    """The state one app shares between requests."""

    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        self.metrics = ProxyMetrics()
        self.forwarder = Forwarder(
            config.upstreams, upstream_api_key=config.upstream_api_key, timeout=config.timeout
        )
        self._own_client: httpx2.AsyncClient | None = None
        self.clients = ClientCache(config, self.http_client)

    def http_client(self) -> httpx2.AsyncClient:
        """The one connection pool toward the upstream(s), made on first use."""
        if self.config.http_client is not None:
            return self.config.http_client
        if self._own_client is None:
            self._own_client = httpx2.AsyncClient(timeout=self.config.timeout, limits=_POOL_LIMITS)
        return self._own_client

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        yield
        self.clients.clear()
        if self._own_client is not None:
            await self._own_client.aclose()
            self._own_client = None

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "upstreams": len(self.config.upstreams)})

    async def metrics_endpoint(self, request: Request) -> Response:
        denied = self._denied(request)
        if denied is not None:
            return denied
        return Response(self.metrics.render(), headers={"content-type": CONTENT_TYPE})

    async def relay(self, request: Request) -> Response:
        denied = self._denied(request)
        if denied is not None:
            return denied
        path = "/" + request.path_params["path"]
        started = time.perf_counter()
        try:
            return await self._pass_through(request, await request.body(), path, started)
        except CallerDisconnected:
            return self._gone(_KIND_PASSTHROUGH, started)

    async def chat(self, request: Request) -> Response:
        started = time.perf_counter()
        denied = self._denied(request)
        if denied is not None:
            return denied
        raw = await request.body()
        try:
            body = read_body(raw)
            if not has_tools(body):
                return await self._pass_through(request, raw, "/chat/completions", started)
            tool_request = read_tool_request(
                body, router=self.config.router, call_tool_choice=self.config.call_tool_choice
            )
            client = self.clients.get(tool_request, request.headers.get("authorization"))
        except BadRequest as exc:
            return self._error(bad_request(str(exc), param=exc.param), "bad_request", started)
        except CallerDisconnected:
            return self._gone(_KIND_PASSTHROUGH, started)
        try:
            if tool_request.stream:
                return await self._stream(client, tool_request, request.receive, started)
            return await self._complete(client, tool_request, request.receive, started)
        except CallerDisconnected:
            return self._gone(_KIND_TOOLS, started)

    async def _complete(
        self,
        client: AsyncToolCallClient,
        request: ToolRequest,
        receive: Receive,
        started: float,
    ) -> Response:
        try:
            result = await unless_disconnected(receive, client.call(request.messages))
        except ToolCallError as exc:
            return self._failure(exc, request, started)
        headers = self._succeeded(result, request, started)
        body = completion_body(result, Completion.new(request.model))
        return JSONResponse(body, headers=headers)

    async def _stream(
        self,
        client: AsyncToolCallClient,
        request: ToolRequest,
        receive: Receive,
        started: float,
    ) -> Response:
        events = client.stream(request.messages)
        # Nothing is sent until there is something true to send: the first words of a plain
        # answer, or a validated result. Until then a failure is still an ordinary error
        # response with its status.
        try:
            first = await unless_disconnected(receive, _first_sendable(events))
        except ToolCallError as exc:
            await _aclose(events)
            return self._failure(exc, request, started)
        except CallerDisconnected:
            await _aclose(events)
            raise
        completion = Completion.new(request.model)
        if isinstance(first, StreamCompleted):
            await _aclose(events)
            headers = self._succeeded(first.result, request, started)
            chunks = list(
                stream_chunks(
                    first.result, completion, include_usage=request.include_usage, opened=False
                )
            )
            return CallerStream(_replay(chunks), headers={**_SSE_HEADERS, **headers})
        headers = summary_headers([], route="no_call", route_by=request.route_by)
        ending = _Ending(lambda: _aclose(events), self._recorder(_KIND_TOOLS, started))
        body = self._text_stream(events, first, completion, request, ending)
        return CallerStream(body, headers={**_SSE_HEADERS, **headers}, on_close=ending)

    async def _text_stream(
        self,
        events: AsyncIterator[ToolCallEvent],
        first: ContentDelta,
        completion: Completion,
        request: ToolRequest,
        ending: _Ending,
    ) -> AsyncIterator[bytes]:
        """A plain answer, relayed as the upstream writes it."""
        outcome = "upstream_error"
        try:
            yield chunk(completion, {"role": "assistant", "content": ""})
            yield chunk(completion, {"content": first.text})
            result: ToolCallResult | None = None
            async for event in events:
                if isinstance(event, ContentDelta) and event.text:
                    yield chunk(completion, {"content": event.text})
                elif isinstance(event, StreamCompleted):
                    result = event.result
            assert result is not None  # the event stream always ends with its result
            self.metrics.routes.labels(route=route_of(result), by=request.route_by).inc()
            for part in stream_chunks(
                result, completion, include_usage=request.include_usage, opened=True
            ):
                yield part
            outcome = "ok"
        except ToolCallError as exc:
            # The status is sent; the openai client raises on an `error` event.
            self.metrics.failures.labels(failure=type(exc).__name__).inc()
            yield sse(error_reply(exc).body)
        except (asyncio.CancelledError, GeneratorExit):
            outcome = _DISCONNECTED  # the caller hung up (see CallerStream)
            raise
        finally:
            await ending(outcome)

    def _succeeded(
        self, result: ToolCallResult, request: ToolRequest, started: float
    ) -> dict[str, str]:
        route = route_of(result)
        self.metrics.routes.labels(route=route, by=request.route_by).inc()
        self.metrics.record_attempts(result.attempts)
        self.metrics.finish(_KIND_TOOLS, "ok", time.perf_counter() - started)
        return summary_headers(result.attempts, route=route, route_by=request.route_by)

    def _failure(self, exc: ToolCallError, request: ToolRequest, started: float) -> Response:
        attempts: list[Attempt] = []
        if isinstance(exc, ToolCallFailed):
            attempts = exc.attempts
            self.metrics.routes.labels(route="call", by=request.route_by).inc()
            self.metrics.record_attempts(attempts)
            self.metrics.failures.labels(failure="retries_exhausted").inc()
            outcome = "tool_call_failed"
        else:
            self.metrics.failures.labels(failure=type(exc).__name__).inc()
            outcome = "upstream_error"
        headers = summary_headers(
            attempts, route="call" if attempts else "unknown", route_by=request.route_by
        )
        return self._error(error_reply(exc), outcome, started, headers=headers)

    def _error(
        self,
        reply: ErrorReply,
        outcome: str,
        started: float,
        *,
        headers: dict[str, str] | None = None,
        kind: str = _KIND_TOOLS,
    ) -> Response:
        self.metrics.finish(kind, outcome, time.perf_counter() - started)
        return JSONResponse(reply.body, status_code=reply.status, headers=headers)

    def _recorder(self, kind: str, started: float) -> Callable[[str], None]:
        """Counts the request, with its outcome, once its streamed answer has ended."""

        def record(outcome: str) -> None:
            self.metrics.finish(kind, outcome, time.perf_counter() - started)

        return record

    def _gone(self, kind: str, started: float) -> Response:
        """The caller hung up before its answer: the work was cancelled, nothing is sent."""
        self.metrics.finish(kind, _DISCONNECTED, time.perf_counter() - started)
        return Response(status_code=_CLIENT_CLOSED)

    async def _pass_through(
        self, request: Request, body: bytes, path: str, started: float
    ) -> Response:
        try:
            relayed = await unless_disconnected(
                request.receive,
                self.forwarder.send(
                    self.http_client(),
                    method=request.method,
                    path=path,
                    query=request.url.query,
                    headers=request.headers.items(),
                    body=body,
                ),
            )
        except httpx2.TransportError as exc:
            self.metrics.failures.labels(failure=type(exc).__name__).inc()
            status = 504 if isinstance(exc, httpx2.TimeoutException) else 502
            message = f"no upstream answered ({type(exc).__name__}: {exc})"
            reply = ErrorReply(
                status,
                {
                    "error": {
                        "message": message,
                        "type": "upstream_error",
                        "code": None,
                        "param": None,
                    }
                },
            )
            return self._error(reply, "upstream_error", started, kind=_KIND_PASSTHROUGH)

        # `async for` leaves an abandoned iterator open: the ending releases the upstream.
        ending = _Ending(relayed.aclose, self._recorder(_KIND_PASSTHROUGH, started))

        async def relay() -> AsyncIterator[bytes]:
            outcome = "upstream_error"
            try:
                async for part in relayed.body():
                    yield part
                outcome = "ok"
            except (asyncio.CancelledError, GeneratorExit):
                outcome = _DISCONNECTED  # the caller hung up (see CallerStream)
                raise
            finally:
                await ending(outcome)

        response = CallerStream(relay(), status_code=relayed.status, on_close=ending)
        # Set as a list: repeated headers (Set-Cookie) stay repeated.
        response.raw_headers = [
            (key.lower().encode("latin-1"), value.encode("latin-1"))
            for key, value in relayed.headers
        ]
        return response

    def _denied(self, request: Request) -> Response | None:
        key = self.config.api_key
        if key is None:
            return None
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), key.encode()):
            return None
        self.metrics.requests.labels(kind="auth", outcome="unauthorized").inc()
        body = {
            "error": {
                "message": "this proxy needs its API key: send Authorization: Bearer KEY",
                "type": "authentication_error",
                "code": "invalid_api_key",
                "param": None,
            }
        }
        return JSONResponse(body, status_code=401)


class _Ending:
    """What a streamed answer does once, however it ends: release its upstream response
    and count the request.

    The body's `finally` calls it with the outcome; `CallerStream` calls it again when the
    response stops, for a body that never started (the caller gone before the first byte),
    whose `finally` never runs.
    """

    def __init__(
        self, release: Callable[[], Awaitable[None]], record: Callable[[str], None]
    ) -> None:
        self._release = release
        self._record = record
        self._done = False

    async def __call__(self, outcome: str = _DISCONNECTED) -> None:
        if self._done:
            return
        self._done = True
        try:
            await self._release()
        finally:
            self._record(outcome)


async def _first_sendable(events: AsyncIterator[ToolCallEvent]) -> ContentDelta | StreamCompleted:
    """Read events up to the first plain-answer text, or the result."""
    async for event in events:
        if isinstance(event, ContentDelta) and event.attempt == 0 and event.text:
            return event
        if isinstance(event, StreamCompleted):
            return event
    raise AssertionError("the event stream ended without its result")  # pragma: no cover


async def _replay(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for part in chunks:
        yield part


async def _aclose(events: AsyncIterator[ToolCallEvent]) -> None:
    close = getattr(events, "aclose", None)
    if close is not None:
        await close()
