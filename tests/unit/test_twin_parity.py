"""The sync and async twins say the same thing, but for what is listed here and why.

Each async twin of the clients (`_client.py`), the transport (`_transport.py`), the
routing driver (`routing/_flow.py`) and prompt embeddings (`embeds/_client.py`) is turned
into sync code by token rules (`_twins`: `await` and `async` dropped, async-marked names
unmarked) and diffed against its sync twin. A difference that is not in `KNOWN`, with its
reason, fails: fix the twin, or list the lines here and say why they must differ. A listed
difference that went away fails too, so the list stays true.

Lines: `- ` the sync twin's, `+ ` the async twin's once made sync (as `ast.unparse` prints
them, without indentation).
"""

from __future__ import annotations

import pytest

from ._twins import module_twins, unmarked

MODULES = (
    "toolcall_sdk/_client.py",
    "toolcall_sdk/_transport.py",
    "toolcall_sdk/routing/_flow.py",
    "toolcall_sdk/embeds/_client.py",
)

_HOOKS_RUN = (
    "the sync client runs async hooks on a private loop (`_run_coroutine`); the async client "
    "awaits them"
)

# Twin pairs whose difference is known: name -> (why, the diff lines).
KNOWN: dict[str, tuple[str, list[str]]] = {
    "toolcall_sdk._client:_Reading.__init__": (
        "only the sync reader holds a watchdog: a thread has no asyncio.timeout",
        ["- self._guard: Watch | None = None"],
    ),
    "toolcall_sdk._client:_Reading.open": (
        "the sync reader arms the socket watchdog at the call's deadline, once per response",
        ["- self._guard = watch(response, within)"],
    ),
    "toolcall_sdk._client:_Reading.read": (
        "each async read is cut by asyncio.timeout (a TimeoutError by itself); a sync read "
        "ended by the watchdog is turned into the TimeoutError the sender expects",
        [
            "- data = next(self._pieces, b'')",
            "- except Exception as exc:",
            "+ with asyncio.timeout(within):",
            "+ data = next(self._pieces, b'')",
            "+ except BaseException:",
            "- if self._fired():",
            "- raise TimeoutError from exc",
            "- if self._fired():",
            "- raise TimeoutError",
        ],
    ),
    "toolcall_sdk._client:_Reading.close": (
        "the sync reader disarms its watchdog before the response goes back to the pool",
        ["- if self._guard is not None:", "- self._guard.cancel()"],
    ),
    "toolcall_sdk._client:_final": (
        "the events are an Iterable in one, an AsyncIterator in the other (the token rules "
        "leave type names and comprehensions alone)",
        [
            "- def _final(events: Iterable[RunEvent]) -> ToolCallResult:",
            "- results = [event.result for event in events if isinstance(event, StreamCompleted)]",
            "+ def _final(events: AsyncIterator[RunEvent]) -> ToolCallResult:",
            "+ results = [event.result async for event in events "
            "if isinstance(event, StreamCompleted)]",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient.__init__": (
        "the async client's openai clients belong to one event loop at a time: `LoopClients` "
        "builds its own anew for a new loop (on openai's default httpx client without the "
        "wrapper that closes it on the loop of the moment when collected), and refuses a "
        "user's pooled client there; a sync client has no loop",
        [
            "- self._clients = [openai_client.with_options(max_retries=0)]",
            "+ given = openai_client.with_options(max_retries=0)",
            "+ self._bound = LoopClients(lambda: [given], given='openai_client', "
            "http_client=getattr(openai_client, '_client', None))",
            "- self._clients = [openai.OpenAI(base_url=url, api_key=self._api_key, "
            "max_retries=0, timeout=self._timeout, http_client=http_client, "
            "default_headers=self._default_headers or None) for url in self._base_urls]",
            "+ self._bound = LoopClients(lambda: [openai.OpenAI(base_url=url, "
            "api_key=self._api_key, max_retries=0, timeout=self._timeout, "
            "http_client=http_client or openai.DefaultAsyncHttpxClient(), "
            "default_headers=self._default_headers or None) for url in self._base_urls], "
            "given=None if http_client is None else 'http_client', http_client=http_client)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient.close": (
        "the async client closes only the clients of the running loop: connections of a "
        "loop that is gone cannot be closed from another",
        ["- for client in self._clients:", "+ for client in self._bound.closable():"],
    ),
    "toolcall_sdk._client:ToolCallClient.resume": (
        "the async client claims the state in a worker thread (a durable ledger writes to "
        "disk, off the event loop)",
        [
            "- plan = self._resumable(state, approvals)",
            "- self._claim(plan, deadline_at)",
            "+ plan = self._aclaimed(state, approvals, deadline_at)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient.stream": (
        "the sync client checks prompt embeddings before returning its iterator and casts "
        "it to ToolCallEvent; the async check must be awaited, so `guarded` runs it at the "
        "first event",
        [
            "- self._embeds.check(messages, self._clients[0])",
            "- return cast(Iterator[ToolCallEvent], self._events(steps, stream=True, "
            "live=True, operation='stream', messages=messages))",
            "+ events = self._events(steps, stream=True, live=True, operation='stream', "
            "messages=messages)",
            "+ return self._embeds.guarded(messages, self._clients[0], events)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient.stream_run": (
        "as for `stream`: the async embeddings check runs at the first event",
        [
            "- self._embeds.check(messages, self._clients[0])",
            "- return self._events(steps, stream=True, live=True, operation='stream_run', "
            "messages=messages, shown=STREAMED_RUN_DECISIONS)",
            "+ events = self._events(steps, stream=True, live=True, operation='stream_run', "
            "messages=messages, shown=STREAMED_RUN_DECISIONS)",
            "+ return self._embeds.guarded(messages, self._clients[0], events)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient.stream_resume": (
        "the sync client claims the state when called; the async one can only await the "
        "claim (off the loop) once iterated, in `_claimed_events`",
        [
            "- deadline_at = self._deadline_at()",
            "- self._claim(plan, deadline_at)",
            "- steps = self._resume_flow(plan, context=context, deps=deps, shows_steps=True)",
            "- return self._events(steps, stream=True, live=True, operation='stream_resume', "
            "messages=plan.saved.messages, shown=STREAMED_RUN_DECISIONS, "
            "deadline_at=deadline_at)",
            "+ return self._claimed_events(plan, context=context, deps=deps)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._events": (
        _HOOKS_RUN,
        [
            "- watch.begin(_run_coroutine)",
            "+ watch.begin()",
            "- watch.emit(watch.finished(event.result), _run_coroutine)",
            "+ watch.emit(watch.finished(event.result))",
            "- watch.emit(watch.failed(exc), _run_coroutine)",
            "+ watch.emit(watch.failed(exc))",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._drive": (
        _HOOKS_RUN,
        ["- watch.emit(event, _run_coroutine)", "+ watch.emit(event)"],
    ),
    "toolcall_sdk._client:ToolCallClient._told": (
        _HOOKS_RUN,
        [
            "- watch.emit(sent, _run_coroutine)",
            "+ watch.emit(sent)",
            "- watch.emit(watch.answer_received(request, item), _run_coroutine)",
            "+ watch.emit(watch.answer_received(request, item))",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._escalate": (
        "an async on_escalate is run on a private loop by the sync client, awaited by the "
        "async one",
        [
            "- return _run_coroutine(fallback) if inspect.isawaitable(fallback) else fallback",
            "+ return fallback if inspect.isawaitable(fallback) else fallback",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._exchange": (
        "the sender's Sleep: the policy's sleep switch, else the twin's own sleep",
        [
            "- (self._retry.sleep or time.sleep)(seconds)",
            "+ (self._retry.sleep or asyncio.sleep)(seconds)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._ask_router": (
        "a sync client refuses an async router; the async client awaits a sync or async one "
        "(`consult_async`)",
        [
            "- value = query.router.decide(query.messages, query.tools)",
            "+ value = consult_async(query.router, query.messages, query.tools)",
            "- if inspect.isawaitable(value):",
            "- if inspect.iscoroutine(value):",
            "- value.close()",
            "- raise RouterError('this router is async: use AsyncToolCallClient with it')",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._execute_many": (
        "documented: the sync client runs an answer's calls in order and stops at the first "
        "ModelRetry; the async client runs them concurrently",
        [
            "- outcomes: list[Outcome | None] = []",
            "- for item in effect.calls:",
            "- retrying = any((o is not None and o.retry_message is not None for o in outcomes))",
            "- outcomes.append(None if retrying else self._invoke(item))",
            "- return outcomes",
            "+ outcomes = asyncio.gather(*(self._invoke(item) for item in effect.calls))",
            "+ return list(outcomes)",
        ],
    ),
    "toolcall_sdk._client:ToolCallClient._outcome": (
        "how a tool runs: the sync client calls it here (a coroutine on a private loop, a "
        "timeout in `_invoke_within`); the async client runs a sync tool in a worker thread",
        [
            "- return self._invoke_within(effect, tool.timeout)",
            "- value = _start(effect)",
            "- if inspect.isawaitable(value):",
            "- value = _run_coroutine(value)",
            "+ if tool.is_async:",
            "+ running: Awaitable[Any] = _start(effect)",
            "+ else:",
            "+ running = asyncio.wrap_future(_start_thread(lambda: _call_sync(effect)))",
            "+ return _within(running, tool.timeout)",
            "+ if tool.is_async:",
            "+ value = _start(effect)",
            "+ else:",
            "+ value = asyncio.to_thread(_start, effect)",
            "+ if inspect.isawaitable(value):",
            "+ value = value",
        ],
    ),
    "toolcall_sdk.routing._flow:drive": (
        "the async driver asks the model off the loop and awaits a sync or async router",
        [
            "- reply = effect.asker.ask(effect.params)",
            "+ reply = asyncio.to_thread(effect.asker.ask, effect.params)",
            "- reply = effect.router.decide(messages, tools)",
            "+ reply = consult_async(effect.router, messages, tools)",
        ],
    ),
}

# Methods of twin classes that only one twin has: name -> why.
ONE_SIDED: dict[str, str] = {
    "toolcall_sdk._client:_Reading._fired": "the watchdog's verdict; async reads need none",
    "toolcall_sdk._client:AsyncToolCallClient._claimed_events": (
        "stream_resume's claim, awaited at the first event (see stream_resume)"
    ),
    "toolcall_sdk._client:AsyncToolCallClient._aclaimed": (
        "resume's claim in a worker thread (see resume)"
    ),
    "toolcall_sdk._client:AsyncToolCallClient.aclose": "an alias of close(), for async code",
    "toolcall_sdk._client:AsyncToolCallClient._clients": (
        "the openai clients of the running event loop (`_loop_clients`); the sync client's "
        "are a plain attribute"
    ),
    "toolcall_sdk._client:ToolCallClient._invoke_within": (
        "a sync tool's timeout needs a daemon thread; the async client awaits `_within`"
    ),
}


def _all() -> dict[str, tuple[int, tuple[str, ...]]]:
    found: dict[str, tuple[int, tuple[str, ...]]] = {}
    for path in MODULES:
        for pair in module_twins(path).pairs:
            found[pair.name] = (pair.lines, pair.diff)
    return found


PAIRS = _all()


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_twins_differ_only_as_listed(name: str) -> None:
    lines, diff = PAIRS[name]
    listed = KNOWN.get(name, ("", []))[1]
    assert list(diff) == listed, (
        f"{name} ({lines} lines) and its async twin differ in a way not listed in KNOWN:\n"
        + "\n".join(diff)
        + "\nMake the twins agree, or list these lines in KNOWN with the reason."
    )


def test_every_listed_difference_is_of_a_twin_pair() -> None:
    assert sorted(set(KNOWN) - set(PAIRS)) == []


def test_methods_only_one_twin_has_are_listed() -> None:
    one_sided = [name for path in MODULES for name in module_twins(path).one_sided]
    assert sorted(one_sided) == sorted(ONE_SIDED)


def test_the_pairs_cover_the_drivers() -> None:
    # The sender's drivers, the effect loops and the hooks' twins are all compared.
    for name in ("_exchange", "_drive", "_events", "_told", "_send", "call", "run", "stream"):
        assert f"toolcall_sdk._client:ToolCallClient.{name}" in PAIRS
    assert "toolcall_sdk._client:_send" in PAIRS
    assert "toolcall_sdk._transport:retrying" in PAIRS
    assert "toolcall_sdk.embeds._client:EmbedsSupport.complete" in PAIRS


def test_the_rules_unmark_only_what_the_sync_side_names() -> None:
    known = {"close", "_send", "Iterator", "retrying", "drive", "__enter__", "_Reading"}
    assert unmarked("aclose", known) == "close"
    assert unmarked("_asend", known) == "_send"
    assert unmarked("_AReading", known) == "_Reading"
    assert unmarked("AsyncIterator", known) == "Iterator"
    assert unmarked("async_retrying", known) == "retrying"
    assert unmarked("drive_async", known) == "drive"
    assert unmarked("__aenter__", known) == "__enter__"
    assert unmarked("args", known) == "args"
    assert unmarked("asyncio", known) == "asyncio"
