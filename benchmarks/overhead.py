"""What the SDK costs next to the raw openai client and its peers, measured in one run.

Every table compares contenders inside the same process, interleaved (each round runs a
batch of each contender, in a rotating order), against the same scripted model, and prints
the ratio to the baseline measured in that run. Sections:

- latency: a valid first-attempt forced call, raw `openai.OpenAI` (create with
  `tool_choice="required"`, `json.loads`, `model_validate`) vs `ToolCallClient`
  (`router="always"`: one request, like the baseline) vs pydantic-ai (an `Agent` whose
  output is the same model as a tool: one forced request, validated) vs instructor, in
  process (`ScriptedModel.http_client()`) and over local HTTP (`ScriptedModel.serve()`);
  median and p99 wall time, and CPU time per call (all threads of this process, the
  scripted server's included, so it holds still when the machine is loaded).
- throughput: async calls per second at 1, 16, 64 and 256 concurrent calls over local HTTP,
  raw `AsyncOpenAI` vs `AsyncToolCallClient`, each on an `httpx2.AsyncClient` whose pool
  holds as many connections as there are concurrent calls.
- feedback: the client-side cost of one feedback round (validating a wrong answer and
  writing the feedback messages), in microseconds; and a whole retried call in process.
- schema: a 30-tool toolbox: defining the tools, the first client (schemas built), a second
  client on the same tools.
- imports: `import` plus a first client, in fresh interpreters: toolcall_sdk, openai,
  pydantic_ai, instructor.
- loop: `run(max_steps=N)` against N separate `run()` calls, per step.
- proxy: a forced call straight to the scripted server vs through `toolcall-sdk proxy`
  (the request of `benchmarks/proxy_overhead.py`).
- recording: the latency call with `record=` off and on (a `TrafficRecorder` on a temporary
  folder, and the same with a `redact` hook), in process, interleaved; and one entry's
  write alone (lock, append, the JSON line), its size, and 8 threads writing at once.

pydantic-ai and instructor are optional: their rows say why they are missing when they are
not installed (`pip install -e '.[bench]'` installs pydantic-ai; instructor does not install
beside openai 3.5x). Tests never assert timings; this prints them.

    python benchmarks/overhead.py            # every section, a few minutes
    python benchmarks/overhead.py --quick    # every section, short runs (noisier)
    python benchmarks/overhead.py --only latency,throughput
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import httpx2
import openai
from pydantic import BaseModel, Field

import toolcall_sdk
from toolcall_sdk import AsyncToolCallClient, ToolCallClient, TrafficRecorder, tool
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

ARGS = {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"}
BAD_ARGS = {"customer_id": "42", "amount_vnd": -5, "due_date": "2030-02-30"}
PROMPT = "Invoice CUS-000042 for 1.5M VND, due end of 2030"
SECTIONS = (
    "latency",
    "throughput",
    "feedback",
    "schema",
    "imports",
    "loop",
    "proxy",
    "recording",
)


class CreateInvoice(BaseModel):
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")]
    amount_vnd: Annotated[int, Field(gt=0)]
    due_date: date


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: date,
) -> str:
    """Create an invoice for a customer."""
    return "INV-1"


TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "create_invoice",
            "description": "Create an invoice for a customer.",
            "parameters": CreateInvoice.model_json_schema(),
        },
    }
]


@dataclass(frozen=True)
class Sizes:
    """How long each section runs."""

    rounds: int  # latency rounds (each runs a batch of every contender)
    batch: int
    throughput_calls: int  # calls per contender per round, at least 4 per concurrent call
    throughput_rounds: int
    feedback_repeats: int
    interpreters: int  # fresh interpreters per library for import times
    loop_runs: int


FULL = Sizes(30, 20, 400, 3, 2000, 7, 40)
QUICK = Sizes(8, 10, 150, 1, 300, 3, 10)


# --- measuring -------------------------------------------------------------------------


@dataclass
class Samples:
    """Wall time of each call, and CPU time per call of each batch."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def p50(self) -> float:
        return statistics.median(self.wall)

    def p99(self) -> float:
        ordered = sorted(self.wall)
        return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]

    def cpu50(self) -> float:
        return statistics.median(self.cpu)


def _interleaved(
    contenders: dict[str, Callable[[], Any]], rounds: int, batch: int
) -> dict[str, Samples]:
    """Run `rounds` batches of every contender, rotating who goes first."""
    for once in contenders.values():
        for _ in range(max(10, batch)):  # warm-up: connections, caches, lazy imports
            once()
    samples = {name: Samples() for name in contenders}
    names = list(contenders)
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            once, into = contenders[name], samples[name]
            cpu_started = time.process_time()
            for _ in range(batch):
                started = time.perf_counter()
                once()
                into.wall.append(time.perf_counter() - started)
            into.cpu.append((time.process_time() - cpu_started) / batch)
    return samples


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (1 min), {five:.1f} (5 min)"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f}"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f}"


# --- contenders ------------------------------------------------------------------------


def _answer(request: RecordedRequest) -> Reply:
    if request.stage == "answer":
        return text("Done.")
    return tool_call("create_invoice", ARGS)


def _raw(client: openai.OpenAI) -> Callable[[], Any]:
    def once() -> Any:
        response = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": PROMPT}],
            tools=TOOLS,
            tool_choice="required",
            temperature=0,
        )
        call = response.choices[0].message.tool_calls[0]  # type: ignore[index]
        return CreateInvoice.model_validate(json.loads(call.function.arguments))  # type: ignore[union-attr]

    return once


def _sdk(client: ToolCallClient) -> Callable[[], Any]:
    def once() -> Any:
        return client.call(PROMPT).calls[0].arguments

    return once


def _pydantic_ai(base_url: str, http_client: httpx2.AsyncClient | None) -> Callable[[], Any]:
    from pydantic_ai import Agent, ToolOutput
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    client = openai.AsyncOpenAI(
        base_url=base_url, api_key="x", max_retries=0, http_client=http_client
    )
    agent = Agent(
        OpenAIChatModel("m", provider=OpenAIProvider(openai_client=client)),
        output_type=ToolOutput(
            CreateInvoice, name="create_invoice", description="Create an invoice for a customer."
        ),
    )

    def once() -> Any:
        return agent.run_sync(PROMPT).output

    return once


def _instructor(base_url: str, http_client: httpx2.Client | None) -> Callable[[], Any]:
    import instructor

    client = instructor.from_openai(
        openai.OpenAI(base_url=base_url, api_key="x", max_retries=0, http_client=http_client),
        mode=instructor.Mode.TOOLS,
    )

    def once() -> Any:
        return client.chat.completions.create(
            model="m",
            response_model=CreateInvoice,
            messages=[{"role": "user", "content": PROMPT}],
            max_retries=0,
        )

    return once


def _missing(module: str) -> str | None:
    """Why `module` cannot be measured, or None when it imports."""
    try:
        __import__(module)
    except ImportError as exc:
        return f"not installed ({exc.name or module})"
    return None


_INSTALL_HINTS = {
    "pydantic_ai": "pip install -e '.[bench]'",
    "instructor": "no instructor release installs beside openai 3.5x (pip: jiter conflict)",
}


# --- sections --------------------------------------------------------------------------


def latency(sizes: Sizes) -> str:
    model = ScriptedModel(_answer)
    peers = {name: _missing(name) for name in ("pydantic_ai", "instructor")}
    out = []
    for transport in ("in-process", "local HTTP"):
        with contextlib.ExitStack() as stack:
            if transport == "in-process":
                base_url = model.base_url
                sync_http: Callable[[], httpx2.Client | None] = model.http_client
                async_http: Callable[[], httpx2.AsyncClient | None] = model.async_http_client
            else:
                base_url = stack.enter_context(model.serve())
                sync_http, async_http = (lambda: None), (lambda: None)
            contenders: dict[str, Callable[[], Any]] = {
                "raw openai": _raw(
                    openai.OpenAI(
                        base_url=base_url, api_key="x", max_retries=0, http_client=sync_http()
                    )
                ),
                "toolcall-sdk": _sdk(
                    ToolCallClient(
                        base_url=base_url,
                        model="m",
                        tools=[create_invoice],
                        router="always",
                        http_client=sync_http(),
                    )
                ),
            }
            if peers["pydantic_ai"] is None:
                contenders["pydantic-ai"] = _pydantic_ai(base_url, async_http())
            if peers["instructor"] is None:
                contenders["instructor"] = _instructor(base_url, sync_http())
            samples = _interleaved(contenders, sizes.rounds, sizes.batch)
        raw = samples["raw openai"]
        rows = []
        for name, got in samples.items():
            rows.append(
                [
                    name,
                    _ms(got.p50()),
                    _ms(got.p99()),
                    _us(got.cpu50()),
                    f"{got.p50() / raw.p50():.3f}",
                    f"{got.cpu50() / raw.cpu50():.3f}",
                ]
            )
        for name, why in peers.items():
            if why is not None:
                rows.append([name, "-", "-", "-", f"skipped: {why}; {_INSTALL_HINTS[name]}", "-"])
        calls = sizes.rounds * sizes.batch
        out.append(
            f"### Latency of a valid first-attempt call, {transport} ({calls} calls each)\n\n"
            + _table(
                [
                    "client",
                    "p50 (ms)",
                    "p99 (ms)",
                    "CPU/call (µs)",
                    "p50 / raw",
                    "CPU / raw",
                ],
                rows,
            )
        )
    return "\n\n".join(out)


def throughput(sizes: Sizes) -> str:
    rows = []
    with _server_process() as base_url:
        for concurrency in (1, 16, 64, 256):
            calls = max(sizes.throughput_calls, 4 * concurrency)
            rates, cpu = asyncio.run(
                _throughput_rounds(base_url, concurrency, calls, sizes.throughput_rounds)
            )
            raw, sdk = statistics.median(rates["raw"]), statistics.median(rates["sdk"])
            raw_cpu, sdk_cpu = statistics.median(cpu["raw"]), statistics.median(cpu["sdk"])
            rows.append(
                [
                    str(concurrency),
                    str(calls),
                    f"{raw:.0f}",
                    f"{sdk:.0f}",
                    f"{sdk / raw:.3f}",
                    _us(raw_cpu),
                    _us(sdk_cpu),
                    f"{sdk_cpu / raw_cpu:.3f}",
                ]
            )
    return (
        "### Async throughput over local HTTP (median of rounds; pool = concurrency; the "
        "scripted server in its own process)\n\n"
        + _table(
            [
                "concurrent calls",
                "calls per round",
                "raw AsyncOpenAI calls/s",
                "AsyncToolCallClient calls/s",
                "SDK / raw",
                "raw CPU/call (µs)",
                "SDK CPU/call (µs)",
                "CPU SDK / raw",
            ],
            rows,
        )
    )


@contextlib.contextmanager
def _server_process() -> Iterator[str]:
    """The scripted model served by a child process: its threads do not hold our GIL."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip()
    finally:
        assert child.stdin is not None
        child.stdin.close()  # the child serves until its stdin ends
        child.wait(timeout=30)


def _serve_until_stdin_ends() -> None:
    with ScriptedModel(_answer).serve() as base_url:
        print(base_url, flush=True)
        sys.stdin.read()


def _pool(size: int) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        limits=httpx2.Limits(max_connections=size, max_keepalive_connections=size),
        timeout=60.0,
    )


async def _throughput_rounds(
    base_url: str, concurrency: int, calls: int, rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    raw_client = openai.AsyncOpenAI(
        base_url=base_url, api_key="x", max_retries=0, http_client=_pool(concurrency)
    )
    sdk_client = AsyncToolCallClient(
        base_url=base_url,
        model="m",
        tools=[create_invoice],
        router="always",
        http_client=_pool(concurrency),
    )

    async def raw_once() -> Any:
        response = await raw_client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": PROMPT}],
            tools=TOOLS,
            tool_choice="required",
            temperature=0,
        )
        call = response.choices[0].message.tool_calls[0]  # type: ignore[index]
        return CreateInvoice.model_validate(json.loads(call.function.arguments))  # type: ignore[union-attr]

    async def sdk_once() -> Any:
        return (await sdk_client.call(PROMPT)).calls[0].arguments

    contenders = {"raw": raw_once, "sdk": sdk_once}
    for once in contenders.values():  # warm-up: open the pool's connections
        await _drive(once, concurrency, 2 * concurrency)
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    for number in range(rounds):
        order = list(contenders) if number % 2 == 0 else list(reversed(contenders))
        for name in order:
            started, cpu_started = time.perf_counter(), time.process_time()
            await _drive(contenders[name], concurrency, calls)
            rates[name].append(calls / (time.perf_counter() - started))
            cpu[name].append((time.process_time() - cpu_started) / calls)
    await raw_client.close()
    await sdk_client.close()
    return rates, cpu


async def _drive(once: Callable[[], Awaitable[Any]], concurrency: int, calls: int) -> None:
    left = iter(range(calls))

    async def worker() -> None:
        for _ in left:
            await once()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


def feedback(sizes: Sizes) -> str:
    from toolcall_sdk._messages import assistant_history_entry
    from toolcall_sdk._pipeline import _feedback_messages
    from toolcall_sdk._validation import check_answer

    tools = {"create_invoice": create_invoice}
    schemas = {"create_invoice": create_invoice.openai_schema()["function"]["parameters"]}

    def message(arguments: dict[str, Any]) -> dict[str, Any]:
        function = {"name": "create_invoice", "arguments": json.dumps(arguments)}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": function}],
        }

    bad, good = message(BAD_ARGS), message(ARGS)

    def round_trip(answer: dict[str, Any]) -> Callable[[], Any]:
        def once() -> Any:
            calls, problems = check_answer(answer, tools, schemas=schemas)
            entry = assistant_history_entry(answer)
            if problems:
                return entry, _feedback_messages(answer, calls, problems, ["create_invoice"], {})
            return entry, calls

        return once

    pieces = _interleaved(
        {"wrong answer": round_trip(bad), "valid answer": round_trip(good)},
        rounds=max(4, sizes.feedback_repeats // 100),
        batch=100,
    )
    calls, problems = check_answer(bad, tools, schemas=schemas)
    written = _feedback_messages(bad, calls, problems, ["create_invoice"], {})

    model = ScriptedModel(_retry_once)
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[create_invoice],
        router="always",
        http_client=model.http_client(),
    )
    whole = _interleaved(
        {
            "first attempt valid": _sdk(client),
            "one feedback round": lambda: client.call("retry " + PROMPT).calls[0].arguments,
        },
        rounds=max(4, sizes.rounds // 2),
        batch=sizes.batch,
    )
    rows = [
        [
            "validate a wrong answer (3 field errors) + write its feedback",
            _us(pieces["wrong answer"].p50()),
        ],
        ["validate a valid answer (for comparison)", _us(pieces["valid answer"].p50())],
        [
            "call() with one feedback round minus call() valid at once, in process "
            "(one more request included)",
            _us(whole["one feedback round"].p50() - whole["first attempt valid"].p50()),
        ],
    ]
    return (
        "### One feedback round, client side (µs, median)\n\n"
        + _table(["what", "µs"], rows)
        + f"\n\nThe feedback written ({len(written[0]['content'])} characters):\n\n"
        + "\n".join("    " + line for line in written[0]["content"].splitlines())
    )


def _retry_once(request: RecordedRequest) -> Reply:
    # A prompt starting with "retry" gets a wrong answer first, then the valid one.
    first = request.messages[0].get("content", "")
    if str(first).startswith("retry") and len(request.messages) == 1:
        return tool_call("create_invoice", BAD_ARGS)
    return tool_call("create_invoice", ARGS)


_TOOLBOX_SOURCE = '''
def tool_{i}(
    city_{i}: Annotated[str, Field(description="The city, as its English name")],
    days: Annotated[int, Field(ge=1, le=14)] = 3,
    unit: Literal["celsius", "fahrenheit"] = "celsius",
    when: date | None = None,
) -> str:
    """Forecast number {i}: the weather of a city for some days."""
    return city_{i}
'''


def _fresh_toolbox(count: int) -> list[Any]:
    """`count` new functions (new objects, so no cache of an earlier run applies)."""
    from typing import Literal

    namespace: dict[str, Any] = {
        "Annotated": Annotated,
        "Field": Field,
        "Literal": Literal,
        "date": date,
    }
    exec("".join(_TOOLBOX_SOURCE.format(i=i) for i in range(count)), namespace)
    return [namespace[f"tool_{i}"] for i in range(count)]


def _toolbox_once() -> dict[str, float]:
    functions = _fresh_toolbox(30)
    marks = [time.perf_counter()]
    tools = [tool(function) for function in functions]
    marks.append(time.perf_counter())
    for _ in range(2):
        for item in tools:
            item.openai_schema(strict=True)
        marks.append(time.perf_counter())
    ToolCallClient(base_url="http://127.0.0.1:9/v1", model="m", tools=tools).close()
    marks.append(time.perf_counter())
    labels = ("define", "first", "again", "client")
    return {label: marks[i + 1] - marks[i] for i, label in enumerate(labels)}


def schema(sizes: Sizes) -> str:
    timings: dict[str, list[float]] = {}
    for _ in range(max(3, sizes.interpreters)):
        for label, seconds in _toolbox_once().items():
            timings.setdefault(label, []).append(seconds)
    rows = [
        [
            "`@tool` on 30 new functions (arguments models built)",
            _ms(statistics.median(timings["define"])),
        ],
        ["their 30 strict schemas, first time", _ms(statistics.median(timings["first"]))],
        ["the same again (cached)", _ms(statistics.median(timings["again"]))],
        [
            "a client on the 30 tools (schemas cached; the openai client's SSL context is most "
            "of it)",
            _ms(statistics.median(timings["client"])),
        ],
    ]
    return "### Schemas of a 30-tool toolbox (ms, median)\n\n" + _table(["what", "ms"], rows)


_IMPORTS = {
    "toolcall_sdk": (
        "import toolcall_sdk\n"
        "@toolcall_sdk.tool\n"
        "def f(city: str) -> str:\n"
        "    '''Look up a city.'''\n"
        "    return city\n"
        "toolcall_sdk.ToolCallClient(base_url='http://127.0.0.1:9/v1', model='m', tools=[f])\n"
    ),
    "openai": "import openai\nopenai.OpenAI(base_url='http://127.0.0.1:9/v1', api_key='x')\n",
    "pydantic_ai": (
        "import openai, pydantic, pydantic_ai\n"
        "from pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n"
        "class F(pydantic.BaseModel):\n"
        "    city: str\n"
        "client = openai.AsyncOpenAI(base_url='http://127.0.0.1:9/v1', api_key='x')\n"
        "pydantic_ai.Agent(OpenAIChatModel('m', provider=OpenAIProvider(openai_client=client)),"
        " output_type=pydantic_ai.ToolOutput(F))\n"
    ),
    "instructor": (
        "import instructor, openai\n"
        "instructor.from_openai(openai.OpenAI(base_url='http://127.0.0.1:9/v1', api_key='x'))\n"
    ),
}


def imports(sizes: Sizes) -> str:
    timings: dict[str, list[float]] = {name: [] for name in _IMPORTS}
    skipped = {name: why for name in _IMPORTS if (why := _missing(name)) is not None}
    for _ in range(sizes.interpreters):
        for name, snippet in _IMPORTS.items():
            if name in skipped:
                continue
            timed = (
                "import time\nstarted = time.perf_counter()\n"
                + snippet
                + "print(time.perf_counter() - started)\n"
            )
            done = subprocess.run(
                [sys.executable, "-c", timed], capture_output=True, text=True, check=True
            )
            timings[name].append(float(done.stdout.split()[-1]))
    base = statistics.median(timings["openai"])
    rows = []
    for name, values in timings.items():
        if name in skipped:
            rows.append([name, "-", f"skipped: {skipped[name]}; {_INSTALL_HINTS[name]}"])
            continue
        median = statistics.median(values)
        rows.append([name, _ms(median), f"{median / base:.2f}"])
    return (
        f"### Import + first client, fresh interpreters (ms, median of {sizes.interpreters})\n\n"
        + _table(["library", "ms", "/ openai"], rows)
    )


def loop(sizes: Sizes) -> str:
    steps = 8
    model = ScriptedModel(_answer)

    def router(messages: list[dict[str, Any]], tools: Any) -> bool:
        # A call per step until N-1 tool results are in; then the text answer ends the run.
        return sum(message.get("role") == "tool" for message in messages) < steps - 1

    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[create_invoice],
        router=router,
        http_client=model.http_client(),
    )

    def agent_loop() -> Any:
        return client.run(PROMPT, max_steps=steps, loop_guard=None)

    def separate() -> Any:
        return [client.run(PROMPT) for _ in range(steps)]

    samples = _interleaved(
        {"loop": agent_loop, "separate": separate}, rounds=sizes.loop_runs, batch=1
    )
    per_loop = samples["loop"].p50() / steps
    per_call = samples["separate"].p50() / steps
    rows = [
        [f"`run(max_steps={steps})`, per step", _us(per_loop)],
        [f"{steps} separate `run()` calls, per call", _us(per_call)],
        ["loop overhead per step", f"{(per_loop - per_call) * 1e6:+.0f}"],
    ]
    return (
        f"### Agent loop, in process (µs, median of {sizes.loop_runs} runs; the loop's "
        "requests carry the growing conversation)\n\n" + _table(["what", "µs"], rows)
    )


def proxy(sizes: Sizes) -> str:
    why = _missing("uvicorn") or _missing("starlette")
    if why is not None:
        return f"### Proxy\n\nskipped: {why}; install the `proxy` extra"
    from proxy_overhead import WITH_TOOLS, _post  # type: ignore[import-not-found]
    from proxy_overhead import _answer as proxy_answer

    from toolcall_sdk.proxy import create_app, serve_in_thread

    model = ScriptedModel(proxy_answer)
    with model.serve() as upstream:
        app = create_app(upstream, router="always")
        with (
            serve_in_thread(app) as proxy_url,
            httpx2.Client(base_url=upstream) as direct,
            httpx2.Client(base_url=proxy_url) as proxied,
        ):
            samples = _interleaved(
                {"direct": _post(direct, WITH_TOOLS), "proxy": _post(proxied, WITH_TOOLS)},
                rounds=sizes.rounds,
                batch=sizes.batch,
            )
    direct_s, proxy_s = samples["direct"], samples["proxy"]
    rows = [
        [
            "forced call, validated by the proxy",
            _ms(direct_s.p50()),
            _ms(proxy_s.p50()),
            f"{(proxy_s.p50() - direct_s.p50()) * 1000:+.3f}",
            _ms(proxy_s.p99()),
        ]
    ]
    return "### Proxy, local HTTP (ms)\n\n" + _table(
        ["request", "direct p50", "via proxy p50", "added p50", "via proxy p99"], rows
    )


def _redact(entry: dict[str, Any]) -> dict[str, Any]:
    # What a typical hook does: blank the users' words, keep the shape.
    for message in entry["messages"]:
        if isinstance(message.get("content"), str):
            message["content"] = "[redacted]"
    return entry


def recording(sizes: Sizes) -> str:
    model = ScriptedModel(_answer)
    with tempfile.TemporaryDirectory() as on, tempfile.TemporaryDirectory() as redacted:

        def client(record: Any) -> ToolCallClient:
            return ToolCallClient(
                base_url=model.base_url,
                model="m",
                tools=[create_invoice],
                router="always",
                http_client=model.http_client(),
                record=record,
            )

        samples = _interleaved(
            {
                "record off": _sdk(client(None)),
                "record= a folder": _sdk(client(on)),
                "record= a TrafficRecorder with redact": _sdk(
                    client(TrafficRecorder(redacted, redact=_redact))
                ),
            },
            sizes.rounds,
            sizes.batch,
        )
        line = (Path(on) / "traffic.jsonl").read_text().splitlines()[0]
    off = samples["record off"]
    rows = [
        [
            name,
            _ms(got.p50()),
            _ms(got.p99()),
            _us(got.cpu50()),
            f"{got.p50() / off.p50():.3f}",
            f"{got.cpu50() / off.cpu50():.3f}",
        ]
        for name, got in samples.items()
    ]
    entry = json.loads(line)
    alone, threaded = _writes(entry, sizes)
    calls = sizes.rounds * sizes.batch
    return (
        f"### Recording, in process ({calls} calls each)\n\n"
        + _table(
            ["client", "p50 (ms)", "p99 (ms)", "CPU/call (µs)", "p50 / off", "CPU / off"], rows
        )
        + "\n\n### One entry written (µs, median)\n\n"
        + _table(
            ["what", "µs"],
            [
                [f"`TrafficRecorder.record()` of a recorded call ({len(line) + 1} bytes)", alone],
                ["the same, 8 threads writing at once, per entry (wall / entries)", threaded],
            ],
        )
    )


def _writes(entry: dict[str, Any], sizes: Sizes) -> tuple[str, str]:
    """One entry's write alone, then 8 threads at once; each in a fresh folder."""
    count = max(200, sizes.feedback_repeats)
    with tempfile.TemporaryDirectory() as folder:
        recorder = TrafficRecorder(folder)
        times = []
        for _ in range(count):
            started = time.perf_counter()
            recorder.record(dict(entry))
            times.append(time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as folder:
        recorder = TrafficRecorder(folder)

        def writer() -> None:
            for _ in range(count):
                recorder.record(dict(entry))

        threads = [threading.Thread(target=writer) for _ in range(8)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        per_entry = (time.perf_counter() - started) / (8 * count)
    return _us(statistics.median(times)), _us(per_entry)


# --- main ------------------------------------------------------------------------------


@contextlib.contextmanager
def _section(name: str) -> Iterator[None]:
    started = time.perf_counter()
    print(f"<!-- {name}: load {_load()} -->", file=sys.stderr, flush=True)
    yield
    print(f"<!-- {name}: {time.perf_counter() - started:.1f} s -->", file=sys.stderr, flush=True)


def _versions() -> str:
    found = []
    for name in ("openai", "httpx2", "pydantic", "pydantic_ai", "instructor"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found.append(f"{name} {getattr(module, '__version__', '?')}")
    return ", ".join(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (noisier figures)")
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated: {', '.join(SECTIONS)}"
    )
    parser.add_argument("--section", choices=SECTIONS, help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        _serve_until_stdin_ends()
        return
    sizes = QUICK if options.quick else FULL
    if options.section:
        print(_RUNNERS[options.section](sizes) + "\n", flush=True)
        return
    chosen = [name.strip() for name in options.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    print(
        f"toolcall-sdk {toolcall_sdk.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, load {_load()}; {_versions()}\n",
        flush=True,
    )
    for name in SECTIONS:
        if name in chosen:
            # Each section in a fresh interpreter: what one leaves behind (threads, a heap
            # full of recorded requests for the garbage collector to walk) must not slow
            # the next one.
            with _section(name):
                command = [sys.executable, __file__, "--section", name]
                subprocess.run(command + (["--quick"] if options.quick else []), check=True)
    print(f"load at the end: {_load()}")


_RUNNERS: dict[str, Callable[[Sizes], str]] = {
    "latency": latency,
    "throughput": throughput,
    "feedback": feedback,
    "schema": schema,
    "imports": imports,
    "loop": loop,
    "proxy": proxy,
    "recording": recording,
}


if __name__ == "__main__":
    main()
