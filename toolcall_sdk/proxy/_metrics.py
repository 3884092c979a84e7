"""Prometheus metrics of one proxy app, in a registry of its own.

Each app gets its own `CollectorRegistry`, so two proxies in one process (tests, a
benchmark) never share counts and nothing lands in the global default registry.
"""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from toolcall_sdk import Attempt

__all__ = ["CONTENT_TYPE", "ProxyMetrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
# Seconds: a pass-through answer takes milliseconds, a forced call with grammar compilation
# and two feedback retries on a CPU server a minute.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class ProxyMetrics:
    """The counters and the latency histogram the proxy exports on `/metrics`.

    Labels: `kind` is `tools` (through the pipeline) or `passthrough`; `outcome` is `ok`,
    `tool_call_failed`, `upstream_error`, `bad_request` or `unauthorized`.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "toolcall_proxy_requests",
            "Requests answered, by kind and outcome.",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.attempts = Counter(
            "toolcall_proxy_attempts",
            "Forced-call model answers (first tries and feedback retries).",
            registry=self.registry,
        )
        self.failures = Counter(
            "toolcall_proxy_failures",
            "Rejected answers by problem class (invalid_arguments, invalid_json, unknown_tool, "
            "no_tool_call, ungrounded, ...), requests whose retries ran out (retries_exhausted), "
            "and upstream "
            "errors (by SDK error class).",
            ["failure"],
            registry=self.registry,
        )
        self.parser_misses = Counter(
            "toolcall_proxy_parser_misses",
            "Answers whose calls were recovered from the text (the upstream's tool parser "
            "missed them).",
            registry=self.registry,
        )
        self.repairs = Counter(
            "toolcall_proxy_repairs",
            "Deterministic argument repairs made before validation.",
            registry=self.registry,
        )
        self.routes = Counter(
            "toolcall_proxy_routes",
            "Stage-1 decisions: call or no_call, and what decided (tool_choice or router).",
            ["route", "by"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "toolcall_proxy_request_duration_seconds",
            "Time from the request to the end of the response.",
            ["kind"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )

    def record_attempts(self, attempts: Sequence[Attempt]) -> None:
        """Count the hidden attempts of one request and why each was rejected."""
        self.attempts.inc(len(attempts))
        for attempt in attempts:
            if attempt.parser_miss:
                self.parser_misses.inc()
            if attempt.repairs:
                self.repairs.inc(len(attempt.repairs))
            for kind in dict.fromkeys(attempt.error_kinds):
                self.failures.labels(failure=kind).inc()

    def finish(self, kind: str, outcome: str, seconds: float) -> None:
        """Count one answered request and its latency."""
        self.requests.labels(kind=kind, outcome=outcome).inc()
        self.latency.labels(kind=kind).observe(seconds)

    def render(self) -> bytes:
        """The Prometheus text exposition."""
        return generate_latest(self.registry)
