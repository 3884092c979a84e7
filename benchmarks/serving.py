"""Raw client vs the SDK against a real server, on BFCL-shaped requests, in one run.

Each case is a BFCL v4 question with its functions as tools (the non-live categories
`simple_python`, `multiple`, `parallel`, `parallel_multiple`; the live ones are the project's
held-out set and are not offered here). At 1, 8 and 32 concurrent calls, three pipelines
send the same cases, rotating which goes first:

- raw: `AsyncOpenAI.chat.completions.create(tool_choice="required", temperature=0)`, then
  `json.loads` of each call's arguments (what a hand-written client does; no validation);
- sdk-always: `AsyncToolCallClient(router="always")`: one forced request (named when one tool
  is offered), validated, fed back and retried when wrong;
- sdk: `AsyncToolCallClient()` with its defaults: the full pipeline, stage 1 asks the model
  whether a tool is needed (`router="llm"`), then the forced call.

Printed per pipeline and concurrency: calls/s, p50/p99 latency, server requests per call,
prompt/completion tokens per call, failed calls, and the client's CPU time per call with its
share of the call's wall time (the SDK's own cost is the difference to raw's share), and how
busy the client process was (its CPU time over the run's wall time: near 100% the client,
not the server, sets the pace). The client's pool holds as many connections as there are
concurrent calls.

    # the vLLM demo server (`toolcall-sdk launch --demo`), or any OpenAI-compatible server:
    python benchmarks/serving.py --base-url http://127.0.0.1:8000/v1 [--model NAME]
    # no server at hand: a scripted model in a child process answers every request with a
    # valid call of an offered tool (shows the command works; the figures are the client's)
    python benchmarks/serving.py --scripted

BFCL's data comes from `pip install --no-deps bfcl-eval==2026.3.23`; without it a few built-in
BFCL-shaped cases are used (the output says which).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

from toolcall_sdk import AsyncToolCallClient, ToolCallError
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, tool_call

PIPELINES = ("raw", "sdk-always", "sdk")
DEFAULT_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


@dataclass(frozen=True)
class Case:
    id: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


# Used when bfcl-eval is not installed: shaped like BFCL's simple and multiple questions.
_BUILT_IN = [
    Case(
        "builtin_simple_0",
        [{"role": "user", "content": "Find the area of a triangle with base 10 and height 5."}],
        [
            {
                "type": "function",
                "function": {
                    "name": "calculate_triangle_area",
                    "description": "Calculate the area of a triangle given its base and height.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "base": {"type": "integer", "description": "The base of the triangle."},
                            "height": {
                                "type": "integer",
                                "description": "The height of the triangle.",
                            },
                            "unit": {
                                "type": "string",
                                "description": "The unit of measure (default 'units').",
                            },
                        },
                        "required": ["base", "height"],
                    },
                },
            }
        ],
    ),
    Case(
        "builtin_multiple_0",
        [{"role": "user", "content": "What's the weather in Hanoi in celsius for 3 days?"}],
        [
            {
                "type": "function",
                "function": {
                    "name": "weather_forecast",
                    "description": "Weather forecast of a city for some days.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "city": {"type": "string", "description": "The city name."},
                            "days": {"type": "integer", "description": "Days ahead, 1-14."},
                            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                        },
                        "required": ["city", "days"],
                    },
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "stock_price",
                    "description": "The latest price of a stock.",
                    "parameters": {
                        "type": "object",
                        "properties": {"ticker": {"type": "string"}},
                        "required": ["ticker"],
                    },
                },
            },
        ],
    ),
]


def load_cases(categories: list[str], count: int) -> tuple[list[Case], str]:
    """Up to `count` cases, taken in turn from each category; and where they came from."""
    try:
        from toolcall_sdk.bfcl import BfclNotInstalledError, load_category
    except ImportError:  # pragma: no cover - the bfcl loader ships with the package
        return _BUILT_IN, "built-in BFCL-shaped cases"
    try:
        per_category = [load_category(name) for name in categories]
    except BfclNotInstalledError:
        return _BUILT_IN, "built-in BFCL-shaped cases (bfcl-eval is not installed)"
    cases: list[Case] = []
    for index in range(count):
        source = per_category[index % len(per_category)]
        row = source[(index // len(per_category)) % len(source)]
        cases.append(Case(row.id, row.messages, row.tools))
    return cases, f"BFCL v4 {', '.join(categories)}"


# --- the pipelines ---------------------------------------------------------------------


@dataclass
class Outcome:
    latency: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed: str | None = None


@dataclass
class Run:
    outcomes: list[Outcome] = field(default_factory=list)
    wall: float = 0.0
    cpu: float = 0.0
    requests: int = 0


Call = Callable[[Case], Awaitable[tuple[int, int]]]


def _counting_pool(size: int, counter: list[int]) -> httpx2.AsyncClient:
    async def count(request: httpx2.Request) -> None:
        if request.url.path.endswith("/chat/completions"):
            counter[0] += 1

    return httpx2.AsyncClient(
        limits=httpx2.Limits(max_connections=size, max_keepalive_connections=size),
        timeout=httpx2.Timeout(600.0),
        event_hooks={"request": [count]},
    )


class Pipelines:
    """The three ways to send a case, each on its own pool of `size` connections."""

    def __init__(self, base_url: str, model: str, api_key: str, cases: list[Case], size: int):
        self.counters = {name: [0] for name in PIPELINES}
        self._raw = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key,
            max_retries=0,
            http_client=_counting_pool(size, self.counters["raw"]),
        )
        self.model = model
        # One SDK client per toolbox, built before timing (as an application would hold
        # one per tool set); each pipeline shares one openai client and its pool.
        self._sdk: dict[str, dict[str, AsyncToolCallClient]] = {}
        self._shared: list[openai.AsyncOpenAI] = []
        for name, router in (("sdk-always", "always"), ("sdk", "llm")):
            shared = openai.AsyncOpenAI(
                base_url=base_url,
                api_key=api_key,
                max_retries=0,
                http_client=_counting_pool(size, self.counters[name]),
            )
            self._shared.append(shared)
            self._sdk[name] = {
                case.id: AsyncToolCallClient(
                    model=model,
                    tools=case.tools,
                    router=router,
                    temperature=0,
                    openai_client=shared,
                )
                for case in cases
            }

    def call(self, name: str) -> Call:
        if name == "raw":
            return self._raw_call

        async def sdk_call(case: Case) -> tuple[int, int]:
            result = await self._sdk[name][case.id].call(case.messages)
            return result.usage.prompt_tokens, result.usage.completion_tokens

        return sdk_call

    async def _raw_call(self, case: Case) -> tuple[int, int]:
        response = await self._raw.chat.completions.create(
            model=self.model,
            messages=case.messages,  # type: ignore[arg-type]
            tools=case.tools,  # type: ignore[arg-type]
            tool_choice="required",
            temperature=0,
        )
        for call in response.choices[0].message.tool_calls or []:
            json.loads(call.function.arguments)  # type: ignore[union-attr]
        usage = response.usage
        return (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)

    async def close(self) -> None:
        await self._raw.close()
        for client in self._shared:
            await client.close()


async def _drive(call: Call, cases: list[Case], concurrency: int, requests: int) -> Run:
    run = Run()
    left = iter(range(requests))

    async def worker() -> None:
        for index in left:
            case = cases[index % len(cases)]
            started = time.perf_counter()
            try:
                prompt, completion = await call(case)
            except (ToolCallError, openai.APIError, ValueError) as exc:
                elapsed = time.perf_counter() - started
                run.outcomes.append(Outcome(elapsed, failed=type(exc).__name__))
                continue
            elapsed = time.perf_counter() - started
            run.outcomes.append(Outcome(elapsed, prompt, completion))

    started, cpu_started = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    run.wall = time.perf_counter() - started
    run.cpu = time.process_time() - cpu_started
    return run


async def measure(
    base_url: str,
    model: str,
    api_key: str,
    cases: list[Case],
    concurrency: int,
    requests: int,
    rounds: int,
    warmup: bool,
) -> dict[str, list[Run]]:
    pipelines = Pipelines(base_url, model, api_key, cases, concurrency)
    calls = max(requests, 4 * concurrency)  # a round shorter than that measures its stragglers
    try:
        if warmup:
            # A pass over the cases (the server compiles a grammar per schema on first use),
            # and enough calls to open every connection of the pool.
            for name in PIPELINES:
                await _drive(
                    pipelines.call(name), cases, concurrency, max(len(cases), 2 * concurrency)
                )
        runs: dict[str, list[Run]] = {name: [] for name in PIPELINES}
        for number in range(rounds):
            shift = number % len(PIPELINES)
            for name in PIPELINES[shift:] + PIPELINES[:shift]:
                before = pipelines.counters[name][0]
                run = await _drive(pipelines.call(name), cases, concurrency, calls)
                run.requests = pipelines.counters[name][0] - before
                runs[name].append(run)
        return runs
    finally:
        await pipelines.close()


# --- the report ------------------------------------------------------------------------


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _row(concurrency: int, name: str, runs: list[Run]) -> list[str]:
    outcomes = [o for run in runs for o in run.outcomes]
    calls = len(outcomes)
    good = [o for o in outcomes if o.failed is None]
    latencies = [o.latency for o in outcomes]
    wall = sum(run.wall for run in runs)
    cpu_per_call = sum(run.cpu for run in runs) / calls
    mean_latency = statistics.fmean(latencies)
    failures: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.failed is not None:
            failures[outcome.failed] = failures.get(outcome.failed, 0) + 1
    return [
        str(concurrency),
        name,
        f"{calls / wall:.1f}",
        f"{statistics.median(latencies) * 1000:.1f}",
        f"{_percentile(latencies, 0.99) * 1000:.1f}",
        f"{sum(run.requests for run in runs) / calls:.2f}",
        f"{statistics.fmean(o.prompt_tokens for o in good):.0f}" if good else "-",
        f"{statistics.fmean(o.completion_tokens for o in good):.1f}" if good else "-",
        ", ".join(f"{kind} {count}" for kind, count in sorted(failures.items())) or "0",
        f"{cpu_per_call * 1000:.2f}",
        f"{cpu_per_call / mean_latency * 100:.1f}%",
        f"{sum(run.cpu for run in runs) / wall * 100:.0f}%",
    ]


HEADER = [
    "concurrent",
    "pipeline",
    "calls/s",
    "p50 (ms)",
    "p99 (ms)",
    "requests/call",
    "prompt tok/call",
    "completion tok/call",
    "failed",
    "client CPU/call (ms)",
    "client CPU share of wall",
    "client busy",
]


# --- a scripted server for trying the command without a GPU ----------------------------


def _valid_value(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "x"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return _valid_arguments(schema)
    return "x"


def _valid_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    required = schema.get("required") or list(properties)
    return {name: _valid_value(properties.get(name)) for name in required}


def _scripted_answer(request: RecordedRequest) -> Reply:
    tools = request.tools or []
    choice = request.tool_choice
    wanted = choice["function"]["name"] if isinstance(choice, dict) else None
    chosen = next((t for t in tools if t["function"]["name"] == wanted), tools[0])
    function = chosen["function"]
    return tool_call(function["name"], _valid_arguments(function.get("parameters") or {}))


def _serve_scripted() -> None:
    with ScriptedModel(_scripted_answer).serve() as base_url:
        print(base_url, flush=True)
        sys.stdin.read()  # serve until the parent closes our stdin


@contextlib.contextmanager
def _scripted_server() -> Iterator[str]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve-scripted"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


async def _served_model(base_url: str, api_key: str) -> str:
    async with openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0) as client:
        models = await client.models.list()
        return models.data[0].id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--base-url", help="the server's /v1 URL")
    target.add_argument("--scripted", action="store_true", help="a scripted local server")
    parser.add_argument("--model", help="the served model (default: the first listed)")
    parser.add_argument("--api-key", default=os.environ.get("TOOLCALL_API_KEY", "EMPTY"))
    parser.add_argument("--concurrency", default="1,8,32", help="comma-separated levels")
    parser.add_argument(
        "--requests",
        type=int,
        default=48,
        help="calls per pipeline per round (4 per concurrent call at least)",
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cases", type=int, default=16)
    parser.add_argument(
        "--categories",
        default=",".join(DEFAULT_CATEGORIES),
        help="non-live BFCL categories, comma-separated",
    )
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--serve-scripted", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve_scripted:
        _serve_scripted()
        return
    if not (options.base_url or options.scripted):
        parser.error("give --base-url URL, or --scripted")
    from toolcall_sdk.bfcl import NON_LIVE_CATEGORIES

    categories = [c.strip() for c in options.categories.split(",") if c.strip()]
    refused = [c for c in categories if c not in NON_LIVE_CATEGORIES]
    if refused:
        parser.error(f"not a non-live BFCL category: {', '.join(refused)}")
    cases, source = load_cases(categories, options.cases)
    levels = [int(level) for level in options.concurrency.split(",")]
    with contextlib.ExitStack() as stack:
        base_url = stack.enter_context(_scripted_server()) if options.scripted else options.base_url
        model = options.model or asyncio.run(_served_model(base_url, options.api_key))
        one, five, _ = os.getloadavg()
        print(
            f"{base_url}, model {model}; {len(cases)} cases ({source}); {options.requests} "
            "calls per pipeline per round (4 per concurrent call at least), "
            f"{options.rounds} rounds; load {one:.1f} / {five:.1f}\n"
        )
        rows = []
        for concurrency in levels:
            runs = asyncio.run(
                measure(
                    base_url,
                    model,
                    options.api_key,
                    cases,
                    concurrency,
                    options.requests,
                    options.rounds,
                    not options.no_warmup,
                )
            )
            rows += [_row(concurrency, name, runs[name]) for name in PIPELINES]
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    print("\n".join(lines))
    one, five, _ = os.getloadavg()
    print(f"\nload at the end: {one:.1f} / {five:.1f}")


if __name__ == "__main__":
    main()
