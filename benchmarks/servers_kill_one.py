"""Kill one of three servers during a run of calls, then bring it back.

Three local scripted servers (`ScriptedModel.serve()`), one `AsyncToolCallClient` over the
three, `run()` calls made `concurrency` at a time. Each call asks for order N; the scripted
model answers with a call `record(n=N)` after a short wait, so requests are in flight when
the server dies. At 20% of the calls the second server is stopped (its sockets closed, the
answers it was waiting out dropped, new connections refused); at 35% the balancer's clock
passes the cool-down while it is still dead, so one trial request meets it and fails over;
at 50% it is served again on the same port and the clock passes the cool-down once more.

Counted: calls that did not come back with their order's result (lost), orders recorded
more than once (a business function run twice), chat requests per server in each phase.
The unit test `tests/unit/client/test_client_kill_one_server.py` runs this with fewer calls.

    python benchmarks/servers_kill_one.py [--calls 1000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from toolcall_sdk import AsyncToolCallClient, BalancePolicy, ServerState, tool
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, delay, tool_call

COOLDOWN = 10.0
# Long enough that a few requests are always waiting on each server when one is killed.
ANSWER_WAIT = 0.01


class _Clock:
    """The balancer's clock, moved by the scenario (no sleeping through cool-downs)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class KillReport:
    """What happened. The request counts are the chat requests each server received (in
    `base_url` order) up to the end of the kill, from then to the end of the restart, and
    after it; a request refused by the dead server is not received."""

    calls: int
    lost: int
    executed_twice: int
    executions: int
    resent: int  # requests sent again after a failed try (failovers)
    before_kill: list[int]
    while_down: list[int]
    after_restart: list[int]
    seconds: float
    servers: list[ServerState] = field(default_factory=list)


def _answer(request: RecordedRequest) -> Reply:
    text = str(request.messages[-1].get("content"))
    return delay(ANSWER_WAIT, tool_call("record", {"n": int(text.rsplit(" ", 1)[1])}))


def _delta(later: list[int], earlier: list[int]) -> list[int]:
    return [b - a for a, b in zip(earlier, later, strict=True)]


async def kill_one_of_three(calls: int = 1000, concurrency: int = 32) -> KillReport:
    """Run the scenario (see the module doc) and count what was lost or run twice."""
    executed: Counter[int] = Counter()

    @tool
    def record(n: int) -> int:
        """Record order n."""
        executed[n] += 1
        return n

    models = [ScriptedModel(_answer) for _ in range(3)]
    clock = _Clock()
    milestones = {name: asyncio.Event() for name in ("kill", "probe", "restart")}
    marks = {"kill": calls * 20 // 100, "probe": calls * 35 // 100, "restart": calls * 50 // 100}
    done = 0
    lost = 0

    def chat_counts() -> list[int]:
        return [len(model.chat_requests) for model in models]

    # Entered and left by hand: the second server's block ends mid-run and a new one begins.
    serving = [model.serve() for model in models]
    urls = [context.__enter__() for context in serving]
    port = urlsplit(urls[1]).port
    assert port is not None
    client = AsyncToolCallClient(
        urls,
        model="m",
        tools=[record],
        router="always",
        balance=BalancePolicy(clock=clock, cooldown=COOLDOWN),
    )
    try:

        async def one(n: int) -> None:
            nonlocal done, lost
            try:
                result = await client.run(f"order {n}")
                if [c.output for c in result.calls] != [n]:
                    lost += 1
            except Exception:
                lost += 1
            done += 1
            for name, mark in marks.items():
                if done == mark:
                    milestones[name].set()

        async def worker(numbers: Any) -> None:
            for n in numbers:
                await one(n)

        async def control() -> dict[str, list[int]]:
            counts: dict[str, list[int]] = {}
            await milestones["kill"].wait()
            # Stopping joins the server's threads: not on the event loop's thread.
            killed, serving[1] = serving[1], contextlib.nullcontext("")
            await asyncio.to_thread(killed.__exit__, None, None, None)
            counts["kill"] = chat_counts()  # all the dead server took in
            await milestones["probe"].wait()
            clock.now += COOLDOWN  # the dead server's cool-down ends: one trial meets it
            await milestones["restart"].wait()
            revived = models[1].serve(port=port)
            await asyncio.to_thread(revived.__enter__)
            serving[1] = revived
            counts["restart"] = chat_counts()
            clock.now += COOLDOWN
            return counts

        started = time.perf_counter()
        numbers = iter(range(calls))
        controller = asyncio.ensure_future(control())
        await asyncio.gather(*(worker(numbers) for _ in range(concurrency)))
        counts = await controller
        seconds = time.perf_counter() - started
        end = chat_counts()
        servers = client.servers
    finally:
        await client.close()
        for context in serving:
            await asyncio.to_thread(context.__exit__, None, None, None)

    return KillReport(
        calls=calls,
        lost=lost + sum(1 for n in range(calls) if executed[n] == 0),
        executed_twice=sum(1 for count in executed.values() if count > 1),
        executions=sum(executed.values()),
        resent=sum(state.sent for state in servers) - calls,
        before_kill=counts["kill"],
        while_down=_delta(counts["restart"], counts["kill"]),
        after_restart=_delta(end, counts["restart"]),
        seconds=seconds,
        servers=servers,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    options = parser.parse_args()
    report = asyncio.run(kill_one_of_three(options.calls, options.concurrency))
    print(f"calls {report.calls}, concurrency {options.concurrency}, {report.seconds:.1f} s")
    print(
        f"lost {report.lost}, run twice {report.executed_twice}, runs {report.executions}, "
        f"requests resent {report.resent}"
    )
    print("chat requests per server (second one killed):")
    print(f"  before the kill   {report.before_kill}")
    print(f"  while it was down {report.while_down}")
    print(f"  after its restart {report.after_restart}")
    for state in report.servers:
        print(f"  {state.url}: healthy={state.healthy} sent={state.sent}")


if __name__ == "__main__":
    main()
