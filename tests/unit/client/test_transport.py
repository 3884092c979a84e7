"""Transport reliability: 5xx/429/connection retries, no retry on 4xx, typed errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    AuthenticationError,
    ContextLengthExceededError,
    MalformedResponseError,
    ModelNotFoundError,
    RateLimitedError,
    RequestRejectedError,
    RetryPolicy,
    ServerConnectionError,
    ServerTimeoutError,
    ServerUnavailableError,
    ToolCallClient,
    ToolCallError,
)
from toolcall_sdk.testing import (
    ScriptedModel,
    cut,
    delay,
    disconnect,
    http_error,
    malformed,
    tool_call,
)

from ..conftest import ClientFactory, Ledger

WEATHER = {"city": "Oslo", "unit": "celsius"}


def test_500_then_200_gives_one_result_and_one_execution(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger, sleeps: list[float]
) -> None:
    model = ScriptedModel([http_error(500), tool_call("get_weather", WEATHER)])
    client = make_client(model, [get_weather])

    result = client.run("Oslo?")

    assert result.call.output == "18 degrees celsius in Oslo"
    assert ledger.count("get_weather") == 1
    assert len(result.attempts) == 1  # a transport retry is not a model attempt
    assert len(model.calls_for("call")) == 2
    assert sleeps == [0.5]


def test_400_is_not_retried_and_is_typed(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger, sleeps: list[float]
) -> None:
    model = ScriptedModel(
        [
            http_error(
                400,
                {
                    "object": "error",
                    "message": "bad tool_choice",
                    "type": "BadRequestError",
                    "code": 400,
                },
            )
        ]
    )
    client = make_client(model, [get_weather])

    with pytest.raises(RequestRejectedError) as excinfo:
        client.run("Oslo?")

    assert excinfo.value.status_code == 400
    assert "bad tool_choice" in str(excinfo.value)
    assert isinstance(excinfo.value, ToolCallError)
    assert len(model.requests) == 1
    assert sleeps == []
    assert ledger.calls == []


def test_context_length_400_says_what_to_change(
    make_client: ClientFactory, get_weather: Any
) -> None:
    message = (
        "This model's maximum context length is 2048 tokens. However, you requested 4000 "
        "tokens in the messages"
    )
    model = ScriptedModel(
        [
            http_error(
                400, {"object": "error", "message": message, "type": "BadRequestError", "code": 400}
            )
        ]
    )
    client = make_client(model, [get_weather])

    with pytest.raises(ContextLengthExceededError, match="--max-model-len"):
        client.call("Oslo?")


def test_unknown_model_404(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel(
        [
            http_error(
                404,
                {
                    "object": "error",
                    "message": "The model `x` does not exist.",
                    "type": "NotFoundError",
                    "code": 404,
                },
            )
        ]
    )
    client = make_client(model, [get_weather])

    with pytest.raises(ModelNotFoundError, match="test-model"):
        client.call("Oslo?")


def test_401_never_echoes_the_key(get_weather: Any) -> None:
    model = ScriptedModel([http_error(401)])
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        router="always",
        api_key="sk-very-secret",
        http_client=model.http_client(),
    )

    with pytest.raises(AuthenticationError) as excinfo:
        client.call("Oslo?")

    assert "sk-very-secret" not in str(excinfo.value)
    assert model.requests[0].headers["authorization"] == "Bearer sk-very-secret"


def test_429_honours_retry_after(
    make_client: ClientFactory, get_weather: Any, sleeps: list[float]
) -> None:
    model = ScriptedModel(
        [http_error(429, headers={"Retry-After": "3"}), tool_call("get_weather", WEATHER)]
    )
    client = make_client(model, [get_weather])

    client.call("Oslo?")

    assert sleeps == [3.0]


def test_backoff_grows_and_attempts_are_bounded(get_weather: Any, sleeps: list[float]) -> None:
    model = ScriptedModel(lambda request: http_error(503))
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
        retry=RetryPolicy(attempts=4, initial_backoff=1.0, jitter=0.0, sleep=sleeps.append),
    )

    with pytest.raises(ServerUnavailableError) as excinfo:
        client.call("Oslo?")

    assert sleeps == [1.0, 2.0, 4.0]
    assert len(model.requests) == 4
    assert excinfo.value.status_code == 503
    assert "after 4 tries" in str(excinfo.value)


def test_persistent_429_raises_rate_limited(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel(lambda request: http_error(429))
    client = make_client(model, [get_weather])

    with pytest.raises(RateLimitedError):
        client.call("Oslo?")


def test_dropped_connection_is_retried(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([disconnect(), tool_call("get_weather", WEATHER)])
    client = make_client(model, [get_weather])

    result = client.run("Oslo?")

    assert ledger.count("get_weather") == 1
    assert result.call.output == "18 degrees celsius in Oslo"


@pytest.mark.parametrize("stream", [False, True])
def test_a_connection_dropped_mid_answer_is_retried_and_runs_once(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger, stream: bool
) -> None:
    answer = tool_call("get_weather", WEATHER)
    model = ScriptedModel([cut(answer, after=120), answer])
    client = make_client(model, [get_weather])

    result = client.run("Oslo?", stream=stream)

    assert ledger.count("get_weather") == 1
    assert result.call.output == "18 degrees celsius in Oslo"
    assert len(model.chat_requests) == 2
    assert len(result.attempts) == 1  # a transport retry is not a model attempt


def test_connection_refused_is_typed(get_weather: Any, sleeps: list[float]) -> None:
    client = ToolCallClient(
        base_url="http://127.0.0.1:9/v1",
        model="m",
        tools=[get_weather],
        router="always",
        retry=RetryPolicy(attempts=2, sleep=sleeps.append),
    )

    with pytest.raises(ServerConnectionError, match="toolcall-sdk launch"):
        client.call("Oslo?")
    assert len(sleeps) == 1


def test_timeout_on_a_real_server(get_weather: Any, sleeps: list[float]) -> None:
    model = ScriptedModel([delay(0.5, tool_call("get_weather", WEATHER))] * 2)
    with model.serve() as base_url:
        client = ToolCallClient(
            base_url=base_url,
            model="m",
            tools=[get_weather],
            router="always",
            timeout=0.1,
            retry=RetryPolicy(attempts=2, sleep=sleeps.append),
        )
        with pytest.raises(ServerTimeoutError):
            client.call("Oslo?")
    assert len(sleeps) == 1


def test_malformed_200_body_is_typed(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([malformed('{"id": "x", "object": "chat.completion", "choices": []}')])
    client = make_client(model, [get_weather])

    with pytest.raises(MalformedResponseError):
        client.call("Oslo?")


def test_non_json_200_body_is_typed(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([malformed("<html>proxy error</html>")])
    client = make_client(model, [get_weather])

    with pytest.raises(MalformedResponseError):
        client.call("Oslo?")


def test_list_of_servers_fails_over(get_weather: Any, sleeps: list[float]) -> None:
    down = ScriptedModel(lambda request: http_error(502))
    up = ScriptedModel(lambda request: tool_call("get_weather", WEATHER))
    with down.serve() as first, up.serve() as second:
        client = ToolCallClient(
            base_url=[first, second],
            model="m",
            tools=[get_weather],
            router="always",
            retry=RetryPolicy(sleep=sleeps.append),
        )
        results = [client.call("Oslo?") for _ in range(4)]

    assert all(r.call.name == "get_weather" for r in results)
    # The first request meets the broken server and fails over at once (no backoff to
    # another server); the server is then skipped through its cool-down.
    assert len(down.requests) == 1
    assert len(up.requests) == 4
    assert sleeps == [0.0]
    assert [s.healthy for s in client.servers] == [False, True]


def test_deadline_stops_before_a_backoff_would_cross_it(
    get_weather: Any, sleeps: list[float]
) -> None:
    model = ScriptedModel(lambda request: http_error(503))
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
        retry=RetryPolicy(
            attempts=10, deadline=2.5, initial_backoff=1.0, jitter=0.0, sleep=sleeps.append
        ),
    )

    with pytest.raises(ServerUnavailableError):
        client.call("Oslo?")

    # The third backoff (4 s) would end past the 2.5 s deadline: no fourth request.
    assert sleeps == [1.0, 2.0]
    assert len(model.requests) == 3


@pytest.mark.parametrize("twin", ["sync", "async"])
def test_the_first_try_counts_against_the_retry_deadline(get_weather: Any, twin: str) -> None:
    # The first try runs before any retry controller exists; its time still counts.
    slept: list[float] = []

    async def no_sleep(seconds: float) -> None:
        slept.append(seconds)

    policy = RetryPolicy(
        attempts=5,
        deadline=1.1,
        initial_backoff=1.0,
        jitter=0.0,
        sleep=slept.append,
        async_sleep=no_sleep,
    )
    model = ScriptedModel([delay(0.2, http_error(503)), tool_call("get_weather", WEATHER)])

    def call_sync(base_url: str) -> None:
        with ToolCallClient(
            base_url, model="m", tools=[get_weather], router="always", retry=policy
        ) as client:
            client.call("Oslo?")

    async def call_async(base_url: str) -> None:
        async with AsyncToolCallClient(
            base_url, model="m", tools=[get_weather], router="always", retry=policy
        ) as client:
            await client.call("Oslo?")

    with model.serve() as base_url, pytest.raises(ServerUnavailableError):
        call_sync(base_url) if twin == "sync" else asyncio.run(call_async(base_url))

    # 0.2 s spent on the first try plus a 1 s backoff would pass the 1.1 s deadline.
    assert slept == []
    assert len(model.requests) == 1


def test_own_openai_client_is_used_without_its_retries(get_weather: Any, ledger: Ledger) -> None:
    import openai

    model = ScriptedModel([http_error(500), tool_call("get_weather", WEATHER)])
    own = openai.OpenAI(
        base_url=model.base_url, api_key="k", http_client=model.http_client(), max_retries=5
    )
    slept: list[float] = []
    client = ToolCallClient(
        model="m",
        tools=[get_weather],
        router="always",
        openai_client=own,
        retry=RetryPolicy(attempts=1, sleep=slept.append),
    )

    with pytest.raises(ServerUnavailableError):
        client.run("Oslo?")

    assert len(model.requests) == 1  # the openai client's own 5 retries are off
    assert ledger.calls == []
    assert client.base_urls == ["http://scripted.test/v1/"]
