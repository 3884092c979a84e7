"""Chaos: many `run()` calls through a seeded fault mix, against a real local HTTP server.

    python benchmarks/chaos.py [--calls 10000] [--stream] [--seed 0] [--fault-rate 0.2]
                               [--faults endless,trickle,...] [--concurrency 64]
                               [--deadline 5] [--json]

A `ScriptedModel` served over HTTP (in a process of its own, so that its threads do not
share the client's interpreter lock) answers every request from a script callable. The
callable injects a fault into a share `--fault-rate` of the requests, the fault drawn from
a random generator seeded by `--seed`, the call's id, the model turn and the how-manieth
try of that turn it is: the same seed injects the same faults into the same calls whatever
the concurrency. The faults:

- transport: HTTP 5xx; HTTP 429 with a `Retry-After` (seconds, an HTTP date, or `nan`); the
  connection dropped before the answer, or mid-body (in `--stream` mode: mid-SSE); a body
  that is not JSON; a body that trickles in (`trickle()`: some within the deadline, some
  not); an answer that never ends (`endless_stream()`); in `--stream` mode, a stream that
  ends cleanly without a finish reason or `[DONE]` (after the first of two calls, when
  there are two);
- model: arguments that fail validation, an unknown tool, argument text that is not JSON,
  arguments over the 1,000,000-character bound, arguments nested past 100 levels (each is
  fed back; the model then answers right);
- exactly once: the model answers with a pair of calls (`charge`, then `notify`) whose
  second raises `ModelRetry` the first time it runs; the model then repeats the pair, so
  the `charge` that already ran must be reused, not run again.

Each call's user message holds a unique id that the model puts in the arguments, and each
business function counts its executions per id. The report: completed calls, typed failures
by class, lost calls (neither completed nor raised a `ToolCallError`: must be 0), double
executions (must be 0), executions a raised error did not report in `.executed` (must be 0),
untyped exceptions (must be 0), model attempts and requests per call, latency percentiles,
and every call's wall time against its deadline plus one backoff (the bound docs/reliability.md
states; the time the client's event loop waited for a CPU on a loaded machine, read from
Linux's scheduler statistics, is reported apart). `tests/unit/client/test_chaos.py` runs a
smaller version and asserts the zeros.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email.utils
import json
import logging
import multiprocessing
import random
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import Field

if __name__ == "__main__":  # `python benchmarks/chaos.py`: put the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolcall_sdk import (
    AsyncToolCallClient,
    ModelRetry,
    RetryPolicy,
    ToolCallError,
    ToolCallResult,
    tool,
)
from toolcall_sdk.testing import (
    RecordedRequest,
    Reply,
    ScriptedModel,
    cut,
    disconnect,
    endless_stream,
    http_error,
    malformed,
    parallel,
    tool_call,
    trickle,
)

TRANSPORT_FAULTS: Final = (
    "http_5xx",
    "http_429",
    "drop_before_answer",
    "drop_mid_answer",
    "invalid_body",
    "trickle",
    "endless",
)
STREAM_FAULTS: Final = ("early_end",)
MODEL_FAULTS: Final = (
    "bad_arguments",
    "unknown_tool",
    "invalid_json_arguments",
    "huge_arguments",
    "deep_arguments",
)
PAIR: Final = "model_retry_pair"

HUGE_CHARS: Final = 1_000_001  # one past the SDK's bound on argument text
DEEP_LEVELS: Final = 150  # past the SDK's bound of 100 levels
SSE_PIECE: Final = 65_536  # argument characters per event in the faults rendered here


def faults_for(stream: bool) -> tuple[str, ...]:
    """The fault classes a run injects (the early clean end exists only for streams)."""
    return (*TRANSPORT_FAULTS, *(STREAM_FAULTS if stream else ()), *MODEL_FAULTS, PAIR)


@dataclass(frozen=True)
class ChaosConfig:
    """One chaos run.

    Attributes:
        calls: How many `run()` calls.
        concurrency: How many run at once (one async client).
        stream: Whether each call streams its answers (`run(..., stream=True)`).
        seed: Seeds the fault draws.
        fault_rate: Share of requests that get a fault.
        deadline: Each call's `deadline=` in seconds.
        timeout: Each request's silence timeout (`timeout=`), in seconds. No more than one
            backoff: a wait for bytes under way when the deadline passes ends at the latest
            after one timeout (docs/reliability.md), so the bound holds for a stalled server.
        attempts: Transport tries per request (`RetryPolicy.attempts`).
        initial_backoff: `RetryPolicy.initial_backoff`.
        max_backoff: `RetryPolicy.max_backoff`.
        jitter: `RetryPolicy.jitter`.
        max_retry_after: `RetryPolicy.max_retry_after`.
        max_retries: Model attempts after the first (`max_retries=`).
        trickle_interval: Seconds between the pieces of a trickling body.
        endless_interval: Seconds between the chunks of an endless stream.
        faults: The fault classes to draw from (None: all of `faults_for(stream)`), each
            as likely; name one several times to weigh it more.
    """

    calls: int = 10_000
    concurrency: int = 64
    stream: bool = False
    seed: int = 0
    fault_rate: float = 0.2
    deadline: float = 5.0
    timeout: float = 1.0
    attempts: int = 4
    initial_backoff: float = 0.1
    max_backoff: float = 1.0
    jitter: float = 0.1
    max_retry_after: float = 1.0
    max_retries: int = 2
    trickle_interval: float = 0.01
    endless_interval: float = 0.01
    faults: tuple[str, ...] | None = None

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(
            attempts=self.attempts,
            initial_backoff=self.initial_backoff,
            max_backoff=self.max_backoff,
            jitter=self.jitter,
            max_retry_after=self.max_retry_after,
        )

    def one_backoff(self) -> float:
        """The longest single backoff this policy can sleep (the last retry's, or a capped
        `Retry-After`)."""
        doublings = max(self.attempts - 2, 0)
        computed = min(self.initial_backoff * 2.0**doublings, self.max_backoff)
        return max(computed + self.jitter, self.max_retry_after)

    def bound(self) -> float:
        """What docs/reliability.md promises: a call ends within its deadline plus one backoff."""
        return self.deadline + self.one_backoff()


# -- the model: a script callable that injects the faults --------------------------------


def ref_of(messages: Sequence[dict[str, Any]]) -> str:
    """The call's id, from its first user message: `[C000042] ...`."""
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and content[:1] == "[":
            return content[1 : content.index("]")]
    raise ValueError("no call id in the conversation")


def amount_of(ref: str) -> int:
    return 1 + int(ref[1:]) % 997


class FaultScript:
    """The `ScriptedModel` script: a right answer, or a fault, per request.

    Called one request at a time (the model holds a lock), so it may keep counts.
    """

    def __init__(self, config: ChaosConfig) -> None:
        self.config = config
        self.faults = config.faults or faults_for(config.stream)
        self.injected: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self._tries: Counter[tuple[str, int]] = Counter()

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = request.messages
        ref = ref_of(messages)
        turn = sum(1 for message in messages if message.get("role") == "assistant")
        tries = self._tries[(ref, turn)]
        self._tries[(ref, turn)] += 1
        self.requests[ref] += 1
        rng = random.Random(f"{self.config.seed}/{ref}/{turn}/{tries}")
        paired = any(
            len(message.get("tool_calls") or []) == 2
            for message in messages
            if message.get("role") == "assistant"
        )
        if rng.random() >= self.config.fault_rate:
            return self._answer(ref, paired)
        fault = rng.choice(self.faults)
        self.injected[fault] += 1
        return self._fault(fault, ref, paired, rng)

    def stats(self) -> dict[str, Any]:
        return {
            "injected": dict(self.injected),
            "requests": sum(self.requests.values()),
            "max_requests_per_call": max(self.requests.values(), default=0),
        }

    def _answer(self, ref: str, paired: bool) -> Reply:
        charge = tool_call("charge", {"ref": ref, "amount": amount_of(ref)})
        return parallel(charge, tool_call("notify", {"ref": ref})) if paired else charge

    def _fault(self, fault: str, ref: str, paired: bool, rng: random.Random) -> Reply:
        config = self.config
        answer = self._answer(ref, paired)
        match fault:
            case "http_5xx":
                return http_error(rng.choice([500, 502, 503, 504]))
            case "http_429":
                return http_error(429, headers={"Retry-After": _retry_after(rng)})
            case "drop_before_answer":
                return disconnect()
            case "drop_mid_answer":
                # Within the body: a plain one is about 400 bytes, a stream several KB.
                return cut(answer, after=rng.randrange(1, 3000 if config.stream else 300))
            case "invalid_body":
                return malformed("data: {oops\n\n" if config.stream else '{"choices": [{')
            case "trickle":
                if rng.random() < 0.5:  # 64 bytes a piece: arrives well within the deadline
                    return trickle(answer, interval=config.trickle_interval, piece=64)
                # 1 byte a piece, slow enough that even the shortest body (about 400 bytes)
                # takes twice the deadline: never silent, never done in time.
                return trickle(answer, interval=2 * config.deadline / 400, piece=1)
            case "endless":
                return endless_stream(interval=config.endless_interval)
            case "early_end":
                calls = [("charge", {"ref": ref, "amount": amount_of(ref)})]
                return malformed(_sse(calls, complete=False))
            case "bad_arguments":
                return tool_call("charge", {"ref": ref, "amount": rng.choice([-5, 0, "five"])})
            case "unknown_tool":
                return tool_call("refund", {"ref": ref, "amount": amount_of(ref)})
            case "invalid_json_arguments":
                return tool_call("charge", f'{{"ref": "{ref}", "amount": 5,,}}')
            case "huge_arguments":
                memo = {"ref": ref, "amount": amount_of(ref), "memo": "x" * HUGE_CHARS}
                calls = [("charge", memo)]
                return malformed(_sse(calls) if config.stream else _body(calls))
            case "deep_arguments":
                deep = "[" * DEEP_LEVELS + "]" * DEEP_LEVELS
                return tool_call("charge", f'{{"ref": "{ref}", "amount": 5, "memo": {deep}}}')
            case "model_retry_pair":
                return self._answer(ref, True)
        raise AssertionError(f"unknown fault {fault}")


def _retry_after(rng: random.Random) -> str:
    # Seconds as given (capped by max_retry_after), an HTTP date counted from the response's
    # Date header, and a value the SDK must ignore.
    kind = rng.choice(["0", "0.2", "1", "date", "nan"])
    if kind == "date":
        return email.utils.formatdate(time.time() + 1, usegmt=True)
    return kind


def _call_json(index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": index,
        "id": f"call_{name}_{index}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _body(calls: Sequence[tuple[str, dict[str, Any]]]) -> bytes:
    """A chat completion body with `calls`, written out here so a megabyte of arguments
    costs one `json.dumps`."""
    tool_calls = [_call_json(i, name, args) for i, (name, args) in enumerate(calls)]
    for item in tool_calls:
        del item["index"]
    body = {
        "id": "chatcmpl-chaos",
        "object": "chat.completion",
        "created": 0,
        "model": "chaos",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": tool_calls},
                "finish_reason": "tool_calls",
            }
        ],
    }
    return json.dumps(body).encode()


def _sse(calls: Sequence[tuple[str, dict[str, Any]]], *, complete: bool = True) -> bytes:
    """The event stream of `calls`, arguments in `SSE_PIECE`-character deltas; without the
    finish reason and `[DONE]` when not `complete` (a stream that ended early, cleanly)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        event = {
            "id": "chatcmpl-chaos",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "chaos",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(event)}\n\n".encode()

    events = [chunk({"role": "assistant", "content": ""})]
    for index, (name, arguments) in enumerate(calls):
        head = _call_json(index, name, {})
        text = json.dumps(arguments)
        head["function"]["arguments"] = ""
        events.append(chunk({"tool_calls": [head]}))
        for start in range(0, len(text), SSE_PIECE):
            piece = {"index": index, "function": {"arguments": text[start : start + SSE_PIECE]}}
            events.append(chunk({"tool_calls": [piece]}))
    if complete:
        events += [chunk({}, "tool_calls"), b"data: [DONE]\n\n"]
    return b"".join(events)


def serve_faults(config: ChaosConfig, conn: Connection) -> None:
    """The server process: serve the fault script until told to stop, then send its counts."""
    script = FaultScript(config)
    model = ScriptedModel(script)
    with model.serve() as base_url:
        conn.send(base_url)
        conn.recv()
        conn.send({**script.stats(), "script_errors": [str(e) for e in model.errors[:5]]})


@contextlib.contextmanager
def fault_server(config: ChaosConfig) -> Iterator[tuple[str, dict[str, Any]]]:
    """Runs `serve_faults` in a fresh process; yields its base URL and, after the block,
    fills the dict with its counts."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=serve_faults, args=(config, child), daemon=True)
    process.start()
    stats: dict[str, Any] = {}
    try:
        started = time.monotonic()
        while not parent.poll(0.1):
            # Minutes, not seconds: a new interpreter importing openai on a starved machine.
            if not process.is_alive() or time.monotonic() - started > 600:
                raise RuntimeError(f"the chaos server did not start (exit code {process.exitcode})")
        yield parent.recv(), stats
        parent.send("stop")
        if parent.poll(600):
            stats.update(parent.recv())
    finally:
        process.join(10)
        if process.is_alive():
            process.kill()


# -- the client side: business functions that count, one call per id ---------------------


class Ledger:
    """Executions per (tool, call id); thread-safe (sync tools run in worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.ran: Counter[tuple[str, str]] = Counter()
        self.retried: set[str] = set()

    def record(self, name: str, ref: str) -> None:
        with self._lock:
            self.ran[(name, ref)] += 1

    def first_notify(self, ref: str) -> bool:
        with self._lock:
            first = ref not in self.retried
            self.retried.add(ref)
            return first


def make_tools(ledger: Ledger) -> list[Any]:
    @tool
    def charge(ref: str, amount: Annotated[int, Field(gt=0)]) -> str:
        """Charge an amount to an order."""
        ledger.record("charge", ref)
        return f"charged {amount} to {ref}"

    @tool
    def notify(ref: str) -> str:
        """Tell the customer about the charge."""
        if ledger.first_notify(ref):
            raise ModelRetry("the customer could not be reached; call notify again")
        ledger.record("notify", ref)
        return "sent"

    return [charge, notify]


@dataclass
class CallOutcome:
    ref: str
    wall_s: float
    stalled_s: float = 0.0  # how long the event loop waited for a CPU during the call
    result: ToolCallResult | None = None
    error: BaseException | None = None
    hung: bool = False


@dataclass
class ChaosReport:
    """What one chaos run saw. The zero counts are the acceptance criteria."""

    config: ChaosConfig
    completed: int = 0
    failed_by_class: dict[str, int] = field(default_factory=dict)
    lost: int = 0
    lost_examples: list[str] = field(default_factory=list)
    double_executions: int = 0
    unreported_executions: int = 0
    untyped: int = 0
    untyped_examples: list[str] = field(default_factory=list)
    over_bound: int = 0
    over_bound_stalled: int = 0
    max_cpu_wait_s: float = 0.0
    max_wall_s: float = 0.0
    max_overrun_s: float = 0.0
    p50_s: float = 0.0
    p99_s: float = 0.0
    max_attempts: int = 0
    pairs_completed: int = 0
    reused_calls: int = 0
    injected: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    max_requests_per_call: int = 0
    script_errors: list[str] = field(default_factory=list)
    longest: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def failed(self) -> int:
        return sum(self.failed_by_class.values())

    def problems(self) -> list[str]:
        """Every broken promise; empty when the run held."""
        found = []
        for name in ("lost", "double_executions", "unreported_executions", "untyped"):
            if getattr(self, name):
                found.append(f"{name}: {getattr(self, name)}")
        if self.over_bound:
            found.append(
                f"{self.over_bound} call(s) past deadline + one backoff "
                f"({self.config.bound():.2f} s; longest {self.max_wall_s:.2f} s) beyond the "
                "time the client waited for a CPU"
            )
        if self.script_errors:
            found.append(f"script errors: {self.script_errors}")
        if self.completed + self.failed + self.lost + self.untyped != self.config.calls:
            found.append("the counts do not add up to the calls")
        return found


_SCHEDSTAT: Final = "/proc/thread-self/schedstat"


def cpu_wait() -> float:
    """Seconds this thread has spent ready to run but waiting for a CPU (Linux; 0 elsewhere).

    On a loaded machine a process waits for a CPU, and no code can notice a deadline while
    it waits; the chaos report tells that time apart from the SDK's own.
    """
    try:
        with open(_SCHEDSTAT) as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def run_chaos(config: ChaosConfig) -> ChaosReport:
    """Run the calls against a fault server; judge each one."""
    ledger = Ledger()
    with fault_server(config) as (base_url, stats):
        client = AsyncToolCallClient(
            base_url=base_url,
            model="chaos",
            tools=make_tools(ledger),
            router="always",
            deadline=config.deadline,
            timeout=config.timeout,
            retry=config.retry_policy(),
            max_retries=config.max_retries,
        )
        gate = asyncio.Semaphore(config.concurrency)
        # Far past the bound: only a call that hangs meets it.
        watchdog = config.bound() + 30.0

        async def one(index: int) -> CallOutcome:
            ref = f"C{index:06d}"
            async with gate:
                started, waited = time.monotonic(), cpu_wait()
                outcome = CallOutcome(ref, 0.0)
                try:
                    async with asyncio.timeout(watchdog) as timer:
                        outcome.result = await client.run(
                            f"[{ref}] charge {amount_of(ref)} to order {ref}",
                            stream=config.stream,
                        )
                except BaseException as exc:
                    if isinstance(exc, TimeoutError) and timer.expired():
                        outcome.hung = True
                    elif isinstance(exc, Exception):
                        outcome.error = exc
                    else:
                        raise
                outcome.wall_s = time.monotonic() - started
                outcome.stalled_s = cpu_wait() - waited
                return outcome

        started = time.monotonic()
        outcomes = await asyncio.gather(*(one(i) for i in range(config.calls)))
        elapsed = time.monotonic() - started
        await client.close()
    report = judge(config, outcomes, ledger)
    report.elapsed_s = elapsed
    report.injected = dict(sorted(stats.get("injected", {}).items()))
    report.requests = stats.get("requests", 0)
    report.max_requests_per_call = stats.get("max_requests_per_call", 0)
    report.script_errors = stats.get("script_errors", [])
    return report


def judge(config: ChaosConfig, outcomes: Sequence[CallOutcome], ledger: Ledger) -> ChaosReport:
    """Sort every call into completed / typed failure / lost / untyped, and check the
    side effects against what each call said."""
    report = ChaosReport(config)
    failed: Counter[str] = Counter()
    walls: list[float] = []
    for outcome in outcomes:
        ref = outcome.ref
        charges = ledger.ran[("charge", ref)]
        notifies = ledger.ran[("notify", ref)]
        report.double_executions += max(charges - 1, 0) + max(notifies - 1, 0)
        walls.append(outcome.wall_s)
        report.max_cpu_wait_s = max(report.max_cpu_wait_s, outcome.stalled_s)
        if outcome.wall_s > config.bound():
            # Time the client waited for a CPU is not the SDK's: the rest must fit the bound.
            if outcome.wall_s - outcome.stalled_s > config.bound():
                report.over_bound += 1
            else:
                report.over_bound_stalled += 1
        if outcome.result is not None:
            paired = ref in ledger.retried  # notify ran: the answer was a pair
            problem = _check_completed(outcome.result, ref, charges, notifies, paired)
            if problem is None:
                report.completed += 1
                report.max_attempts = max(report.max_attempts, len(outcome.result.attempts))
                report.reused_calls += sum(
                    1 for c in outcome.result.calls if c.reused_from is not None
                )
                report.pairs_completed += notifies
            else:
                _lost(report, f"{ref}: {problem}")
        elif isinstance(outcome.error, ToolCallError):
            failed[type(outcome.error).__name__] += 1
            attempts = getattr(outcome.error, "attempts", None) or []
            report.max_attempts = max(report.max_attempts, len(attempts))
            executed = getattr(outcome.error, "executed", None) or []
            said = {c.name for c in executed if c.executed and c.reused_from is None}
            report.unreported_executions += (charges > 0 and "charge" not in said) + (
                notifies > 0 and "notify" not in said
            )
        elif outcome.error is not None:
            report.untyped += 1
            if len(report.untyped_examples) < 5:
                report.untyped_examples.append(f"{ref}: {outcome.error!r}")
        else:
            _lost(report, f"{ref}: hung past {config.bound() + 30:.0f} s")
    for outcome in sorted(outcomes, key=lambda o: -o.wall_s)[:3]:
        ended = f"{type(outcome.error).__name__}: {outcome.error}" if outcome.error else "completed"
        report.longest.append(f"{outcome.ref} {outcome.wall_s:.3f} s {ended[:160]}")
    report.failed_by_class = dict(sorted(failed.items()))
    report.max_wall_s = max(walls, default=0.0)
    report.max_overrun_s = report.max_wall_s - config.deadline
    if walls:
        cuts = statistics.quantiles(walls, n=100, method="inclusive")
        report.p50_s, report.p99_s = cuts[49], cuts[98]
    return report


def _check_completed(
    result: ToolCallResult, ref: str, charges: int, notifies: int, paired: bool
) -> str | None:
    outputs = [c.output for c in result.calls if c.name == "charge"]
    if charges != 1:
        return f"returned, but charge ran {charges} times"
    if f"charged {amount_of(ref)} to {ref}" not in outputs:
        return f"returned without the charge's output ({outputs!r})"
    if paired and (notifies != 1 or "sent" not in [c.output for c in result.calls]):
        return f"returned a pair, but notify succeeded {notifies} times"
    return None


def _lost(report: ChaosReport, why: str) -> None:
    report.lost += 1
    if len(report.lost_examples) < 5:
        report.lost_examples.append(why)


def render(report: ChaosReport) -> str:
    config = report.config
    mode = "streamed" if config.stream else "plain"
    lines = [
        f"{config.calls} run() calls ({mode}), concurrency {config.concurrency}, seed "
        f"{config.seed}, fault rate {config.fault_rate:g}, deadline {config.deadline:g} s",
        f"requests served: {report.requests}; faults injected: {sum(report.injected.values())}",
    ]
    lines += [f"  {name:24} {count:6}" for name, count in report.injected.items()]
    lines += [
        f"completed:               {report.completed}",
        f"typed failures:          {report.failed}",
    ]
    lines += [f"  {name:24} {count:6}" for name, count in report.failed_by_class.items()]
    lines += [
        f"lost:                    {report.lost}",
        f"double executions:       {report.double_executions}",
        f"unreported executions:   {report.unreported_executions}",
        f"untyped exceptions:      {report.untyped}",
        f"pairs after ModelRetry:  {report.pairs_completed} completed, "
        f"{report.reused_calls} repeated calls reused",
        f"max model attempts:      {report.max_attempts}",
        f"max requests per call:   {report.max_requests_per_call}",
        f"latency p50 / p99 / max: {report.p50_s:.3f} / {report.p99_s:.3f} / "
        f"{report.max_wall_s:.3f} s",
        f"deadline + one backoff:  {config.bound():.2f} s; longest call "
        f"{report.max_wall_s:.2f} s ({report.max_overrun_s:+.2f} s past the deadline); "
        f"{report.over_bound} past the bound, {report.over_bound_stalled} more past it only "
        f"while the client waited for a CPU (longest wait in one call "
        f"{report.max_cpu_wait_s:.2f} s)",
        "longest calls:",
        *(f"  {line}" for line in report.longest),
        f"wall time:               {report.elapsed_s:.1f} s",
    ]
    lines += [f"LOST {example}" for example in report.lost_examples]
    lines += [f"UNTYPED {example}" for example in report.untyped_examples]
    problems = report.problems()
    lines.append("held: 0 lost, 0 double, 0 untyped" if not problems else f"BROKEN: {problems}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    defaults = ChaosConfig()
    parser.add_argument("--calls", type=int, default=defaults.calls)
    parser.add_argument("--concurrency", type=int, default=defaults.concurrency)
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--fault-rate", type=float, default=defaults.fault_rate)
    parser.add_argument("--deadline", type=float, default=defaults.deadline)
    parser.add_argument(
        "--faults",
        type=lambda text: tuple(text.split(",")),
        help="the fault mix: comma-separated classes, a class named twice weighs double "
        f"(default: all of {', '.join(faults_for(True))})",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    # Every transport retry logs a warning: thousands here, all expected.
    logging.getLogger("toolcall_sdk").setLevel(logging.ERROR)
    config = ChaosConfig(
        calls=args.calls,
        concurrency=args.concurrency,
        stream=args.stream,
        seed=args.seed,
        fault_rate=args.fault_rate,
        deadline=args.deadline,
        faults=args.faults,
    )
    unknown = set(config.faults or ()) - set(faults_for(config.stream))
    if unknown:
        parser.error(f"unknown fault classes for this mode: {', '.join(sorted(unknown))}")
    report = asyncio.run(run_chaos(config))
    if args.json:
        print(json.dumps({**asdict(report), "bound_s": config.bound()}, indent=2, default=str))
    else:
        print(render(report))
    return 1 if report.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
