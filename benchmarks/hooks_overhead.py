"""What hooks cost per `client.call()`: none, a no-op hook, and the OpenTelemetry hook.

Every client talks to its own scripted model in-process (no network to drown the
difference) with `router="always"` (one request per call). The clients take turns, round
by round, in alternating order, and each round is timed in process CPU time, so a busy
machine slows every client alike; the ratios are medians of per-round ratios to the
client without hooks.

    python benchmarks/hooks_overhead.py [--calls 30] [--rounds 40]

The OpenTelemetry rows need the `otel` extra and opentelemetry-sdk (the `dev` extra).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from toolcall_sdk import ToolCallClient, tool
from toolcall_sdk.events import HookEvent
from toolcall_sdk.testing import ScriptedModel, tool_call


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def _client(hooks: list[Any]) -> Callable[[], Any]:
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": "Oslo"}))
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
        hooks=hooks,
    )
    return lambda: client.call("Weather in Oslo?")


def _noop(event: HookEvent) -> None:
    pass


def _clients() -> dict[str, Callable[[], Any]]:
    clients = {"no hooks": _client([]), "a no-op hook": _client([_noop])}
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )
        from opentelemetry.trace import NoOpTracerProvider

        from toolcall_sdk.otel import OtelHook
    except ImportError:
        return clients
    clients["OtelHook, no tracer"] = _client([OtelHook(tracer_provider=NoOpTracerProvider())])
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    recording = _client([OtelHook(tracer_provider=provider)])

    def recorded() -> Any:
        exporter.clear()  # keep memory flat over the run
        return recording()

    clients["OtelHook, recording"] = recorded
    return clients


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="calls per client per round")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()

    clients = _clients()
    for call in clients.values():
        for _ in range(50):  # warm-up: imports, schema caches, connection pools
            call()
    samples: dict[str, list[float]] = {name: [] for name in clients}
    for number in range(args.rounds):
        order = list(clients.items())
        if number % 2:
            order.reverse()
        for name, call in order:
            started = time.process_time()
            for _ in range(args.calls):
                call()
            samples[name].append((time.process_time() - started) / args.calls)

    base = samples["no hooks"]
    print("| hooks | CPU per call (µs, median) | vs no hooks |")
    print("|---|---|---|")
    for name, values in samples.items():
        ratio = statistics.median(v / b for v, b in zip(values, base, strict=True))
        print(f"| {name} | {statistics.median(values) * 1e6:.0f} | {ratio:.3f}x |")


if __name__ == "__main__":
    main()
