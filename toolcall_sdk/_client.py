"""`ToolCallClient` and `AsyncToolCallClient`: the pipeline over the official openai client.

Both twins share `_ClientCore`: the options (declared once in `_options.ClientOptions`),
the configuration, request bookkeeping and reading answers, and the I/O-free pipeline
(`_pipeline.flow`) and stream translation (`_streaming`), and the sender (`_sender.send`:
failover, transport retries, leases, stream assembly, the deadline of every read, live
events), a generator each twin drives in `_exchange` by opening, reading and sleeping.
Each twin has one effect loop (`_events`) that dispatches the pipeline's typed effects
with `match`; `call()` keeps only the loop's last event, `stream()` yields them all.
`run()`, `resume()`, `stream_run()` and `stream_resume()` drive the agent loop
(`_run_loop.run_flow`) through the same effect loop; a resume first claims its state in
the client's `resume_ledger`.

The calls of one answer (`ExecuteMany`): the sync client runs them in order and stops at
the first `ModelRetry`; the async client runs them concurrently (sync functions each in a
worker thread), so all of them run. A tool with a `timeout` is waited for that long: an
async function is then cancelled, a sync one is left running in its daemon thread (a
thread cannot be stopped) and its result is dropped.

Async tools under the sync client: the coroutine runs on a private event loop, in this
thread when none is running here, else in a worker thread while the call blocks (the
sync client blocks its caller either way). Such a coroutine must not use objects bound
to the caller's loop; use `AsyncToolCallClient` inside async code.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
import logging
import threading
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
from typing import Any, NamedTuple, Unpack, assert_never, cast

import httpx2
import openai

from toolcall_sdk._balancer import BalancePolicy, Balancer, Pin, ServerState
from toolcall_sdk._body import Limits
from toolcall_sdk._errors import (
    AlreadyResumed,
    ClientClosedError,
    InvalidArgumentError,
    ModelRetry,
    ResumeError,
    RouterError,
    ToolCallError,
    ToolCallFailed,
    ToolDefinitionError,
)
from toolcall_sdk._events import (
    STREAMED_DECISIONS,
    STREAMED_RUN_DECISIONS,
    Operation,
    RunEvent,
    StreamCompleted,
    ToolCallEvent,
)
from toolcall_sdk._exchange import Exchange
from toolcall_sdk._history import normalize_history
from toolcall_sdk._loop_clients import LoopClients
from toolcall_sdk._messages import MessagesInput, to_messages
from toolcall_sdk._metrics import ClientMetrics, MetricsRecorder
from toolcall_sdk._observe import CallWatch, Hooks
from toolcall_sdk._options import (
    ClientOptions,
    RunOptions,
    api_key_for,
    base_urls_from,
    resolve_options,
    run_limits,
)
from toolcall_sdk._pipeline import (
    Answer,
    ChatRequest,
    Config,
    Effect,
    Execute,
    ExecuteMany,
    Notify,
    Outcome,
    RouteQuery,
    flow,
)
from toolcall_sdk._results import ToolCallResult
from toolcall_sdk._resume_ledger import InMemoryResumeLedger, claim_within
from toolcall_sdk._run_loop import run_flow
from toolcall_sdk._run_state import SavedRun, check_approvals, decode_state
from toolcall_sdk._sender import Open, Read, Sending, Show, Sleep, send
from toolcall_sdk._streaming import AnswerEvents
from toolcall_sdk._toolbox import as_tool
from toolcall_sdk._tools import Tool
from toolcall_sdk._traffic import Traffic, recorder_for
from toolcall_sdk._transport import RetryPolicy
from toolcall_sdk._watchdog import Watch, watch
from toolcall_sdk._wire import STAGE_CALL, STAGE_HEADER, STAGE_ROUTE
from toolcall_sdk.embeds._client import EmbedsCompletion, EmbedsSupport
from toolcall_sdk.grounding import GroundingSpec
from toolcall_sdk.grounding._policy import resolve_grounding
from toolcall_sdk.parsing import format_for
from toolcall_sdk.routing import RouteDecision, consult_async

__all__ = ["AsyncToolCallClient", "ToolCallClient"]

logger = logging.getLogger("toolcall_sdk")

# What the sender hands the effect loop: live events, and last the answer.
_Live = ToolCallEvent | Answer
Steps = Generator[Effect, Any, ToolCallResult]
# The pipeline's decisions a stream shows: a call's, or a run's (its steps and tools too).
_Shown = tuple[type[RunEvent], ...]


class _ClientCore:
    """Everything the twins share; no I/O."""

    def __init__(
        self, base_url: str | Sequence[str] | None, model: str, options: ClientOptions
    ) -> None:
        o = resolve_options(type(self).__name__, options)
        if not model or not isinstance(model, str):
            raise InvalidArgumentError(
                "model is required: the name the server serves the model under"
            )
        by_name: dict[str, Tool[..., Any]] = {}
        for item in (as_tool(entry) for entry in o["tools"]):
            if item.name in by_name:
                raise ToolDefinitionError(
                    f"two tools are named {item.name!r}; tool names must be unique",
                    tool_name=item.name,
                )
            by_name[item.name] = item
        # Built once: a schema that cannot be made strict fails here, not mid-conversation.
        strict = o["strict"]
        schemas = {name: t.openai_schema(strict=strict) for name, t in by_name.items()}
        hooks = Hooks(o["hooks"])
        self._hooks = hooks if hooks.items else None
        self._metrics = MetricsRecorder()
        self._config = Config.from_options(
            o, model=model, tools=by_name, schemas=schemas, observe=self._hooks is not None
        )
        # The format `stream()` reads leaked calls in: the model's own when its name tells,
        # else the first sign of any format in the text decides.
        self._content_format = format_for(model) or "auto"
        self._base_urls = base_urls_from(base_url)
        self._api_key = api_key_for(o["api_key"], self._base_urls)
        recorder = recorder_for(o["record"])
        self._traffic = (
            None if recorder is None else Traffic(recorder, self._config, secrets=[self._api_key])
        )
        self._closed = False
        self._timeout = o["timeout"]
        self._retry = o["retry"] or RetryPolicy()
        self._on_escalate = o["on_escalate"]
        self._default_headers = dict(o["default_headers"] or {})
        self._balancer = Balancer(self._base_urls, o["balance"] or BalancePolicy())
        self._deadline = o["deadline"]
        self._max_bytes = o["max_response_bytes"]
        self._force = o["force"]
        self._resume_ledger = o["resume_ledger"] or InMemoryResumeLedger()
        self._embeds = EmbedsSupport(
            model=model,
            hidden_size=o["hidden_size"],
            max_tokens=o["max_tokens"],
            temperature=o["temperature"],
            extra_body=o["extra_body"],
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

    @property
    def servers(self) -> list[ServerState]:
        """Each server as the balancer sees it now: url, healthy, outstanding, sent, ..."""
        return self._balancer.states()

    @property
    def metrics(self) -> ClientMetrics:
        """What this client's calls have done so far: a snapshot (docs/observability.md)."""
        return self._metrics.snapshot()

    def _watch(self, operation: Operation, *, streamed: bool, messages: MessagesInput) -> CallWatch:
        traffic = self._traffic
        return CallWatch(
            self._metrics,
            self._hooks,
            operation=operation,
            model=self._config.model,
            tools=self._config.tools,
            streamed=streamed,
            traffic=None if traffic is None else traffic.start(operation, messages),
        )

    def _config_for(self, config: Config, grounding: GroundingSpec | None) -> Config:
        """A configuration with one call's own `grounding=`, if given."""
        if grounding is None:
            return config
        return dataclasses.replace(config, grounding=resolve_grounding(grounding))

    def _flow(
        self,
        messages: MessagesInput,
        *,
        execute: bool,
        context: Any,
        grounding: GroundingSpec | None = None,
    ) -> Steps:
        self._check_open()
        config = self._config_for(self._config, grounding)
        history = normalize_history(to_messages(messages), model=self._config.model)
        return flow(config, history, execute=execute, context=context)

    def _run_flow(
        self,
        messages: MessagesInput,
        *,
        context: Any,
        deps: Any,
        options: RunOptions,
        shows_steps: bool = False,
        grounding: GroundingSpec | None = None,
    ) -> Steps:
        self._check_open()
        limits = run_limits("run", options, force=self._force)
        history = normalize_history(to_messages(messages), model=self._config.model)
        config = self._config_for(self._run_config(shows_steps), grounding)
        return run_flow(config, history, limits=limits, deps=deps, context=context)

    def _resumable(self, state: str, approvals: Mapping[str, bool]) -> ResumePlan:
        """The paused run and the decisions on it, both checked; nothing is claimed yet."""
        self._check_open()
        saved = decode_state(state, self._config.tools)
        return ResumePlan(saved, check_approvals(saved, approvals))

    def _claim(self, plan: ResumePlan, deadline_at: float) -> None:
        """Record the state as resumed in the ledger, once; after this its calls may run.

        The claim waits no longer than what is left of the call's deadline (a ledger that
        takes `timeout=`, as both built-ins do; `_resume_ledger`): a ledger locked by
        another process must not hold a resume past its `deadline=`.

        Raises:
            AlreadyResumed: The state was resumed before (here, or wherever the ledger is
                shared).
            ResumeError: The ledger could not record it (in time); the state is not
                consumed.
        """
        state_id = plan.saved.id
        try:
            first = claim_within(self._resume_ledger, state_id, deadline_at - time.monotonic())
        except Exception as exc:
            # A ResumeError, not a DeadlineExceededError: that one is a TransportError,
            # which says the server could not be used; here no server was asked, nothing
            # ran and the state stays good, which is what a ResumeError promises.
            late = time.monotonic() >= deadline_at
            within = f" within the call's deadline ({self._deadline:g} s)" if late else ""
            raise ResumeError(
                f"the resume ledger could not record state {state_id}{within}: "
                f"{type(exc).__name__}: {exc}. Nothing ran and the state is not used: "
                "resume it again once the ledger works (a ledger file another process "
                "holds locked frees up when that process ends its write)"
            ) from exc
        if not first:
            raise AlreadyResumed(
                f"state {state_id} was already resumed: a paused run resumes once, and its "
                "approved calls ran (or its denials were sent) then. Nothing ran now. Keep "
                "the result of the first resume (for a retried request, answer with it)",
                state_id=state_id,
            )

    def _resume_flow(
        self,
        plan: ResumePlan,
        *,
        context: Any,
        deps: Any,
        shows_steps: bool = False,
        grounding: GroundingSpec | None = None,
    ) -> Steps:
        saved = plan.saved
        return run_flow(
            self._config_for(self._run_config(shows_steps), grounding),
            saved.messages,
            limits=saved.limits,
            deps=deps,
            context=context,
            saved=saved,
            approvals=plan.approvals,
        )

    def _run_config(self, shows_steps: bool) -> Config:
        # A streamed run shows its steps and tools: the pipeline then announces them, as it
        # does for hooks.
        if shows_steps and not self._config.observe:
            return dataclasses.replace(self._config, observe=True)
        return self._config

    def _check_open(self) -> None:
        if self._closed:
            raise ClientClosedError(
                f"this {type(self).__name__} was closed; create a new client (or keep using "
                "this one inside its `with` block)"
            )

    def _request_kwargs(
        self, request: ChatRequest, stream: bool, headers: Mapping[str, str] | None
    ) -> dict[str, Any]:
        """The JSON body and the request options of one request (see `_send`)."""
        body = dict(request.params)
        # Headers from hooks (W3C trace context) ride along; the stage header is ours.
        options: openai.RequestOptions = {
            "headers": {**(headers or {}), STAGE_HEADER: request.stage}
        }
        extra = body.pop("extra_body", None)
        if extra is not None:
            options["extra_json"] = extra
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return {"body": body, "options": options}

    def _answer_events(self, request: ChatRequest) -> AnswerEvents:
        # Plain answers are text the user asked for: never searched for calls (as in call()).
        reads_calls = request.stage == STAGE_CALL and self._config.recover
        return AnswerEvents(
            attempt=request.attempt,
            content_format=self._content_format if reads_calls else None,
            # Formats that read calls to offered tools only (Qwen2.5-Coder's call objects)
            # need the names; the others read bare values by them.
            schemas=_offered_schemas(request.params) if reads_calls else None,
        )

    def _plan(
        self,
        request: ChatRequest,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Exchange:
        """How one request is sent: streamed or not, shown live or not, starting where."""
        # Routing answers are read whole: nothing in them is for a UI.
        live = live and request.stage != STAGE_ROUTE
        stream = self._streams(request, stream, live)
        return Exchange(
            kwargs=self._request_kwargs(request, stream, headers),
            stage=request.stage,
            stream=stream,
            events=self._answer_events(request) if live else None,
            balancer=self._balancer,
            pin=pin,
            limits=Limits(
                deadline_at=deadline_at, deadline_s=self._deadline, max_bytes=self._max_bytes
            ),
        )

    @staticmethod
    def _streams(request: ChatRequest, stream: bool, live: bool) -> bool:
        """Whether the answer is read as a stream (routing answers never are)."""
        return (stream or live) and request.stage != STAGE_ROUTE

    def _deadline_at(self) -> float:
        return time.monotonic() + self._deadline

    def _sender(
        self,
        request: ChatRequest,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Sending:
        """The sender of one request (`_sender.send`), for a driver to carry out."""
        exchange = self._plan(
            request, stream=stream, live=live, deadline_at=deadline_at, pin=pin, headers=headers
        )
        return send(
            exchange,
            retry=self._retry,
            timeout=self._timeout,
            base_urls=self._base_urls,
            model=self.model,
            tags=self._config.tag_support,
        )


class ResumePlan(NamedTuple):
    """A paused run to continue, and the person's decision on each pending call."""

    saved: SavedRun
    approvals: dict[str, bool]


# Chat requests go through `client.post`, not `chat.completions.create`: the pipeline's body
# is plain JSON already, and `create` would walk it against openai's parameter types on
# every request (about half of a raw call's CPU time, growing with the conversation and the
# tools) only to send the same bytes. Status errors, timeouts and connection errors are
# raised as by `create`; the body is read here, piece by piece (`_body`).
_CHAT_PATH = "/chat/completions"


def _offered_schemas(params: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The parameter schemas of a request's tools, by name."""
    schemas: dict[str, Mapping[str, Any]] = {}
    for entry in params.get("tools") or ():
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            schemas[function["name"]] = parameters if isinstance(parameters, Mapping) else {}
    return schemas


def _send(client: openai.OpenAI, kwargs: dict[str, Any], seconds: float) -> httpx2.Response:
    """Send one chat request within `seconds`; the response, its body not yet read."""
    options: openai.RequestOptions = kwargs["options"].copy()
    options["timeout"] = seconds
    response: httpx2.Response = client.post(
        _CHAT_PATH, cast_to=httpx2.Response, body=kwargs["body"], options=options, stream=True
    )
    return response


async def _asend(
    client: openai.AsyncOpenAI, kwargs: dict[str, Any], seconds: float
) -> httpx2.Response:
    options: openai.RequestOptions = kwargs["options"].copy()
    options["timeout"] = seconds
    response: httpx2.Response = await client.post(
        _CHAT_PATH, cast_to=httpx2.Response, body=kwargs["body"], options=options, stream=True
    )
    return response


class _Reading:
    """The sync driver's open response: read piece by piece, within the call's deadline.

    A read already waiting when the deadline passes is abandoned then, not when the server
    next sends a byte nor at the request's read timeout (which counts from the last byte):
    the watchdog (`_watchdog`) shuts the socket at the deadline, and the read it ends is
    reported to the sender as a TimeoutError.
    """

    __slots__ = ("_guard", "_pieces", "_response")

    def __init__(self) -> None:
        self._response: httpx2.Response | None = None
        self._pieces: Iterator[bytes] | None = None
        self._guard: Watch | None = None

    def open(self, response: httpx2.Response, within: float | None) -> None:
        self.close()
        self._response, self._pieces = response, response.iter_bytes()
        self._guard = watch(response, within)

    def read(self, within: float | None) -> bytes:
        assert self._pieces is not None
        try:
            data = next(self._pieces, b"")
        except Exception as exc:
            self.close()
            if self._fired():
                raise TimeoutError from exc
            raise
        if not data:
            self.close()
            if self._fired():  # cut at the deadline just as it ended
                raise TimeoutError
        return data

    def _fired(self) -> bool:
        guard, self._guard = self._guard, None
        return guard is not None and guard.fired

    def close(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
        if self._response is not None:
            self._response.close()
            self._response = None
            self._pieces = None


class _AReading:
    """The async driver's open response: each read awaited within the call's deadline.

    Each wait has its own timer (`asyncio.timeout`), so a read waiting when the deadline
    passes is abandoned then; the consumer may hold the driver between pieces.
    """

    __slots__ = ("_pieces", "_response")

    def __init__(self) -> None:
        self._response: httpx2.Response | None = None
        self._pieces: AsyncIterator[bytes] | None = None

    async def aopen(self, response: httpx2.Response, within: float | None) -> None:
        await self.aclose()
        self._response, self._pieces = response, response.aiter_bytes()

    async def read(self, within: float | None) -> bytes:
        assert self._pieces is not None
        try:
            async with asyncio.timeout(within):
                data = await anext(self._pieces, b"")
        except BaseException:
            await self.aclose()
            raise
        if not data:
            await self.aclose()
        return data

    async def aclose(self) -> None:
        if self._response is not None:
            await self._response.aclose()
            self._response = None
            self._pieces = None


def _final(events: Iterable[RunEvent]) -> ToolCallResult:
    # Run the loop to its end (not just to the last event) so that it is finished, not
    # left suspended for the garbage collector to close.
    results = [event.result for event in events if isinstance(event, StreamCompleted)]
    return results[-1]


async def _afinal(events: AsyncIterator[RunEvent]) -> ToolCallResult:
    results = [event.result async for event in events if isinstance(event, StreamCompleted)]
    return results[-1]


def _run_coroutine(value: Awaitable[Any]) -> Any:
    """Await `value` from sync code: on a private loop, in a worker if one runs here."""
    coroutine = _awaited(value)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def _route_error(router: Any, exc: Exception) -> RouterError:
    name = getattr(router, "name", type(router).__name__)
    return RouterError(f"router {name!r} raised {type(exc).__name__}: {exc}")


def _timed(outcome: Outcome, started_at: float, clock: float) -> Outcome:
    """`outcome` with when its tool started and how long it ran (for hooks)."""
    return dataclasses.replace(
        outcome, started_at=started_at, duration_s=time.perf_counter() - clock
    )


def _tool_failed(tool: Tool[..., Any], exc: Exception) -> Outcome:
    if isinstance(exc, ModelRetry):
        return Outcome(retry_message=exc.message)
    logger.warning("tool %s raised %s: %s", tool.name, type(exc).__name__, exc)
    return Outcome(error=exc)


def _start(effect: Execute) -> Any:
    """Call the tool: its value, or an awaitable for an async one.

    The context goes only to tools that take one, so a `Tool` subclass overriding
    `invoke(arguments)` (a tool from a JSON Schema, an MCP tool) keeps working.
    """
    if effect.context is None:
        return effect.tool.invoke(effect.arguments)
    return effect.tool.invoke(effect.arguments, effect.context)


def _call_sync(effect: Execute) -> Any:
    """Run a sync tool to its value (in a worker thread: no event loop runs there)."""
    value = _start(effect)
    if inspect.isawaitable(value):
        value = asyncio.run(_awaited(value))
    return value


def _start_thread(function: Callable[[], Any]) -> concurrent.futures.Future[Any]:
    """Run `function` in a daemon thread: one past its timeout must not block the exit."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function())
        except BaseException as exc:  # handed to the waiting caller, which re-raises it
            future.set_exception(exc)

    threading.Thread(target=target, name="toolcall-sdk-tool", daemon=True).start()
    return future


async def _within(awaitable: Awaitable[Any], seconds: float) -> Outcome:
    """Await a tool for at most `seconds`; cancel it past that.

    `asyncio.wait` rather than `wait_for`, so that a `TimeoutError` the tool raises itself
    stays that tool's error and is never mistaken for our deadline.
    """
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        return Outcome(timed_out=True)
    return Outcome(output=task.result())


class ToolCallClient(_ClientCore):
    """Reliable tool calls against an OpenAI-compatible server (vLLM first).

    Stage 1 decides whether a tool is needed; stage 2 forces the call
    (`tool_choice="required"`, or named when one tool is offered), validates the arguments
    with each tool's Pydantic model, sends specific feedback and retries at most
    `max_retries` times, then raises `ToolCallFailed` with every attempt. `stream()` does
    the same while yielding typed events for a UI (see `toolcall_sdk._events`).

    Args:
        base_url: The server's `/v1` URL, or a list of them: each request goes to the
            healthy server with the fewest requests outstanding and fails over on
            connection errors, timeouts and 5xx (see `balance`). Defaults to
            `$TOOLCALL_BASE_URL` or `http://localhost:8000/v1`.
        model: The served model name.
        tools: Functions, `@tool` objects or Pydantic model classes.
        api_key: The server's key (vLLM `--api-key`); defaults to `$TOOLCALL_API_KEY`
            (`$OPENAI_API_KEY` is sent to OpenAI itself only).
        max_retries: Feedback retries after the first stage-2 request.
        router: `"llm"` (ask the model), `"always"`, `"never"`, a router object or a
            callable `(messages, tools) -> bool | RouteDecision`.
        strict: Send strict-form schemas (the server then enforces them under `required`).
        temperature: Sampling temperature of every request (None: the server's default).
        max_tokens: Token limit of each answer (None: the server's default).
        parallel_tool_calls: Sent as is when set. True also keeps a forced call with one
            tool left on `required` instead of naming the tool: vLLM decodes a named
            choice as exactly one call.
        timeout: Seconds per HTTP request.
        deadline: Seconds for a whole `call()` or `run()`: routing, attempts, backoffs,
            reading the answers and running tools all count (`DeadlineExceededError`).
            A `resume()` counts the claim of its state too (a `ResumeError` when the
            ledger stays locked past it).
        max_response_bytes: The size cap of one answer (`ResponseTooLargeError`, not
            retried); 32 MiB by default.
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
            offered, unless `parallel_tool_calls=True`) or `"auto"`, for servers without
            `required` support; under `"auto"` a text answer with no call in it is fed
            back as `no_tool_call` and retried.
        force: Which steps of `run()` force a call: `"first_step"` (default; a later step,
            which follows one whose calls ran, asks with `tool_choice="auto"` so the model
            may answer in text, ending the run) or `"every_step"` (every step forces, as for
            pipelines that must call). `run(force=...)` overrides it per run.
        resume_ledger: Where `resume()` records the states it resumed, so each is resumed
            once (`AlreadyResumed` after). Default: an `InMemoryResumeLedger` of this
            client; `SQLiteResumeLedger(path)` survives restarts and is shared by processes;
            anything with an atomic `claim(state_id) -> bool` fits (`ResumeLedger`).
        openai_client: Your own `openai.OpenAI`; used with its retries switched off.
        http_client: An `httpx2.Client` for the openai client (proxies, tests).
        hidden_size: The served model's hidden size: `prompt_embeds` content parts and
            `complete_embeds()` tensors of another width are refused before sending
            (`PromptEmbedsError`). When None it is read from the model's `config.json` if
            the server's model folder is on this machine; see docs/prompt-embeds.md.
        balance: How several servers share the requests (`BalancePolicy`): affinity
            (default `"call"`: a call's requests stay on one healthy server) and the
            cool-down of an unhealthy server. `servers` shows their state.
        grounding: The grounding check of stage 2, after the schema and before anything
            runs: each checked value of a call must be one the conversation gives (user and
            tool messages, the system prompt), or the call goes back to the model as an
            `ungrounded` problem. False (the default) checks nothing; `DEFAULT_POLICY`
            (`toolcall_sdk.grounding`) checks identifiers and dates; True adds numbers; a
            `GroundingPolicy` names the kinds, sources and a reference date. `call`, `run`,
            `stream` and `resume` take `grounding=` for one call. Per field:
            `Annotated[..., Grounded()]` or `Derived()`. See docs/grounding.md.
        grounded_decoding: Hold a forced request's values to the conversation's while
            they are decoded: each number, date and pattern identifier field of the offered
            tools gets the values the conversation states as an `enum` (vLLM decodes
            `required` and named choices under the schema). `"off"` (the default: only a
            forced retry's field whose refused value was one reading of a date written
            without its year, held to its other reading), `"retry"` (every field of the
            retry after an `ungrounded` finding) or `"forced"` (every forced request).
            `Derived()` fields, fields with no stated candidate and `auto` requests are
            never held. See docs/grounding.md, "Grounded decoding".
        call_tags: Hold an `auto` answer's call to its tool's schema once the model starts
            it: the request carries an xgrammar structural tag, triggered by the call
            object the model writes (`{"name": "create_invoice"`, compact or indented), so
            the text before it stays free and a call to a tool nobody offered never
            triggers. `"off"` (the default), `"schema"` (the tool's strict schema) or
            `"grounded"` (with grounded decoding's stated values as an `enum`). A server
            that refuses the tag gets the request again without it, and no tag is sent
            after that. See docs/pipeline.md, "Calls held once they start".
        listed_values: What to do with a valid answer whose calls leave out values the
            request lists beside the ones they used ("the factorial of 5, 10 and 15"
            answered with one call): `"off"` takes it; `"ask"` sends it back
            once, with what it left out, under an unnamed `required` of its own tools, and
            takes the new answer only if it is valid, calls none but those tools and
            leaves fewer listed values out; `"complete"` asks for each left-out call in a
            named request of its tool with the listed values held by the schema, and adds
            the ones that come back valid, grounded and new; `"continue"` sends the answer,
            written in the model family's own call format (Qwen2.5-Coder, Qwen2.5), back
            with the opening of another call of its tool for the model to continue, and
            adds the calls it writes there that are valid, grounded and new, with every
            value that differs from the first call's stated by the request;
            `"continue_listed"` does the same only where the request states a value the
            calls left out (a number written in digits that no call used, or a name listed
            with "and" or "or" beside one a call used), so that an answer with nothing left
            out costs no request (the default). Nothing of the answer runs before. Only a
            request the conversation ends with is read (not a later step of `run()`). See
            docs/pipeline.md, "Every call a request asks for".
        optional_values: `"stated"` (the default) leaves out of a call an optional
            free-text argument (a string or list of strings with no `enum`, `pattern` or
            `format`) whose description says what leaving it out does ("Default is all
            fields", "optional", "if not specified") and whose value no word of the
            conversation states, before the call is validated; the attempt records it as
            the repair `tool:unstated_optional:/field`. `Derived()` fields and values equal
            to the field's default are kept. `"any"` keeps what the model wrote. See
            docs/grounding.md, "Optional values nobody gave".
        samples: Answers per stage-2 request (the server's `n`, at temperature 0.7 where
            `temperature` is unset or 0): where the answer decides, more texts than calls
            answer in text; else the step goes on with the valid, grounded calls most of
            them make, or the answer with the fewest problems. 1 (the default) asks for
            one. See docs/pipeline.md, "Several answers to one request".
        hooks: Functions (sync or async) given every stage of every call as a typed event
            (`toolcall_sdk.events.HookEvent`), or objects with `start_call(event)` returning
            a per-call receiver, such as `toolcall_sdk.otel.OtelHook`. A hook that raises is
            logged and the call goes on; see docs/observability.md.
        record: Record what each `call()`, `run()`, `resume()` and `stream()` saw and how it
            ended, one JSON line per invocation (the conversation, the tools, the settings,
            the outcome; never a header or the API key): a folder (str or Path), written by
            a `TrafficRecorder` on it, or a recorder object such as
            `TrafficRecorder(folder, max_bytes=..., redact=...)`. None (the default)
            records nothing. A write that fails is logged and the call goes on; see
            docs/recording.md.
        examples: Accepted cases that teach the model: a JSON Lines case file (eval cases
            with `expected.calls`, as `toolcall-sdk cases review` writes them), a list of
            such case dicts, or an `ExampleBank` (`ExampleBank(path, k=3, max_tokens=600)`;
            a path or a list gets those defaults). Each stage-2 request of `call()` (and of
            a run's first step) is sent the `k` cases most alike to the last user message
            whose calls use only offered tools, within the token budget, as earlier user /
            assistant (tool call) / tool ("(example: not run)") turns after the system
            message. Never in the router's probe, a plain answer or a later step, and never
            a grounding source. None (the default) sends none; not yet measured on the demo
            models. The file is read here (`ExamplesError` names the file and line). See
            docs/traffic-evals.md, "Accepted cases teach the model".
    """

    def __init__(
        self,
        base_url: str | Sequence[str] | None = None,
        *,
        model: str,
        openai_client: openai.OpenAI | None = None,
        http_client: httpx2.Client | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        if openai_client is not None and base_url is None:
            base_url = str(openai_client.base_url)
        super().__init__(base_url, model, options)
        if openai_client is not None:
            # One component counts attempts: the openai client's own retries are off.
            self._clients = [openai_client.with_options(max_retries=0)]
            self._balancer = Balancer(self._base_urls[:1], self._balancer.policy)
        else:
            self._clients = [
                openai.OpenAI(
                    base_url=url,
                    api_key=self._api_key,
                    max_retries=0,
                    timeout=self._timeout,
                    http_client=http_client,
                    default_headers=self._default_headers or None,
                )
                for url in self._base_urls
            ]

    def call(
        self,
        messages: MessagesInput,
        *,
        stream: bool = False,
        context: Any = None,
        grounding: GroundingSpec | None = None,
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
        steps = self._flow(messages, execute=False, context=context, grounding=grounding)
        return _final(
            self._events(steps, stream=stream, live=False, operation="call", messages=messages)
        )

    def run(
        self,
        messages: MessagesInput,
        *,
        stream: bool = False,
        context: Any = None,
        deps: Any = None,
        grounding: GroundingSpec | None = None,
        **options: Unpack[RunOptions],
    ) -> ToolCallResult:
        """Like `call()`, then run each validated call's function exactly once.

        Each call gets `.output` (or `.error` if its function raised). A function that
        raises `ModelRetry` sends its message back to the model for another attempt.
        With `max_steps` > 1 this is the agent loop: the tool results go back as `tool`
        messages and the next step starts at stage 1, until a step answers in text. The
        first step forces its call; a later one asks with `tool_choice="auto"` (calls it
        makes are still recovered, validated and fed back) and ends the run when the model
        answers in text, unless `force="every_step"`. The router decides at every step.

        Args:
            messages: A user message string, or a list of OpenAI chat messages.
            stream: Consume the server's streams; the result is the same as without.
            context: Validation context for this run (overrides the client's).
            deps: Your per-run dependencies: given to tool parameters annotated
                `RunContext[...]` (as `ctx.deps`), and to validators as `info.context`
                (a `RunContext`) when set.
            max_steps: Steps the run may take (default 1: one step, whatever it ends
                with). Above 1, a step numbered `max_steps` that still calls tools raises
                `MaxStepsExceeded` (its calls ran).
            max_requests: Requests the run may send, routing requests included.
            max_tokens_total: Prompt plus completion tokens the run may use. Checked
                before each request: it is not sent when the tokens used so far plus its
                `max_tokens` (when set) would pass the limit. Without `max_tokens` a
                request's own size is unknown beforehand, so one request may overshoot;
                none is sent after that.
            loop_guard: The same call (tool and sorted-key JSON arguments) made in this
                many steps is not run again: the model is told the earlier result. One
                more such step raises `LoopDetected`. Default 3; None turns it off.
            force: `"first_step"` or `"every_step"` for this run (default: the client's
                `force`).

        Returns:
            The result: `.content` (the final text), `.steps`, `.calls` (every call
            that ran), `.messages` (the whole conversation), `.usage` (summed).

        Raises:
            ToolCallFailed: A step found no valid call within its retries.
            MaxStepsExceeded, UsageLimitExceeded, LoopDetected: A bound stopped the run.
            ApprovalRequired: A `requires_approval` call waits; nothing of its answer ran.
            TransportError: The server could not be used.

            Each carries `.steps` (the steps finished before it) and `.executed` (every
            call of the run whose function ran).
        """
        self._embeds.check(messages, self._clients[0])
        steps = self._run_flow(
            messages, context=context, deps=deps, options=options, grounding=grounding
        )
        return _final(
            self._events(steps, stream=stream, live=False, operation="run", messages=messages)
        )

    def resume(
        self,
        state: str,
        approvals: Mapping[str, bool],
        *,
        stream: bool = False,
        context: Any = None,
        deps: Any = None,
        grounding: GroundingSpec | None = None,
    ) -> ToolCallResult:
        """Continue a run that stopped with `ApprovalRequired`, once.

        The approved calls run exactly once; a denied one goes back to the model as a
        `tool` message saying the user refused it. The run then goes on with the bounds
        it started with (its counters carried in the state). `.steps` of the result
        starts at the paused step; `.usage` counts the whole run.

        A state is single-use: once the state and the approvals check out, its id is
        claimed in the client's `resume_ledger` before anything runs, and a later
        `resume()` of it (a retried request, a second worker) raises `AlreadyResumed`.

        Args:
            state: `ApprovalRequired.state`, exactly as it was (a JSON string).
            approvals: `{call_id: True | False}` for every call in `.pending`.
            stream: Consume the server's streams.
            context: Validation context (the paused calls are validated again).
            deps: The run's dependencies (not part of the state: give them again).

        Raises:
            AlreadyResumed: This state was resumed before (a `ResumeError`); nothing ran.
            ResumeError: The state cannot be read or was altered, or `approvals` name a
                call that is not pending, leave one out, or are not booleans.
            ApprovalRequired: A later answer waits for approval in turn.
        """
        deadline_at = self._deadline_at()  # the claim counts against the deadline too
        plan = self._resumable(state, approvals)
        self._claim(plan, deadline_at)
        steps = self._resume_flow(plan, context=context, deps=deps, grounding=grounding)
        return _final(
            self._events(
                steps,
                stream=stream,
                live=False,
                operation="resume",
                messages=plan.saved.messages,
                deadline_at=deadline_at,
            )
        )

    def stream(
        self,
        messages: MessagesInput,
        *,
        context: Any = None,
        grounding: GroundingSpec | None = None,
    ) -> Iterator[ToolCallEvent]:
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
        steps = self._flow(messages, execute=False, context=context, grounding=grounding)
        # A call's stream shows no step or tool events: its events are all ToolCallEvents.
        return cast(
            Iterator[ToolCallEvent],
            self._events(steps, stream=True, live=True, operation="stream", messages=messages),
        )

    def stream_run(
        self,
        messages: MessagesInput,
        *,
        context: Any = None,
        deps: Any = None,
        **options: Unpack[RunOptions],
    ) -> Iterator[RunEvent]:
        """Like `run()`, as events a chat UI can show while the agent works.

        Every request is streamed. For each step it yields a `StepStarted`, the events
        `stream()` yields for one call (`ContentDelta`, `ToolCallStarted`,
        `ToolArgumentsDelta`, `AttemptFailed`, `ToolCallValidated`), a `ToolExecuted` per
        business function that ran (before the step's `ToolCallValidated`s, as the calls
        run before they are accepted), and a `StepFinished`; last a `StreamCompleted`
        whose `.result` equals what `run()` returns. The final text answer arrives as
        `ContentDelta`s of the last step.

        Args:
            messages: A user message string, or a list of OpenAI chat messages.
            context: Validation context for this run (overrides the client's).
            deps: Your per-run dependencies (see `run()`).
            **options: `run()`'s bounds and `force`.

        Yields:
            The events, in order.

        Raises:
            The errors `run()` raises, at the point of the stream where they happen
            (`ApprovalRequired` after the paused step's events: resume it with
            `stream_resume()` or `resume()`).
        """
        self._embeds.check(messages, self._clients[0])
        steps = self._run_flow(
            messages, context=context, deps=deps, options=options, shows_steps=True
        )
        return self._events(
            steps,
            stream=True,
            live=True,
            operation="stream_run",
            messages=messages,
            shown=STREAMED_RUN_DECISIONS,
        )

    def stream_resume(
        self,
        state: str,
        approvals: Mapping[str, bool],
        *,
        context: Any = None,
        deps: Any = None,
    ) -> Iterator[RunEvent]:
        """`resume()` as events, like `stream_run()`; the state is claimed before the first.

        Raises:
            AlreadyResumed, ResumeError: As `resume()`, when this is called (before any
                event).
        """
        deadline_at = self._deadline_at()
        plan = self._resumable(state, approvals)
        self._claim(plan, deadline_at)
        steps = self._resume_flow(plan, context=context, deps=deps, shows_steps=True)
        return self._events(
            steps,
            stream=True,
            live=True,
            operation="stream_resume",
            messages=plan.saved.messages,
            shown=STREAMED_RUN_DECISIONS,
            deadline_at=deadline_at,
        )

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
        """Close the HTTP connections; the client cannot be used afterwards."""
        self._closed = True
        for client in self._clients:
            client.close()

    def __enter__(self) -> ToolCallClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _events(
        self,
        steps: Steps,
        *,
        stream: bool,
        live: bool,
        operation: Operation,
        messages: MessagesInput,
        shown: _Shown = STREAMED_DECISIONS,
        deadline_at: float | None = None,
    ) -> Iterator[RunEvent]:
        """`_drive`, watched: hooks hear the call begin and end; the metrics count it.

        The call's deadline starts here, unless it started before (a resume's, which
        counts the claim of its state).
        """
        if deadline_at is None:
            deadline_at = self._deadline_at()
        watch = self._watch(operation, streamed=stream or live, messages=messages)
        try:
            watch.begin(_run_coroutine)
            for event in self._drive(
                steps, watch, stream=stream, live=live, shown=shown, deadline_at=deadline_at
            ):
                if isinstance(event, StreamCompleted):
                    watch.emit(watch.finished(event.result), _run_coroutine)
                yield event
        except BaseException as exc:  # an error, or a stream left early: counted, re-raised
            watch.emit(watch.failed(exc), _run_coroutine)
            raise

    def _drive(
        self,
        steps: Steps,
        watch: CallWatch,
        *,
        stream: bool,
        live: bool,
        shown: _Shown,
        deadline_at: float,
    ) -> Iterator[RunEvent]:
        """Carry out the pipeline's effects; `live` streams answers as events.

        An SDK error raised while carrying one out (a failed request, a router that
        raised) is thrown into the pipeline, which adds what had run before it.
        """
        pin = self._balancer.pin()  # affinity: this call's requests stay on one server
        try:
            effect = next(steps)
            while True:
                value: Any = None
                try:
                    match effect:
                        case ChatRequest():
                            for item in self._send(
                                effect,
                                watch,
                                stream=stream,
                                live=live,
                                deadline_at=deadline_at,
                                pin=pin,
                            ):
                                if isinstance(item, Answer):
                                    value = item
                                else:
                                    yield item
                        case Notify(event=event):
                            watch.emit(event, _run_coroutine)
                            if live and isinstance(event, shown):
                                yield event
                        case RouteQuery():
                            value = self._ask_router(effect)
                        case ExecuteMany():
                            value = self._execute_many(effect)
                        case _:
                            assert_never(effect)
                except ToolCallError as exc:
                    effect = steps.throw(exc)  # the flow adds what had run
                    continue
                effect = steps.send(value)
        except StopIteration as done:
            result: ToolCallResult = done.value
        except ToolCallFailed as failed:
            result = self._escalate(failed)
            watch.escalated = True
        yield StreamCompleted(result)

    def _send(
        self,
        request: ChatRequest,
        watch: CallWatch,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
    ) -> Iterator[_Live]:
        """`_exchange`, told to the hooks when any listen."""
        if watch.receivers is None:
            return self._exchange(
                request, stream=stream, live=live, deadline_at=deadline_at, pin=pin
            )
        return self._told(
            request, watch, stream=stream, live=live, deadline_at=deadline_at, pin=pin
        )

    def _told(
        self,
        request: ChatRequest,
        watch: CallWatch,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
    ) -> Iterator[_Live]:
        """`_exchange` with the request told before it goes, the answer after."""
        sent = watch.request_sent(request, self._streams(request, stream, live))
        watch.emit(sent, _run_coroutine)
        for item in self._exchange(
            request,
            stream=stream,
            live=live,
            deadline_at=deadline_at,
            pin=pin,
            headers=sent.headers,
        ):
            if isinstance(item, Answer):
                watch.emit(watch.answer_received(request, item), _run_coroutine)
            yield item

    def _escalate(self, failed: ToolCallFailed) -> ToolCallResult:
        if self._on_escalate is None:
            raise failed
        fallback = self._on_escalate(failed)
        return _run_coroutine(fallback) if inspect.isawaitable(fallback) else fallback

    def _exchange(
        self,
        request: ChatRequest,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[_Live]:
        """Carry out the sender's effects (`_sender`); yield live events, then the answer."""
        steps = self._sender(
            request, stream=stream, live=live, deadline_at=deadline_at, pin=pin, headers=headers
        )
        body = _Reading()
        try:
            effect = next(steps)
            while True:
                value: Any = None
                try:
                    match effect:
                        case Open(server=server, timeout=timeout, kwargs=kwargs):
                            response = _send(self._clients[server], kwargs, timeout)
                            body.open(response, effect.within)
                        case Read(within=within):
                            value = body.read(within)
                        case Sleep(seconds=seconds):
                            (self._retry.sleep or time.sleep)(seconds)
                        case Show(event=event):
                            yield event
                        case _:
                            assert_never(effect)
                except Exception as exc:
                    effect = steps.throw(exc)
                    continue
                effect = steps.send(value)
        except StopIteration as done:
            answer: Answer = done.value
        finally:
            body.close()
            steps.close()
        yield answer

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

    def _execute_many(self, effect: ExecuteMany) -> list[Outcome | None]:
        """Run the calls in order; after a `ModelRetry` the rest do not run (None)."""
        outcomes: list[Outcome | None] = []
        for item in effect.calls:
            retrying = any(o is not None and o.retry_message is not None for o in outcomes)
            outcomes.append(None if retrying else self._invoke(item))
        return outcomes

    def _invoke(self, effect: Execute) -> Outcome:
        if self._hooks is None:
            return self._outcome(effect)
        started_at, clock = time.time(), time.perf_counter()
        return _timed(self._outcome(effect), started_at, clock)

    def _outcome(self, effect: Execute) -> Outcome:
        tool = effect.tool
        try:
            if tool.timeout is not None:
                return self._invoke_within(effect, tool.timeout)
            value = _start(effect)
            if inspect.isawaitable(value):
                value = _run_coroutine(value)
        except Exception as exc:
            return _tool_failed(tool, exc)
        return Outcome(output=value)

    def _invoke_within(self, effect: Execute, timeout: float) -> Outcome:
        if effect.tool.is_async:
            return _run_coroutine(_within(_start(effect), timeout))  # type: ignore[no-any-return]
        future = _start_thread(lambda: _call_sync(effect))
        done, _ = concurrent.futures.wait([future], timeout=timeout)
        if not done:
            return Outcome(timed_out=True)
        return Outcome(output=future.result())


class AsyncToolCallClient(_ClientCore):
    """The async twin of `ToolCallClient`: same arguments, `await` on every method.

    Sync business functions run in a worker thread so they do not block the event loop;
    async ones are awaited. Routers may define `async adecide(messages, tools)`.

    One client may serve one event loop after another (`asyncio.run()` again and again): on
    a new loop it builds its own HTTP clients anew. A pooled `http_client=` or
    `openai_client=` you pass cannot be rebuilt: used on a second loop it raises
    `InvalidArgumentError` (see `_loop_clients`).
    """

    def __init__(
        self,
        base_url: str | Sequence[str] | None = None,
        *,
        model: str,
        openai_client: openai.AsyncOpenAI | None = None,
        http_client: httpx2.AsyncClient | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        if openai_client is not None and base_url is None:
            base_url = str(openai_client.base_url)
        super().__init__(base_url, model, options)
        # The clients belong to the event loop that uses them; `_loop_clients` says how a
        # second loop (a second asyncio.run()) gets its own. The SDK's own httpx client is
        # openai's default one, less the wrapper that closes it when collected: that close
        # would run on the loop of the moment, and a rebuild drops clients of a loop gone.
        if openai_client is not None:
            given = openai_client.with_options(max_retries=0)
            self._bound = LoopClients(
                lambda: [given],
                given="openai_client",
                http_client=getattr(openai_client, "_client", None),
            )
            self._balancer = Balancer(self._base_urls[:1], self._balancer.policy)
        else:
            self._bound = LoopClients(
                lambda: [
                    openai.AsyncOpenAI(
                        base_url=url,
                        api_key=self._api_key,
                        max_retries=0,
                        timeout=self._timeout,
                        http_client=http_client or openai.DefaultAsyncHttpxClient(),
                        default_headers=self._default_headers or None,
                    )
                    for url in self._base_urls
                ],
                given=None if http_client is None else "http_client",
                http_client=http_client,
            )

    @property
    def _clients(self) -> list[openai.AsyncOpenAI]:
        """The openai clients for the running event loop, one per server."""
        return self._bound.current()

    async def call(
        self,
        messages: MessagesInput,
        *,
        stream: bool = False,
        context: Any = None,
        grounding: GroundingSpec | None = None,
    ) -> ToolCallResult:
        """Async `ToolCallClient.call`."""
        await self._embeds.acheck(messages, self._clients[0])
        steps = self._flow(messages, execute=False, context=context, grounding=grounding)
        return await _afinal(
            self._events(steps, stream=stream, live=False, operation="call", messages=messages)
        )

    async def run(
        self,
        messages: MessagesInput,
        *,
        stream: bool = False,
        context: Any = None,
        deps: Any = None,
        grounding: GroundingSpec | None = None,
        **options: Unpack[RunOptions],
    ) -> ToolCallResult:
        """Async `ToolCallClient.run`; the calls of one answer run concurrently."""
        await self._embeds.acheck(messages, self._clients[0])
        steps = self._run_flow(
            messages, context=context, deps=deps, options=options, grounding=grounding
        )
        return await _afinal(
            self._events(steps, stream=stream, live=False, operation="run", messages=messages)
        )

    async def resume(
        self,
        state: str,
        approvals: Mapping[str, bool],
        *,
        stream: bool = False,
        context: Any = None,
        deps: Any = None,
        grounding: GroundingSpec | None = None,
    ) -> ToolCallResult:
        """Async `ToolCallClient.resume`."""
        deadline_at = self._deadline_at()  # the claim counts against the deadline too
        plan = await self._aclaimed(state, approvals, deadline_at)
        steps = self._resume_flow(plan, context=context, deps=deps, grounding=grounding)
        return await _afinal(
            self._events(
                steps,
                stream=stream,
                live=False,
                operation="resume",
                messages=plan.saved.messages,
                deadline_at=deadline_at,
            )
        )

    def stream(
        self,
        messages: MessagesInput,
        *,
        context: Any = None,
        grounding: GroundingSpec | None = None,
    ) -> AsyncIterator[ToolCallEvent]:
        """`ToolCallClient.stream` as an async iterator: `async for event in client.stream(...)`."""
        steps = self._flow(messages, execute=False, context=context, grounding=grounding)
        events = self._events(steps, stream=True, live=True, operation="stream", messages=messages)
        return self._embeds.guarded(messages, self._clients[0], events)

    def stream_run(
        self,
        messages: MessagesInput,
        *,
        context: Any = None,
        deps: Any = None,
        **options: Unpack[RunOptions],
    ) -> AsyncIterator[RunEvent]:
        """`ToolCallClient.stream_run` as an async iterator."""
        steps = self._run_flow(
            messages, context=context, deps=deps, options=options, shows_steps=True
        )
        events = self._events(
            steps,
            stream=True,
            live=True,
            operation="stream_run",
            messages=messages,
            shown=STREAMED_RUN_DECISIONS,
        )
        return self._embeds.guarded(messages, self._clients[0], events)

    def stream_resume(
        self,
        state: str,
        approvals: Mapping[str, bool],
        *,
        context: Any = None,
        deps: Any = None,
    ) -> AsyncIterator[RunEvent]:
        """`ToolCallClient.stream_resume` as an async iterator.

        The state and approvals are checked when this is called; the state is claimed
        when the first event is asked for (`AlreadyResumed` is raised there).
        """
        plan = self._resumable(state, approvals)
        return self._claimed_events(plan, context=context, deps=deps)

    async def _claimed_events(
        self, plan: ResumePlan, *, context: Any, deps: Any
    ) -> AsyncIterator[RunEvent]:
        deadline_at = self._deadline_at()
        await asyncio.to_thread(self._claim, plan, deadline_at)
        steps = self._resume_flow(plan, context=context, deps=deps, shows_steps=True)
        async for event in self._events(
            steps,
            stream=True,
            live=True,
            operation="stream_resume",
            messages=plan.saved.messages,
            shown=STREAMED_RUN_DECISIONS,
            deadline_at=deadline_at,
        ):
            yield event

    async def _aclaimed(
        self, state: str, approvals: Mapping[str, bool], deadline_at: float
    ) -> ResumePlan:
        plan = self._resumable(state, approvals)
        # A durable ledger writes to disk: off the event loop.
        await asyncio.to_thread(self._claim, plan, deadline_at)
        return plan

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
        """Close the HTTP connections; the client cannot be used afterwards."""
        self._closed = True
        # Clients of a loop that is gone cannot be closed from this one: they are dropped.
        for client in self._bound.closable():
            await client.close()

    async def aclose(self) -> None:
        """Alias of `close()`."""
        await self.close()

    async def __aenter__(self) -> AsyncToolCallClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _events(
        self,
        steps: Steps,
        *,
        stream: bool,
        live: bool,
        operation: Operation,
        messages: MessagesInput,
        shown: _Shown = STREAMED_DECISIONS,
        deadline_at: float | None = None,
    ) -> AsyncIterator[RunEvent]:
        """`_drive`, watched: hooks hear the call begin and end; the metrics count it.

        The call's deadline starts here, unless it started before (a resume's, which
        counts the claim of its state).
        """
        if deadline_at is None:
            deadline_at = self._deadline_at()
        watch = self._watch(operation, streamed=stream or live, messages=messages)
        try:
            await watch.abegin()
            async for event in self._drive(
                steps, watch, stream=stream, live=live, shown=shown, deadline_at=deadline_at
            ):
                if isinstance(event, StreamCompleted):
                    await watch.aemit(watch.finished(event.result))
                yield event
        except BaseException as exc:  # an error, or a stream left early: counted, re-raised
            await watch.aemit(watch.failed(exc))
            raise

    async def _drive(
        self,
        steps: Steps,
        watch: CallWatch,
        *,
        stream: bool,
        live: bool,
        shown: _Shown,
        deadline_at: float,
    ) -> AsyncIterator[RunEvent]:
        """The async twin of `ToolCallClient._drive`."""
        pin = self._balancer.pin()  # affinity: this call's requests stay on one server
        try:
            effect = next(steps)
            while True:
                value: Any = None
                try:
                    match effect:
                        case ChatRequest():
                            async for item in self._send(
                                effect,
                                watch,
                                stream=stream,
                                live=live,
                                deadline_at=deadline_at,
                                pin=pin,
                            ):
                                if isinstance(item, Answer):
                                    value = item
                                else:
                                    yield item
                        case Notify(event=event):
                            await watch.aemit(event)
                            if live and isinstance(event, shown):
                                yield event
                        case RouteQuery():
                            value = await self._ask_router(effect)
                        case ExecuteMany():
                            value = await self._execute_many(effect)
                        case _:
                            assert_never(effect)
                except ToolCallError as exc:
                    effect = steps.throw(exc)  # the flow adds what had run
                    continue
                effect = steps.send(value)
        except StopIteration as done:
            result: ToolCallResult = done.value
        except ToolCallFailed as failed:
            result = await self._escalate(failed)
            watch.escalated = True
        yield StreamCompleted(result)

    def _send(
        self,
        request: ChatRequest,
        watch: CallWatch,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
    ) -> AsyncIterator[_Live]:
        """The async twin of `ToolCallClient._send`."""
        if watch.receivers is None:
            return self._exchange(
                request, stream=stream, live=live, deadline_at=deadline_at, pin=pin
            )
        return self._told(
            request, watch, stream=stream, live=live, deadline_at=deadline_at, pin=pin
        )

    async def _told(
        self,
        request: ChatRequest,
        watch: CallWatch,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
    ) -> AsyncIterator[_Live]:
        """The async twin of `ToolCallClient._told`."""
        sent = watch.request_sent(request, self._streams(request, stream, live))
        await watch.aemit(sent)
        async for item in self._exchange(
            request,
            stream=stream,
            live=live,
            deadline_at=deadline_at,
            pin=pin,
            headers=sent.headers,
        ):
            if isinstance(item, Answer):
                await watch.aemit(watch.answer_received(request, item))
            yield item

    async def _escalate(self, failed: ToolCallFailed) -> ToolCallResult:
        if self._on_escalate is None:
            raise failed
        fallback = self._on_escalate(failed)
        return await fallback if inspect.isawaitable(fallback) else fallback

    async def _exchange(
        self,
        request: ChatRequest,
        *,
        stream: bool,
        live: bool,
        deadline_at: float,
        pin: Pin | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncIterator[_Live]:
        """The async twin of `ToolCallClient._exchange`."""
        steps = self._sender(
            request, stream=stream, live=live, deadline_at=deadline_at, pin=pin, headers=headers
        )
        body = _AReading()
        try:
            effect = next(steps)
            while True:
                value: Any = None
                try:
                    match effect:
                        case Open(server=server, timeout=timeout, kwargs=kwargs):
                            response = await _asend(self._clients[server], kwargs, timeout)
                            await body.aopen(response, effect.within)
                        case Read(within=within):
                            value = await body.read(within)
                        case Sleep(seconds=seconds):
                            await (self._retry.async_sleep or asyncio.sleep)(seconds)
                        case Show(event=event):
                            yield event
                        case _:
                            assert_never(effect)
                except Exception as exc:
                    effect = steps.throw(exc)
                    continue
                effect = steps.send(value)
        except StopIteration as done:
            answer: Answer = done.value
        finally:
            await body.aclose()
            steps.close()
        yield answer

    async def _ask_router(self, query: RouteQuery) -> RouteDecision | bool:
        try:
            value = await consult_async(query.router, query.messages, query.tools)
        except Exception as exc:
            raise _route_error(query.router, exc) from exc
        return value  # type: ignore[no-any-return]

    async def _execute_many(self, effect: ExecuteMany) -> list[Outcome | None]:
        """Run the calls concurrently, each once; the outcomes in call order."""
        outcomes = await asyncio.gather(*(self._invoke(item) for item in effect.calls))
        return list(outcomes)

    async def _invoke(self, effect: Execute) -> Outcome:
        if self._hooks is None:
            return await self._outcome(effect)
        started_at, clock = time.time(), time.perf_counter()
        return _timed(await self._outcome(effect), started_at, clock)

    async def _outcome(self, effect: Execute) -> Outcome:
        tool = effect.tool
        try:
            if tool.timeout is not None:
                if tool.is_async:
                    running: Awaitable[Any] = _start(effect)
                else:
                    running = asyncio.wrap_future(_start_thread(lambda: _call_sync(effect)))
                return await _within(running, tool.timeout)
            if tool.is_async:
                value = await _start(effect)
            else:
                value = await asyncio.to_thread(_start, effect)
                if inspect.isawaitable(value):
                    value = await value
        except Exception as exc:
            return _tool_failed(tool, exc)
        return Outcome(output=value)
