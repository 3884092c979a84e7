"""`client.metrics`: calls, attempts, failure classes, parser misses, repairs, latency."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from toolcall_sdk import ServerConnectionError, ToolCallClient, ToolCallFailed
from toolcall_sdk.testing import ScriptedModel, disconnect, text, tool_call

from ..conftest import ClientFactory

OSLO = {"city": "Oslo", "unit": "celsius"}
LEAKED = f'<tool_call>{{"name": "get_weather", "arguments": {json.dumps(OSLO)}}}</tool_call>'
BAD = tool_call("get_weather", {"town": "Oslo"})


def test_metrics_after_a_few_calls(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", OSLO, usage=(10, 5)),  # 1 attempt
            BAD,  # 2 attempts: one invalid answer, then a call left in the text
            text(LEAKED, usage=(20, 7)),
            tool_call("get_weather", json.dumps(json.dumps(OSLO))),  # 1 attempt, a repair
            BAD,  # 3 attempts, all invalid: ToolCallFailed
            tool_call("get_weather", {"city": 3}),
            tool_call("get_weather", "{not json"),
            *[disconnect()] * 4,  # the transport gives up
        ]
    )
    client = make_client(model, [get_weather])
    assert client.metrics.calls == 0
    assert client.metrics.latency_p50_s is None

    for _ in range(3):
        client.call("Weather in Oslo?")
    with pytest.raises(ToolCallFailed):
        client.call("Weather in Oslo?")
    with pytest.raises(ServerConnectionError):
        client.call("Weather in Oslo?")
    never = make_client(ScriptedModel([text("Hello!")]), [get_weather], router="never")
    never.call("Hi")

    metrics = client.metrics
    assert metrics.calls == 5
    assert metrics.outcomes == {"ok": 3, "failed": 1, "error": 1}
    assert metrics.attempts == 1 + 2 + 1 + 3
    assert metrics.attempts_per_call == {0: 1, 1: 2, 2: 1, 3: 1}
    assert metrics.failures == {"invalid_arguments": 3, "invalid_json": 1}
    assert metrics.errors == {"ToolCallFailed": 1, "ServerConnectionError": 1}
    assert metrics.parser_misses == 1
    assert metrics.repairs == 1
    assert metrics.usage.prompt_tokens >= 30
    latencies = [
        metrics.latency_p50_s,
        metrics.latency_p90_s,
        metrics.latency_p99_s,
        metrics.latency_max_s,
    ]
    assert all(value is not None and value >= 0 for value in latencies)
    assert latencies == sorted(latencies)  # type: ignore[type-var]
    assert never.metrics.attempts_per_call == {0: 1}


def test_metrics_are_a_snapshot(make_client: ClientFactory, get_weather: Any) -> None:
    client = make_client(ScriptedModel([tool_call("get_weather", OSLO)] * 2), [get_weather])
    client.call("Weather in Oslo?")
    before = client.metrics
    client.call("Weather in Oslo?")

    assert before.calls == 1
    assert client.metrics.calls == 2
    assert client.metrics.outcomes == {"ok": 2}


def test_threads_sharing_a_client_are_all_counted(get_weather: Any) -> None:
    model = ScriptedModel(lambda request: tool_call("get_weather", OSLO))
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
    )

    def work() -> None:
        for _ in range(10):
            client.call("Weather in Oslo?")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    metrics = client.metrics
    assert metrics.calls == 40
    assert metrics.attempts_per_call == {1: 40}
    assert metrics.outcomes == {"ok": 40}
