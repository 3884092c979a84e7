"""How far past its deadline a call ends when the server falls silent mid-answer.

A local scripted server (`ScriptedModel.serve()`) sends the headers and the first piece of
the answer at once, the next piece `--gap` seconds later, then nothing for a minute. The
deadline (`--deadline`, default 1 s) falls inside the second silence, so the read waiting
when it passes is what must end. `timeout=` is 30 s: a read left to its own timeout would
end only when the next piece came. For each twin (sync, async) and each mode (a JSON
body, a stream read whole, a stream shown live), `--runs` calls are made; printed is the
overrun (time the call took minus the deadline), median and worst, and the error raised.

    python benchmarks/deadline_overrun.py [--deadline 1.0] [--gap 0.9] [--runs 5]

The unit test `test_a_read_waiting_when_the_deadline_passes_is_abandoned_then`
(tests/unit/client/test_client_deadline.py) asserts which error each case raises.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from toolcall_sdk import AsyncToolCallClient, ToolCallClient, ToolCallError, tool
from toolcall_sdk.testing import ScriptedModel, tool_call, trickle

MODES = ("call", "call(stream=True)", "stream()")


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def _options(base_url: str, deadline: float) -> dict[str, Any]:
    return {
        "base_url": base_url,
        "model": "m",
        "tools": [get_weather],
        "router": "always",
        "deadline": deadline,
        "timeout": 30.0,
    }


def _sync_call(base_url: str, deadline: float, mode: str) -> tuple[str, float]:
    with ToolCallClient(**_options(base_url, deadline)) as client:
        started = time.monotonic()
        try:
            if mode == "stream()":
                list(client.stream("weather?"))
            else:
                client.call("weather?", stream=mode != "call")
        except ToolCallError as exc:
            return type(exc).__name__, time.monotonic() - started
        return "no error", time.monotonic() - started


async def _async_call(base_url: str, deadline: float, mode: str) -> tuple[str, float]:
    async with AsyncToolCallClient(**_options(base_url, deadline)) as client:
        started = time.monotonic()
        try:
            if mode == "stream()":
                async for _ in client.stream("weather?"):
                    pass
            else:
                await client.call("weather?", stream=mode != "call")
        except ToolCallError as exc:
            return type(exc).__name__, time.monotonic() - started
        return "no error", time.monotonic() - started


def measure(twin: str, mode: str, *, deadline: float, gap: float, runs: int) -> str:
    overruns: list[float] = []
    errors: set[str] = set()
    for _ in range(runs):
        # The body is cut into 100-byte pieces: the first goes at once, the second after
        # `gap`, the third after twice that, far past the deadline.
        reply = trickle(tool_call("get_weather", {"city": "Oslo"}), interval=gap, piece=100)
        model = ScriptedModel([reply])
        with model.serve() as base_url:
            if twin == "sync":
                error, took = _sync_call(base_url, deadline, mode)
            else:
                error, took = asyncio.run(_async_call(base_url, deadline, mode))
            overruns.append(took - deadline)
        errors.add(error)
    return (
        f"| {twin} | {mode} | {statistics.median(overruns):.3f} s | {max(overruns):.3f} s "
        f"| {', '.join(sorted(errors))} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deadline", type=float, default=1.0)
    parser.add_argument("--gap", type=float, default=0.9)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"deadline {args.deadline} s, second piece after {args.gap} s, timeout 30 s")
    print("| client | mode | overrun, median | overrun, worst | error |")
    print("|---|---|---|---|---|")
    for twin in ("sync", "async"):
        for mode in MODES:
            print(measure(twin, mode, deadline=args.deadline, gap=args.gap, runs=args.runs))


if __name__ == "__main__":
    main()
