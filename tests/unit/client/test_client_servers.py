"""Several servers behind one client: least outstanding, health and recovery, affinity.

Most scenarios run in-process (one scripted model per host behind one mock transport) with
an injected clock, through both twins; the ones that need requests to stay outstanding run
on real local servers whose answers wait on a gate.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    BalancePolicy,
    InvalidArgumentError,
    RequestRejectedError,
    RetryPolicy,
    ServerConnectionError,
    ToolCallClient,
)
from toolcall_sdk.testing import (
    RecordedRequest,
    Reply,
    ScriptedModel,
    disconnect,
    http_error,
    malformed,
    text,
    tool_call,
)

from ..conftest import AsyncTwin, Ledger

WEATHER = {"city": "Oslo", "unit": "celsius"}
COOLDOWN = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


PoolFactory = Callable[..., Any]


def _hosts(models: list[ScriptedModel]) -> httpx2.MockTransport:
    """One transport for several models: `s0.test` is the first, `s1.test` the second..."""
    handlers = {f"s{i}.test": model.transport().handler for i, model in enumerate(models)}

    def handle(request: httpx2.Request) -> httpx2.Response:
        response = handlers[request.url.host](request)
        assert isinstance(response, httpx2.Response)  # the scripted handler is sync
        return response

    return httpx2.MockTransport(handle)


@pytest.fixture
def make_pool(sleeps: list[float], twin: str, clock: Clock) -> Iterator[PoolFactory]:
    """A client over several in-process models (both twins); backoffs recorded, not slept."""
    made: list[AsyncTwin] = []

    async def no_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def factory(models: list[ScriptedModel], tools: list[Any], **options: Any) -> Any:
        options.setdefault("router", "always")
        options.setdefault("balance", BalancePolicy(clock=clock, cooldown=COOLDOWN))
        urls = [f"http://s{i}.test/v1" for i in range(len(models))]
        if twin == "sync":
            options.setdefault("retry", RetryPolicy(sleep=sleeps.append, jitter=0.0))
            http = httpx2.Client(transport=_hosts(models))
            return ToolCallClient(urls, model="m", tools=tools, http_client=http, **options)
        options.setdefault("retry", RetryPolicy(async_sleep=no_sleep, jitter=0.0))
        ahttp = httpx2.AsyncClient(transport=_hosts(models))
        client = AsyncTwin(
            AsyncToolCallClient(urls, model="m", tools=tools, http_client=ahttp, **options)
        )
        made.append(client)
        return client

    yield factory
    for client in made:
        client.close()
        client._loop.close()


def answering(request: RecordedRequest) -> Reply:
    return tool_call("get_weather", WEATHER)


def fixed_after_feedback(request: RecordedRequest) -> Reply:
    """A bad call first; a good one once the request carries the feedback."""
    if any(message.get("role") == "tool" for message in request.messages):
        return tool_call("get_weather", WEATHER)
    return tool_call("get_weather", {"city": 7})


class Switch:
    """A server's script that answers while up and drops the connection while down."""

    def __init__(self, down: Reply | None = None) -> None:
        self.up = True
        self.down = down or disconnect()

    def __call__(self, request: RecordedRequest) -> Reply:
        return answering(request) if self.up else self.down


def test_idle_servers_take_turns(make_pool: PoolFactory, get_weather: Any, ledger: Ledger) -> None:
    a, b = ScriptedModel(answering), ScriptedModel(answering)
    client = make_pool([a, b], [get_weather])

    counts = []
    for _ in range(4):
        client.run("Oslo?")
        counts.append((len(a.requests), len(b.requests)))

    assert counts == [(1, 0), (1, 1), (2, 1), (2, 2)]
    assert ledger.count("get_weather") == 4
    states = client.servers
    assert [s.url for s in states] == ["http://s0.test/v1", "http://s1.test/v1"]
    assert [(s.healthy, s.outstanding, s.sent, s.failures, s.retry_in) for s in states] == [
        (True, 0, 2, 0, None),
        (True, 0, 2, 0, None),
    ]


def test_a_server_that_drops_connections_is_skipped_then_tried_after_its_cooldown(
    make_pool: PoolFactory, get_weather: Any, ledger: Ledger, sleeps: list[float], clock: Clock
) -> None:
    switch = Switch()
    a, b = ScriptedModel(switch), ScriptedModel(answering)
    client = make_pool([a, b], [get_weather])
    switch.up = False

    for _ in range(4):
        client.run("Oslo?")
    # The first call met the dropped connection and went on to b at once (no backoff);
    # the next three skipped a.
    assert (len(a.requests), len(b.requests)) == (1, 4)
    assert sleeps == [0.0]
    a_state = client.servers[0]
    assert (a_state.healthy, a_state.failures, a_state.retry_in) == (False, 1, COOLDOWN)

    clock.now += COOLDOWN - 0.5
    client.run("Oslo?")
    assert (len(a.requests), len(b.requests)) == (1, 5)  # still cooling down

    clock.now += 0.5  # the cool-down is over, but a is still down: its trial fails
    client.run("Oslo?")
    client.run("Oslo?")
    assert (len(a.requests), len(b.requests)) == (2, 7)
    assert client.servers[0].failures == 2

    switch.up = True
    clock.now += COOLDOWN
    client.run("Oslo?")  # the trial succeeds: a is back
    assert client.servers[0].healthy
    for _ in range(4):
        client.run("Oslo?")
    assert (len(a.requests), len(b.requests)) == (5, 9)
    assert ledger.count("get_weather") == 12  # every call ran its function exactly once
    assert [s.outstanding for s in client.servers] == [0, 0]


def test_a_5xx_marks_a_server_unhealthy_a_4xx_does_not(
    make_pool: PoolFactory, get_weather: Any, ledger: Ledger
) -> None:
    switch = Switch(down=http_error(503))
    a, b = ScriptedModel(switch), ScriptedModel(answering)
    client = make_pool([a, b], [get_weather])
    switch.up = False
    client.run("Oslo?")
    assert [s.healthy for s in client.servers] == [False, True]
    assert (len(a.requests), len(b.requests)) == (1, 1)

    rejecting = ScriptedModel(lambda request: http_error(400))
    other = ScriptedModel(answering)
    client = make_pool([rejecting, other], [get_weather])
    with pytest.raises(RequestRejectedError):
        client.run("Oslo?")  # a 400 is the request's fault: not resent, the server is fine
    assert [s.healthy for s in client.servers] == [True, True]
    assert [s.outstanding for s in client.servers] == [0, 0]
    assert ledger.count("get_weather") == 1


def test_affinity_keeps_a_calls_requests_on_one_server(
    make_pool: PoolFactory, get_weather: Any, ledger: Ledger
) -> None:
    a, b = ScriptedModel(fixed_after_feedback), ScriptedModel(fixed_after_feedback)
    client = make_pool([a, b], [get_weather], router="probe", max_retries=2)

    first = client.run("Oslo?")
    second = client.run("Oslo?")

    assert len(first.attempts) == len(second.attempts) == 2
    # Each call's route probe and both of its attempts went to one server: the first call
    # to a, the second (every server idle again) to b.
    for model in (a, b):
        assert [r.stage for r in model.chat_requests] == ["route", "call", "call"]
        assert model.chat_requests[2].messages[-1]["role"] == "tool"  # the feedback
    assert ledger.count("get_weather") == 2


def test_without_affinity_each_request_goes_to_the_least_busy_server(
    make_pool: PoolFactory, get_weather: Any, ledger: Ledger
) -> None:
    a, b = ScriptedModel(fixed_after_feedback), ScriptedModel(fixed_after_feedback)
    client = make_pool([a, b], [get_weather], max_retries=2, balance=BalancePolicy(affinity="none"))

    result = client.run("Oslo?")

    assert len(result.attempts) == 2
    assert [r.messages[-1]["role"] for r in a.chat_requests] == ["user"]
    assert [r.messages[-1]["role"] for r in b.chat_requests] == ["tool"]
    assert ledger.count("get_weather") == 1


def test_a_call_moves_when_its_server_fails_and_stays_where_it_moved(
    make_pool: PoolFactory, get_weather: Any, ledger: Ledger
) -> None:
    replies = iter([tool_call("get_weather", {"city": 7})])
    a = ScriptedModel(lambda request: next(replies, disconnect()))
    b = ScriptedModel(fixed_after_feedback)
    c = ScriptedModel(fixed_after_feedback)
    client = make_pool([a, b, c], [get_weather], max_retries=2)

    result = client.run("Oslo?")

    # a gave the bad call, then dropped the feedback request; the call moved to b, not
    # back into the turns (c got nothing).
    assert len(result.attempts) == 2
    assert (len(a.requests), len(b.requests), len(c.requests)) == (2, 1, 0)
    assert b.chat_requests[0].messages[-1]["role"] == "tool"
    assert ledger.count("get_weather") == 1


def test_a_live_stream_cut_midway_marks_its_server_and_frees_it(
    make_pool: PoolFactory, get_weather: Any
) -> None:
    chunk = (
        'data: {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", '
        '"choices": [{"index": 0, "delta": {"content": "Oslo"}, "finish_reason": null}]}\n\n'
    )
    a, b = ScriptedModel(lambda request: malformed(chunk)), ScriptedModel(lambda r: text("Sun"))
    client = make_pool([a, b], [get_weather], router="never")

    with pytest.raises(ServerConnectionError):
        list(client.stream("Oslo?"))  # shown in part: raised, not resent

    assert [(s.healthy, s.outstanding) for s in client.servers] == [(False, 0), (True, 0)]
    events = list(client.stream("Oslo?"))  # the next one goes to b and is read whole
    assert events[-1].result.content == "Sun"
    assert [(s.healthy, s.outstanding) for s in client.servers] == [(False, 0), (True, 0)]


def test_the_balance_option_is_checked() -> None:
    with pytest.raises(InvalidArgumentError, match="balance must be a BalancePolicy"):
        ToolCallClient(["http://a/v1", "http://b/v1"], model="m", balance="call")  # type: ignore[arg-type]


def test_an_own_openai_client_is_one_server() -> None:
    import openai

    own = openai.OpenAI(base_url="http://one.test/v1", api_key="k")
    client = ToolCallClient(model="m", openai_client=own)
    assert [s.url for s in client.servers] == [str(own.base_url)]


# Real servers: a request stays outstanding while its answer waits on a gate.


class Gate:
    """Holds the answer to requests that ask for it until `open()`."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self._open = threading.Event()

    def open(self) -> None:
        self._open.set()

    def __call__(self, request: RecordedRequest) -> Reply:
        if "slow" in str(request.messages[-1].get("content")):
            self.arrived.set()
            # Bounded: a wrong choice fails the assertions below instead of hanging.
            self._open.wait(10)
        return tool_call("get_weather", WEATHER)


def test_new_requests_avoid_the_server_busy_with_a_slow_one(
    get_weather: Any, ledger: Ledger, twin: str
) -> None:
    gate = Gate()
    a, b = ScriptedModel(gate), ScriptedModel(gate)
    with a.serve() as url_a, b.serve() as url_b:
        urls = [url_a, url_b]
        options: dict[str, Any] = {"tools": [get_weather], "router": "always"}
        if twin == "sync":
            client = ToolCallClient(urls, model="m", **options)
            slow = threading.Thread(target=client.run, args=("slow: Oslo?",))
            slow.start()
            assert gate.arrived.wait(10)
            busy = [s.outstanding for s in client.servers]
            for _ in range(4):
                client.run("Oslo?")
            gate.open()
            slow.join()
            client.close()
        else:

            async def scenario() -> list[int]:
                async with AsyncToolCallClient(urls, model="m", **options) as client:
                    slow = asyncio.ensure_future(client.run("slow: Oslo?"))
                    assert await asyncio.to_thread(gate.arrived.wait, 10)
                    busy = [s.outstanding for s in client.servers]
                    for _ in range(4):
                        await client.run("Oslo?")
                    gate.open()
                    await slow
                    return busy

            busy = asyncio.run(scenario())

    # The slow call went to a (the first turn); all four quick ones to b, which had
    # nothing outstanding. Taking turns would have sent two of them to a.
    assert busy == [1, 0]
    assert len(a.chat_requests) == 1
    assert len(b.chat_requests) == 4
    assert ledger.count("get_weather") == 5


def test_concurrent_calls_even_out_the_outstanding_counts(get_weather: Any, ledger: Ledger) -> None:
    gate = Gate()
    models = [ScriptedModel(gate) for _ in range(3)]

    async def scenario(urls: list[str]) -> list[int]:
        async with AsyncToolCallClient(
            urls, model="m", tools=[get_weather], router="always"
        ) as client:
            held = asyncio.ensure_future(client.run("slow: Oslo?"))
            assert await asyncio.to_thread(gate.arrived.wait, 10)
            rest = [asyncio.ensure_future(client.run("slow: Oslo? again")) for _ in range(8)]
            for _ in range(1000):  # until all nine are sent (bounded: 10 s)
                if sum(s.outstanding for s in client.servers) == 9:
                    break
                await asyncio.sleep(0.01)
            busy = [s.outstanding for s in client.servers]
            gate.open()
            await asyncio.gather(held, *rest)
            assert [s.outstanding for s in client.servers] == [0, 0, 0]
            return busy

    with models[0].serve() as u0, models[1].serve() as u1, models[2].serve() as u2:
        busy = asyncio.run(scenario([u0, u1, u2]))

    # One held on the first server; eight more fill the others first, then even out.
    assert busy == [3, 3, 3]
    assert [len(m.chat_requests) for m in models] == [3, 3, 3]
    assert ledger.count("get_weather") == 9
