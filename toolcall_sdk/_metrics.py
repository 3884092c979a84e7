"""`client.metrics`: what a client's calls have done so far, counted as each call ends.

One record per finished call, taken from its result (or its exception's attempts), under
a lock: the counters are a handful of integer additions, the latency goes into a fixed
ring. Nothing is allocated per event, and nothing runs while the call is under way, so a
client without hooks pays for its metrics once per call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from toolcall_sdk._events import CallOutcome
from toolcall_sdk._results import Attempt, Usage

__all__ = ["LATENCY_WINDOW", "ClientMetrics", "MetricsRecorder"]

# The latency percentiles are over the last this many calls: 32 KiB of floats per client,
# enough for a stable p99, and recent enough to show a change within minutes of traffic.
LATENCY_WINDOW = 4096


@dataclass(frozen=True, slots=True)
class ClientMetrics:
    """A snapshot of a client's calls (`client.metrics`).

    Every `call()`, `run()`, `resume()` and `stream()` that ended counts once.

    Attributes:
        calls: Calls that ended.
        outcomes: Calls by outcome: `ok`, `escalated` (`on_escalate` gave the result),
            `failed` (`ToolCallFailed`), `error` (another exception), `cancelled` (a
            stream left before its end).
        attempts: Stage-2 attempts (model answers asked to call a tool) over all calls.
        attempts_per_call: How many calls made 0, 1, 2, ... attempts (0: a plain answer).
        failures: Rejected answers' problems by kind (`invalid_arguments`, `invalid_json`,
            `unknown_tool`, `no_tool_call`, `tool_retry`, `not_executed`, `ungrounded`).
        errors: Calls that raised, by exception class name (`ToolCallFailed`,
            `ServerConnectionError`, `ApprovalRequired`, ...).
        parser_misses: Attempts whose calls were recovered from the answer's text.
        repairs: Deterministic argument repairs made before validation.
        usage: Tokens over all calls (for a call that raised, its attempts' tokens).
        latency_p50_s: Median seconds per call over the last `LATENCY_WINDOW` calls; None
            before the first call.
        latency_p90_s: 90th percentile, likewise.
        latency_p99_s: 99th percentile, likewise.
        latency_max_s: The slowest of those calls.
    """

    calls: int
    outcomes: Mapping[str, int]
    attempts: int
    attempts_per_call: Mapping[int, int]
    failures: Mapping[str, int]
    errors: Mapping[str, int]
    parser_misses: int
    repairs: int
    usage: Usage
    latency_p50_s: float | None
    latency_p90_s: float | None
    latency_p99_s: float | None
    latency_max_s: float | None


class MetricsRecorder:
    """The counters behind `client.metrics`; thread-safe."""

    __slots__ = (
        "_attempts",
        "_calls",
        "_completion_tokens",
        "_errors",
        "_failures",
        "_latencies",
        "_lock",
        "_next",
        "_outcomes",
        "_parser_misses",
        "_per_call",
        "_prompt_tokens",
        "_repairs",
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self._attempts = 0
        self._parser_misses = 0
        self._repairs = 0
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._outcomes: dict[str, int] = {}
        self._per_call: dict[int, int] = {}
        self._failures: dict[str, int] = {}
        self._errors: dict[str, int] = {}
        self._latencies = [0.0] * LATENCY_WINDOW
        self._next = 0  # calls recorded; the ring's next slot is this modulo its size

    def record(
        self,
        *,
        outcome: CallOutcome,
        attempts: Iterable[Attempt],
        usage: Usage | None,
        error_type: str | None,
        duration_s: float,
    ) -> None:
        """Count one finished call.

        Args:
            outcome: How it ended.
            attempts: Its stage-2 attempts.
            usage: Its tokens; None to sum the attempts' (a call that raised).
            error_type: The exception's class name, if one ended it.
            duration_s: Seconds it took.
        """
        with self._lock:
            count = 0
            prompt = completion = 0
            for attempt in attempts:
                count += 1
                self._parser_misses += attempt.parser_miss
                self._repairs += len(attempt.repairs)
                prompt += attempt.usage.prompt_tokens
                completion += attempt.usage.completion_tokens
                for problem in attempt.problems:
                    self._failures[problem.kind] = self._failures.get(problem.kind, 0) + 1
            if usage is not None:
                prompt, completion = usage.prompt_tokens, usage.completion_tokens
            self._calls += 1
            self._attempts += count
            self._prompt_tokens += prompt
            self._completion_tokens += completion
            self._per_call[count] = self._per_call.get(count, 0) + 1
            self._outcomes[outcome] = self._outcomes.get(outcome, 0) + 1
            if error_type is not None:
                self._errors[error_type] = self._errors.get(error_type, 0) + 1
            self._latencies[self._next % LATENCY_WINDOW] = duration_s
            self._next += 1

    def snapshot(self) -> ClientMetrics:
        """The counts so far, copied."""
        with self._lock:
            latencies = sorted(self._latencies[: min(self._next, LATENCY_WINDOW)])
            return ClientMetrics(
                calls=self._calls,
                outcomes=dict(self._outcomes),
                attempts=self._attempts,
                attempts_per_call=dict(sorted(self._per_call.items())),
                failures=dict(self._failures),
                errors=dict(self._errors),
                parser_misses=self._parser_misses,
                repairs=self._repairs,
                usage=Usage(self._prompt_tokens, self._completion_tokens),
                latency_p50_s=_percentile(latencies, 50),
                latency_p90_s=_percentile(latencies, 90),
                latency_p99_s=_percentile(latencies, 99),
                latency_max_s=latencies[-1] if latencies else None,
            )


def _percentile(ordered: list[float], percent: int) -> float | None:
    # Nearest rank: always one of the recorded values, never an interpolation.
    if not ordered:
        return None
    rank = -(-percent * len(ordered) // 100)  # ceil
    return ordered[max(rank, 1) - 1]
