"""Fuzzing, bounded for the unit tier: the targets of `benchmarks/fuzz.py` (parsers of every
format, repairs, validation, the client reading any server answer, feedback) on a few
hundred hostile inputs. No input may raise an exception its target does not document, use
more than a few seconds of CPU, or get feedback past the quoting bounds. The benchmark runs
100,000 inputs (docs/reliability.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks.fuzz import TARGETS, Findings, Hang, targets, time_limit

# Generous: the slowest input of the 100,000-input run used a fraction of a second.
CPU_LIMIT_S = 5.0
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("name", TARGETS)
def test_hostile_input_gets_a_typed_answer_or_none(name: str) -> None:
    target = targets()[name]

    @SETTINGS
    @given(target.strategy)
    def check(case: Any) -> None:
        findings = Findings()
        try:
            with time_limit(CPU_LIMIT_S):
                target.check(case, findings)
        except Hang:
            pytest.fail(f"{name}: an input used more than {CPU_LIMIT_S} s of CPU")
        except target.typed:
            pass  # documented: a typed error
        assert findings.oversized_feedback == 0, findings.examples

    check()
