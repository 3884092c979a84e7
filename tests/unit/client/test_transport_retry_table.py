"""Which HTTP failures are retried, and how long the client waits: both twins, sleeps recorded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from toolcall_sdk import (
    RequestRejectedError,
    RetryPolicy,
    ServerTimeoutError,
    ServerUnavailableError,
)
from toolcall_sdk.testing import ScriptedModel, http_error, tool_call

from ..conftest import Call, Ledger

OSLO = {"city": "Oslo", "unit": "celsius"}


@pytest.mark.parametrize("status", [501, 505])
def test_permanent_5xx_is_not_retried(
    call_with: Call, get_weather: Any, sleeps: list[float], ledger: Ledger, status: int
) -> None:
    model = ScriptedModel([http_error(status), tool_call("get_weather", OSLO)])

    with pytest.raises(RequestRejectedError) as excinfo:
        call_with(model, [get_weather], run=True)

    assert excinfo.value.status_code == status
    assert "retrying cannot help" in str(excinfo.value)
    assert not isinstance(excinfo.value, ServerUnavailableError)
    assert len(model.requests) == 1
    assert sleeps == []
    assert ledger.calls == []


def test_408_is_retried(
    call_with: Call, get_weather: Any, sleeps: list[float], ledger: Ledger
) -> None:
    model = ScriptedModel([http_error(408), tool_call("get_weather", OSLO)])

    result = call_with(model, [get_weather], run=True)

    assert result.call.output == "18 degrees celsius in Oslo"
    assert len(model.requests) == 2
    assert sleeps == [0.5]
    assert ledger.count("get_weather") == 1


def test_persistent_408_is_a_timeout(call_with: Call, get_weather: Any) -> None:
    model = ScriptedModel(lambda request: http_error(408))

    with pytest.raises(ServerTimeoutError, match="HTTP 408"):
        call_with(model, [get_weather])

    assert len(model.requests) == 4


@pytest.mark.parametrize("value", ["nan", "NaN", "-5", "inf", "-inf", "soon", ""])
def test_unusable_retry_after_falls_back_to_the_backoff(
    call_with: Call, get_weather: Any, sleeps: list[float], value: str
) -> None:
    model = ScriptedModel(
        [http_error(429, headers={"Retry-After": value}), tool_call("get_weather", OSLO)]
    )

    call_with(model, [get_weather])

    assert sleeps == [0.5]


def test_huge_retry_after_is_capped(call_with: Call, get_weather: Any, sleeps: list[float]) -> None:
    model = ScriptedModel(
        [http_error(503, headers={"Retry-After": "1e300"}), tool_call("get_weather", OSLO)]
    )

    call_with(model, [get_weather])

    assert sleeps == [30.0]


def test_retry_after_as_http_date_counts_from_the_server_clock(
    call_with: Call, get_weather: Any, sleeps: list[float]
) -> None:
    now = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
    headers = {
        "Date": format_datetime(now, usegmt=True),
        "Retry-After": format_datetime(now + timedelta(seconds=7), usegmt=True),
    }
    model = ScriptedModel([http_error(503, headers=headers), tool_call("get_weather", OSLO)])

    call_with(model, [get_weather])

    assert sleeps == [7.0]


@pytest.mark.parametrize(("offset", "expected"), [(timedelta(days=3650), 30.0), (-1, 0.0)])
def test_retry_after_date_without_server_date_is_capped_or_now(
    call_with: Call, get_weather: Any, sleeps: list[float], offset: Any, expected: float
) -> None:
    # Far future and long past need no clock: capped at max_retry_after, or no wait at all.
    when = datetime(2000, 1, 1, tzinfo=UTC) if offset == -1 else datetime.now(UTC) + offset
    headers = {"Retry-After": format_datetime(when, usegmt=True)}
    model = ScriptedModel([http_error(429, headers=headers), tool_call("get_weather", OSLO)])

    call_with(model, [get_weather])

    assert sleeps == [expected]


def test_retry_after_cap_is_the_policy_setting(call_with: Call, get_weather: Any) -> None:
    slept: list[float] = []

    async def no_sleep(seconds: float) -> None:
        slept.append(seconds)

    model = ScriptedModel(
        [http_error(429, headers={"Retry-After": "120"}), tool_call("get_weather", OSLO)]
    )
    policy = RetryPolicy(max_retry_after=5.0, sleep=slept.append, async_sleep=no_sleep)

    call_with(model, [get_weather], retry=policy)

    assert slept == [5.0]
