"""Chaos, as a correctness check: 1,000 `run()` calls through the seeded fault mix of
`benchmarks/chaos.py` (a real local HTTP server in its own process), plain and streamed.

Each call either completes, with its business functions' effects recorded exactly once, or
raises a `ToolCallError` whose `.executed` names every function that ran. None is lost, none
runs a function twice, none raises anything untyped, and each ends within its deadline plus
one backoff: the bound docs/reliability.md promises, checked per call (a bound on every
call, not a measure of speed). Other seeds and fault mixes: `python benchmarks/chaos.py
--seed N --fault-rate R`; the 10,000-call figures are in docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

import pytest

from benchmarks.chaos import ChaosConfig, faults_for, render, run_chaos

# Faults that wait (trickling bodies, endless streams) end at the deadline: a short one, and
# pieces a few milliseconds apart, keep the run to seconds.
CONFIG = ChaosConfig(
    calls=1000,
    concurrency=32,
    seed=12,
    deadline=2.0,
    timeout=1.0,
    initial_backoff=0.02,
    max_backoff=0.2,
    jitter=0.02,
    max_retry_after=1.0,
    trickle_interval=0.001,
    endless_interval=0.005,
)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_thousand_calls_through_faults_lose_nothing_and_run_nothing_twice(
    stream: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolcall_sdk")  # thousands of expected retries
    config = dataclasses.replace(CONFIG, stream=stream)

    report = asyncio.run(run_chaos(config))

    assert report.problems() == [], render(report)
    assert report.lost == report.double_executions == report.untyped == 0
    assert report.unreported_executions == 0
    assert report.over_bound == 0, render(report)
    # Not vacuous: every fault class was injected, and calls both completed and failed.
    assert set(report.injected) == set(faults_for(stream))
    assert report.completed > config.calls // 2
    assert report.failed > 0
    assert report.pairs_completed > 0
    assert report.reused_calls >= report.pairs_completed  # each repeated charge was reused
    assert report.max_attempts <= config.max_retries + 1
