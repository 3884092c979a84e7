"""`ToolCallClient` and `AsyncToolCallClient`: the pipeline over the official openai client.

Both twins share `_ClientCore` (configuration, request bookkeeping, reading answers) and
the I/O-free pipeline and stream translation; only sending requests, running functions and
consulting routers differ. `call()`, `run()` and `stream()` all go through one effect loop
per twin (`_events`): `call()` keeps only its last event, `stream()` yields them all.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import os
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import Any, Literal

import httpx2
import openai

from toolcall_sdk._embeds_client import EmbedsCompletion, EmbedsSupport
from toolcall_sdk._errors import (
    MalformedResponseError,
    ModelRetry,
    RouterError,
    ToolCallFailed,
    ToolDefinitionError,
)
from toolcall_sdk._events import StreamCompleted, ToolCallEvent
from toolcall_sdk._history import normalize_history
from toolcall_sdk._messages import MessagesInput, to_messages
from toolcall_sdk._pipeline import (
    STAGE_CALL,
    STAGE_ROUTE,
    TOOL_CHOICES,
    Answer,
    ChatRequest,
    Config,
    Execute,
    Notify,
    Outcome,
    RouteQuery,
    flow,
)
from toolcall_sdk._results import ToolCallResult, Usage
from toolcall_sdk._routing import STAGE_HEADER, RouteDecision, RouterSpec, resolve_router
from toolcall_sdk._streaming import AnswerEvents, StreamAccumulator
from toolcall_sdk._tools import Tool, as_tool
from toolcall_sdk._transport import (
    RetryPolicy,
    async_retrying,
    retrying,
    translate_error,
)
from toolcall_sdk.parsing import format_for

__all__ = ["AsyncToolCallClient", "ToolCallClient"]

logger = logging.getLogger("toolcall_sdk")

DEFAULT_BASE_URL = "http://localhost:8000/v1"
# vLLM accepts any key unless started with --api-key; the openai client insists on one.
_PLACEHOLDER_KEY = "EMPTY"

Escalation = Callable[[ToolCallFailed], ToolCallResult | Awaitable[ToolCallResult]]
ToolChoice = Literal["required", "auto"]
# What `stream()`'s effect loop hands on: events, and the answer that ends a request.
_Live = ToolCallEvent | Answer


class _ClientCore:
    def __init__(
        self,
        *,
        model: str,
        tools: Iterable[Any],
        base_url: str | Sequence[str] | None,
        api_key: str | None,
        max_retries: int,
        router: RouterSpec,
        strict: bool,
        temperature: float | None,
        max_tokens: int | None,
        parallel_tool_calls: bool | None,
        timeout: float,
        retry: RetryPolicy | None,
        validation_context: Any,
        on_escalate: Escalation | None,
        extra_body: Mapping[str, Any] | None,
        default_headers: Mapping[str, str] | None,
        recover: bool,
        tool_choice: ToolChoice,
        hidden_size: int | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if tool_choice not in TOOL_CHOICES:
            raise ValueError(
                f"tool_choice must be one of {', '.join(map(repr, TOOL_CHOICES))} "
                f"(got {tool_choice!r}); use 'auto' for servers without 'required' support"
            )
        if not isinstance(recover, bool):
            raise ValueError(f"recover must be True or False (got {recover!r})")
        if not model:
            raise ValueError("model is required: the name the server serves the model under")
        tool_list = [as_tool(item) for item in tools]
        by_name: dict[str, Tool[..., Any]] = {}
        for item in tool_list:
            if item.name in by_name:
                raise ToolDefinitionError(
                    f"two tools are named {item.name!r}; tool names must be unique",
                    tool_name=item.name,
                )
            by_name[item.name] = item
        # Built once: a schema that cannot be made strict fails here, not mid-conversation.
        schemas = {name: t.openai_schema(strict=strict) for name, t in by_name.items()}
        self._config = Config(
            model=model,
            tools=by_name,
            schemas=schemas,
            router=resolve_router(router),
            max_retries=max_retries,
            temperature=temperature,
            max_tokens=max_tokens,
            parallel_tool_calls=parallel_tool_calls,
            extra_body=extra_body,
            validation_context=validation_context,
            recover=recover,
            tool_choice=tool_choice,
        )
        # The format `stream()` reads leaked calls in: the model's own when its name tells,
        # else the first sign of any format in the text decides.
        self._content_format = format_for(model) or "auto"
        if base_url is None:
            base_url = os.environ.get("TOOLCALL_BASE_URL") or DEFAULT_BASE_URL
        self._base_urls = [base_url] if isinstance(base_url, str) else list(base_url)
        if not self._base_urls:
            raise ValueError("base_url must name at least one server")
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or _PLACEHOLDER_KEY
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._on_escalate = on_escalate
        self._default_headers = dict(default_headers or {})
        self._next_endpoint = itertools.count()
        self._embeds = EmbedsSupport(
            model=model,
            hidden_size=hidden_size,
            max_tokens=max_tokens,
            temperature=temperature,
            extra_body=extra_body,
        )

    @property
    def model(self) -> str:
        """The model name sent with every request."""
        return self._config.model

    @property
    def tools(self) -> list[Tool[..., Any]]:
        """The registered tools."""
        return list(self._config.tools.values())

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The `tools` entries as they are sent to the server."""
        return list(self._config.schemas.values())

    @property
    def base_urls(self) -> list[str]:
        """The servers this client talks to."""
        return list(self._base_urls)

    def _flow(
        self, messages: MessagesInput, *, execute: bool, context: Any
    ) -> Generator[Any, Any, ToolCallResult]:
        history = normalize_history(to_messages(messages), model=self._config.model)
        return flow(self._config, history, execute=execute, context=context)

    def _request_kwargs(self, request: ChatRequest, stream: bool) -> dict[str, Any]:
        kwargs = dict(request.params)
        kwargs["extra_headers"] = {STAGE_HEADER: request.stage}
        if stream:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    def _answer_events(self, request: ChatRequest) -> AnswerEvents:
        # Plain answers are text the user asked for: never searched for calls (as in call()).
        reads_calls = request.stage == STAGE_CALL and self._config.recover
        return AnswerEvents(
            attempt=request.attempt,
            content_format=self._content_format if reads_calls else None,
        )

    def _endpoint_order(self) -> int:
        return next(self._next_endpoint) % len(self._base_urls)

    def _typed_error(self, exc: Exception, first: int, tries: int) -> Exception:
        if isinstance(exc, MalformedResponseError):
            return exc
        if not isinstance(exc, openai.APIError):  # a 200 whose body is not JSON
            return MalformedResponseError(
                f"the server's answer could not be read: {exc}", body=str(exc)[:500]
            )
        url = self._base_urls[(first + max(tries, 1) - 1) % len(self._base_urls)]
        return translate_error(exc, base_url=url, model=self.model, tries=tries)

    def _log_attempt(self, request: ChatRequest, answer: Answer) -> None:
        calls = answer.message.get("tool_calls") or []
        logger.debug(
            "%s request: finish=%s calls=%s %.3fs",
            request.stage,
            answer.finish_reason,
            [(c.get("function") or {}).get("name") for c in calls],
            answer.latency_s,
        )


def _answer_from_completion(completion: Any, latency: float) -> Answer:
    choices = getattr(completion, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        raise MalformedResponseError(
            "the server answered without a choice/message; it is not a chat completion",
            body=str(completion)[:500],
        )
    choice = choices[0]
    message = choice.message.model_dump(mode="json", exclude_none=True)
    message.setdefault("content", None)
    usage = getattr(completion, "usage", None)
    return Answer(
        message=message,
        finish_reason=choice.finish_reason,
        usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else Usage(),
        latency_s=latency,
    )


def _answer_from_stream(accumulator: StreamAccumulator, latency: float) -> Answer:
    if accumulator.chunks == 0:
        raise MalformedResponseError("the server closed the stream without sending a chunk")
    return Answer(
        message=accumulator.message(),
        finish_reason=accumulator.finish_reason,
        usage=accumulator.usage,
        latency_s=latency,
    )


def _broken_stream(exc: httpx2.TransportError) -> openai.APIError:
    if isinstance(exc, httpx2.TimeoutException):
        return openai.APITimeoutError(request=exc.request)
    return openai.APIConnectionError(request=exc.request)


def _final(events: Iterable[ToolCallEvent]) -> ToolCallResult:
    # Run the loop to its end (not just to the last event) so that it is finished, not
    # left suspended for the garbage collector to close.
    results = [event.result for event in events if isinstance(event, StreamCompleted)]
    return results[-1]


async def _afinal(events: AsyncIterator[ToolCallEvent]) -> ToolCallResult:
    results = [event.result async for event in events if isinstance(event, StreamCompleted)]
    return results[-1]


def _invoke_sync(effect: Execute) -> Outcome:
    try:
        value = effect.tool.invoke(effect.arguments)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))
    except ModelRetry as signal:
        return Outcome(retry_message=signal.message)
    except Exception as exc:
        logger.warning("tool %s raised %s: %s", effect.tool.name, type(exc).__name__, exc)
        return Outcome(error=exc)
    return Outcome(output=value)


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def _route_error(router: Any, exc: Exception) -> RouterError:
    name = getattr(router, "name", type(router).__name__)
    return RouterError(f"router {name!r} raised {type(exc).__name__}: {exc}")


class ToolCallClient(_ClientCore):
    """Reliable tool calls against an OpenAI-compatible server (vLLM first).

    Stage 1 decides whether a tool is needed; stage 2 forces the call
    (`tool_choice="required"`, or named when one tool is offered), validates the arguments
    with each tool's Pydantic model, sends specific feedback and retries at most
    `max_retries` times, then raises `ToolCallFailed` with every attempt. `stream()` does
    the same while yielding typed events for a UI (see `toolcall_sdk._events`).

    Args:
        base_url: The server's `/v1` URL, or a list of them (the client rotates between
            them and fails over on connection errors and 5xx). Defaults to
            `$TOOLCALL_BASE_URL` or `http://localhost:8000/v1`.
        model: The served model name.
        tools: Functions, `@tool` objects or Pydantic model classes.
        api_key: The server's key (vLLM `--api-key`); defaults to `$OPENAI_API_KEY`.
        max_retries: Feedback retries after the first stage-2 request.
        router: `"llm"` (ask the model), `"always"`, `"never"`, a router object or a
            callable `(messages, tools) -> bool | RouteDecision`.
        strict: Send strict-form schemas (the server then enforces them under `required`).
        temperature: Sampling temperature of every request (None: the server's default).
        max_tokens: Token limit of each answer (None: the server's default).
        parallel_tool_calls: Sent as is when set.
        timeout: Seconds per HTTP request.
        retry: Transport retry policy (429, 5xx, connection errors, timeouts).
        validation_context: Passed to Pydantic validators as `info.context`.
        on_escalate: Called with the `ToolCallFailed` when retries are exhausted; its
            return value (a `ToolCallResult`) replaces the exception.
        extra_body: Extra fields for every request body (e.g. vLLM sampling options).
        default_headers: Headers for every request.
        recover: Read calls back from the answer's text when the server returned none (a
            `--tool-call-parser` that does not match the model); such attempts are flagged
            `parser_miss`. False turns that off: the answer is then a `no_tool_call`.
        tool_choice: Stage 2's `tool_choice`: `"required"` (named when one tool is
            offered) or `"auto"`, for servers without `required` support; under `"auto"` a
            text answer with no call in it is fed back as `no_tool_call` and retried.
        openai_client: Your own `openai.OpenAI`; used with its retries switched off.
        http_client: An `httpx2.Client` for the openai client (proxies, tests).
        hidden_size: The served model's hidden size: `prompt_embeds` content parts and
            `complete_embeds()` tensors of another width are refused before sending
            (`PromptEmbedsError`). When None it is read from the model's `config.json` if
            the server's model folder is on this machine; see docs/prompt-embeds.md.
    """

    def __init__(
        self,
        base_url: str | Sequence[str] | None = None,
        *,
        model: str,
        tools: Iterable[Any] = (),
        api_key: str | None = None,
        max_retries: int = 2,
        router: RouterSpec = "llm",
        strict: bool = True,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        parallel_tool_calls: bool | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        validation_context: Any = None,
        on_escalate: Escalation | None = None,
        extra_body: Mapping[str, Any] | None = None,
        default_headers: Mapping[str, str] | None = None,
        recover: bool = True,
        tool_choice: ToolChoice = "required",
        openai_client: openai.OpenAI | None = None,
        http_client: httpx2.Client | None = None,
        hidden_size: int | None = None,
    ) -> None:
        if openai_client is not None and base_url is None:
            base_url = str(openai_client.base_url)
        super().__init__(
            model=model,
            tools=tools,
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            router=router,
            strict=strict,
            temperature=temperature,
            max_tokens=max_tokens,
            parallel_tool_calls=parallel_tool_calls,
            timeout=timeout,
            retry=retry,
            validation_context=validation_context,
            on_escalate=on_escalate,
            extra_body=extra_body,
            default_headers=default_headers,
            recover=recover,
            tool_choice=tool_choice,
            hidden_size=hidden_size,
        )
        if openai_client is not None:
            # One component counts attempts: the openai client's own retries are off.
            self._clients = [openai_client.with_options(max_retries=0)]
        else:
            self._clients = [
                openai.OpenAI(
                    base_url=url,
                    api_key=self._api_key,
                    max_retries=0,
                    timeout=timeout,
                    http_client=http_client,
                    default_headers=self._default_headers or None,
                )
                for url in self._base_urls
            ]

    def call(
        self, messages: MessagesInput, *, stream: bool = False, context: Any = None
    ) -> ToolCallResult:
        """Decide, call and validate; run nothing.

        Args:
            messages: A user message string, or a list of OpenAI chat messages.
            stream: Consume the server's stream; the result is the same as without.
            context: Validation context for this call (overrides the client's).

        Returns:
            The result: `.called`, `.calls` (validated), `.content`, `.attempts`.

        Raises:
            ToolCallFailed: No valid call within `max_retries + 1` stage-2 requests.
            TransportError: The server could not be used.
        """
        self._embeds.check(messages, self._clients[0])
        steps = self._flow(messages, execute=False, context=context)
        return _final(self._events(steps, stream=stream, live=False))

    def run(
        self, messages: MessagesInput, *, stream: bool = False, context: Any = None
    ) -> ToolCallResult:
        """Like `call()`, then run each validated call's function exactly once.

        Each call gets `.output` (or `.error` if its function raised). A function that
        raises `ModelRetry` sends its message back to the model for another attempt.
        """
        self._embeds.check(messages, self._clients[0])
        steps = self._flow(messages, execute=True, context=context)
        return _final(self._events(steps, stream=stream, live=False))

    def stream(self, messages: MessagesInput, *, context: Any = None) -> Iterator[ToolCallEvent]:
        """Like `call()`, as events a UI can show while the model writes.

        The stage-2 (or plain answer) requests are streamed. Yields `ContentDelta`,
        `ToolCallStarted` and `ToolArgumentsDelta` as the text arrives (a call the server's
        parser left in the text is announced as a call, never as text), `AttemptFailed`
        when an answer is rejected, `ToolCallValidated` per accepted call, and last a
        `StreamCompleted` whose `.result` equals what `call()` returns. A transport failure
        before the first chunk is retried like any request; one after it is raised, since
        part of the answer was already shown.

        Args:
            messages: A user message string, or a list of OpenAI chat messages.
            context: Validation context for this call (overrides the client's).

        Yields:
            The events, in order.

        Raises:
            ToolCallFailed: No valid call within `max_retries + 1` stage-2 requests (after
                the last `AttemptFailed`), unless `on_escalate` gives a result.
            TransportError: The server could not be used.
        """
        self._embeds.check(messages, self._clients[0])
        steps = self._flow(messages, execute=False, context=context)
        return self._events(steps, stream=True, live=True)

    def complete_embeds(
        self,
        prompt_embeds: Any,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: str | Sequence[str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> EmbedsCompletion:
        """Complete a prompt given as embeddings, through the Completions API.

        No chat template is applied: the tensor must embed the whole templated prompt
        (`toolcall_sdk.embeds.templated_embeds`). It is checked first (see `hidden_size`).

        Args:
            prompt_embeds: A `(num_tokens, hidden_size)` tensor, or its wire string.
            max_tokens: Token limit of the answer (default: the client's).
            temperature: Sampling temperature (default: the client's).
            stop: Stop sequences.
            extra_body: Extra request fields, over the client's.

        Returns:
            The completion: `.text`, `.finish_reason`, `.usage`.

        Raises:
            PromptEmbedsError: The tensor was refused; nothing was sent.
            TransportError: The server could not be used.
        """
        return self._embeds.complete(
            self._clients,
            self._base_urls,
            self._retry,
            prompt_embeds,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            extra_body=extra_body,
        )

    def close(self) -> None:
        """Close the HTTP connections."""
        for client in self._clients:
            client.close()

    def __enter__(self) -> ToolCallClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _events(
        self, steps: Generator[Any, Any, ToolCallResult], *, stream: bool, live: bool
    ) -> Iterator[ToolCallEvent]:
        """Carry out the pipeline's effects; `live` streams answers as events."""
        try:
            effect = next(steps)
            while True:
                value: Any = None
                if isinstance(effect, ChatRequest):
                    if live and effect.stage != STAGE_ROUTE:
                        for item in self._send_live(effect):
                            if isinstance(item, Answer):
                                value = item
                            else:
                                yield item
                    else:
                        value = self._send(effect, stream and effect.stage != STAGE_ROUTE)
                elif isinstance(effect, Notify):
                    if live:
                        yield effect.event
                elif isinstance(effect, RouteQuery):
                    value = self._ask_router(effect)
                else:
                    value = _invoke_sync(effect)
                effect = steps.send(value)
        except StopIteration as done:
            result: ToolCallResult = done.value
        except ToolCallFailed as failed:
            if self._on_escalate is None:
                raise
            fallback = self._on_escalate(failed)
            if inspect.isawaitable(fallback):
                fallback = asyncio.run(_awaited(fallback))
            result = fallback
        yield StreamCompleted(result)

    def _ask_router(self, query: RouteQuery) -> RouteDecision | bool:
        try:
            value = query.router.decide(query.messages, query.tools)
        except Exception as exc:
            raise _route_error(query.router, exc) from exc
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise RouterError("this router is async: use AsyncToolCallClient with it")
        return value  # type: ignore[no-any-return]

    def _send(self, request: ChatRequest, stream: bool) -> Answer:
        kwargs = self._request_kwargs(request, stream)
        first = self._endpoint_order()
        tries = 0
        started = time.monotonic()

        def once() -> Answer:
            nonlocal tries
            index = (first + tries) % len(self._clients)
            tries += 1
            client = self._clients[index]
            if stream:
                accumulator = StreamAccumulator()
                try:
                    for chunk in client.chat.completions.create(**kwargs):
                        accumulator.add(chunk)
                except httpx2.TransportError as exc:
                    raise openai.APIConnectionError(request=exc.request) from exc
                return _answer_from_stream(accumulator, time.monotonic() - started)
            completion = client.chat.completions.create(**kwargs)
            return _answer_from_completion(completion, time.monotonic() - started)

        try:
            answer: Answer = retrying(self._retry)(once)
        except (openai.APIError, ValueError) as exc:
            raise self._typed_error(exc, first, tries) from exc
        self._log_attempt(request, answer)
        return answer

    def _send_live(self, request: ChatRequest) -> Iterator[_Live]:
        """Stream one request: its events as chunks arrive, then its `Answer`."""
        kwargs = self._request_kwargs(request, stream=True)
        first = self._endpoint_order()
        tries = 0
        started = time.monotonic()
        events = self._answer_events(request)

        def open_stream() -> Any:
            nonlocal tries
            client = self._clients[(first + tries) % len(self._clients)]
            tries += 1
            return client.chat.completions.create(**kwargs)

        try:
            # Retried until the stream opens; once chunks are shown, a break is raised.
            with retrying(self._retry)(open_stream) as chunks:
                for chunk in chunks:
                    yield from events.add(chunk)
        except httpx2.TransportError as exc:
            raise self._typed_error(_broken_stream(exc), first, tries) from exc
        except (openai.APIError, ValueError) as exc:
            raise self._typed_error(exc, first, tries) from exc
        yield from events.close()
        answer = _answer_from_stream(events.accumulator, time.monotonic() - started)
        self._log_attempt(request, answer)
        yield answer


class AsyncToolCallClient(_ClientCore):
    """The async twin of `ToolCallClient`: same arguments, `await` on every method.

    Sync business functions run in a worker thread so they do not block the event loop;
    async ones are awaited. Routers may define `async adecide(messages, tools)`.
    """

    def __init__(
        self,
        base_url: str | Sequence[str] | None = None,
        *,
        model: str,
        tools: Iterable[Any] = (),
        api_key: str | None = None,
        max_retries: int = 2,
        router: RouterSpec = "llm",
        strict: bool = True,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        parallel_tool_calls: bool | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        validation_context: Any = None,
        on_escalate: Escalation | None = None,
        extra_body: Mapping[str, Any] | None = None,
        default_headers: Mapping[str, str] | None = None,
        recover: bool = True,
        tool_choice: ToolChoice = "required",
        openai_client: openai.AsyncOpenAI | None = None,
        http_client: httpx2.AsyncClient | None = None,
        hidden_size: int | None = None,
    ) -> None:
        if openai_client is not None and base_url is None:
            base_url = str(openai_client.base_url)
        super().__init__(
            model=model,
            tools=tools,
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            router=router,
            strict=strict,
            temperature=temperature,
            max_tokens=max_tokens,
            parallel_tool_calls=parallel_tool_calls,
            timeout=timeout,
            retry=retry,
            validation_context=validation_context,
            on_escalate=on_escalate,
            extra_body=extra_body,
            default_headers=default_headers,
            recover=recover,
            tool_choice=tool_choice,
            hidden_size=hidden_size,
        )
        if openai_client is not None:
            self._clients = [openai_client.with_options(max_retries=0)]
        else:
            self._clients = [
                openai.AsyncOpenAI(
                    base_url=url,
                    api_key=self._api_key,
                    max_retries=0,
                    timeout=timeout,
                    http_client=http_client,
                    default_headers=self._default_headers or None,
                )
                for url in self._base_urls
            ]

    async def call(
        self, messages: MessagesInput, *, stream: bool = False, context: Any = None
    ) -> ToolCallResult:
        """Async `ToolCallClient.call`."""
        await self._embeds.acheck(messages, self._clients[0])
        steps = self._flow(messages, execute=False, context=context)
        return await _afinal(self._events(steps, stream=stream, live=False))

    async def run(
        self, messages: MessagesInput, *, stream: bool = False, context: Any = None
    ) -> ToolCallResult:
        """Async `ToolCallClient.run`."""
        await self._embeds.acheck(messages, self._clients[0])
        steps = self._flow(messages, execute=True, context=context)
        return await _afinal(self._events(steps, stream=stream, live=False))

    def stream(
        self, messages: MessagesInput, *, context: Any = None
    ) -> AsyncIterator[ToolCallEvent]:
        """`ToolCallClient.stream` as an async iterator: `async for event in client.stream(...)`."""
        steps = self._flow(messages, execute=False, context=context)
        events = self._events(steps, stream=True, live=True)
        return self._embeds.guarded(messages, self._clients[0], events)

    async def complete_embeds(
        self,
        prompt_embeds: Any,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: str | Sequence[str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> EmbedsCompletion:
        """Async `ToolCallClient.complete_embeds`."""
        return await self._embeds.acomplete(
            self._clients,
            self._base_urls,
            self._retry,
            prompt_embeds,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            extra_body=extra_body,
        )

    async def close(self) -> None:
        """Close the HTTP connections."""
        for client in self._clients:
            await client.close()

    async def aclose(self) -> None:
        """Alias of `close()`."""
        await self.close()

    async def __aenter__(self) -> AsyncToolCallClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _events(
        self, steps: Generator[Any, Any, ToolCallResult], *, stream: bool, live: bool
    ) -> AsyncIterator[ToolCallEvent]:
        """Carry out the pipeline's effects; `live` streams answers as events."""
        try:
            effect = next(steps)
            while True:
                value: Any = None
                if isinstance(effect, ChatRequest):
                    if live and effect.stage != STAGE_ROUTE:
                        async for item in self._send_live(effect):
                            if isinstance(item, Answer):
                                value = item
                            else:
                                yield item
                    else:
                        value = await self._send(effect, stream and effect.stage != STAGE_ROUTE)
                elif isinstance(effect, Notify):
                    if live:
                        yield effect.event
                elif isinstance(effect, RouteQuery):
                    value = await self._ask_router(effect)
                else:
                    value = await self._invoke(effect)
                effect = steps.send(value)
        except StopIteration as done:
            result: ToolCallResult = done.value
        except ToolCallFailed as failed:
            if self._on_escalate is None:
                raise
            fallback = self._on_escalate(failed)
            if inspect.isawaitable(fallback):
                fallback = await fallback
            result = fallback
        yield StreamCompleted(result)

    async def _ask_router(self, query: RouteQuery) -> RouteDecision | bool:
        router = query.router
        try:
            if hasattr(router, "adecide"):
                value = await router.adecide(query.messages, query.tools)
            else:
                value = router.decide(query.messages, query.tools)
                if inspect.isawaitable(value):
                    value = await value
        except Exception as exc:
            raise _route_error(router, exc) from exc
        return value  # type: ignore[no-any-return]

    async def _invoke(self, effect: Execute) -> Outcome:
        try:
            if effect.tool.is_async:
                value = await effect.tool.invoke(effect.arguments)
            else:
                value = await asyncio.to_thread(effect.tool.invoke, effect.arguments)
                if inspect.isawaitable(value):
                    value = await value
        except ModelRetry as signal:
            return Outcome(retry_message=signal.message)
        except Exception as exc:
            logger.warning("tool %s raised %s: %s", effect.tool.name, type(exc).__name__, exc)
            return Outcome(error=exc)
        return Outcome(output=value)

    async def _send(self, request: ChatRequest, stream: bool) -> Answer:
        kwargs = self._request_kwargs(request, stream)
        first = self._endpoint_order()
        tries = 0
        started = time.monotonic()

        async def once() -> Answer:
            nonlocal tries
            index = (first + tries) % len(self._clients)
            tries += 1
            client = self._clients[index]
            if stream:
                accumulator = StreamAccumulator()
                try:
                    async for chunk in await client.chat.completions.create(**kwargs):
                        accumulator.add(chunk)
                except httpx2.TransportError as exc:
                    raise openai.APIConnectionError(request=exc.request) from exc
                return _answer_from_stream(accumulator, time.monotonic() - started)
            completion = await client.chat.completions.create(**kwargs)
            return _answer_from_completion(completion, time.monotonic() - started)

        try:
            answer: Answer = await async_retrying(self._retry)(once)
        except (openai.APIError, ValueError) as exc:
            raise self._typed_error(exc, first, tries) from exc
        self._log_attempt(request, answer)
        return answer

    async def _send_live(self, request: ChatRequest) -> AsyncIterator[_Live]:
        """Stream one request: its events as chunks arrive, then its `Answer`."""
        kwargs = self._request_kwargs(request, stream=True)
        first = self._endpoint_order()
        tries = 0
        started = time.monotonic()
        events = self._answer_events(request)

        async def open_stream() -> Any:
            nonlocal tries
            client = self._clients[(first + tries) % len(self._clients)]
            tries += 1
            return await client.chat.completions.create(**kwargs)

        try:
            # Retried until the stream opens; once chunks are shown, a break is raised.
            async with await async_retrying(self._retry)(open_stream) as chunks:
                async for chunk in chunks:
                    for event in events.add(chunk):
                        yield event
        except httpx2.TransportError as exc:
            raise self._typed_error(_broken_stream(exc), first, tries) from exc
        except (openai.APIError, ValueError) as exc:
            raise self._typed_error(exc, first, tries) from exc
        for event in events.close():
            yield event
        answer = _answer_from_stream(events.accumulator, time.monotonic() - started)
        self._log_attempt(request, answer)
        yield answer
