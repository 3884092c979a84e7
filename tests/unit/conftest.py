"""Shared tools and client factories for the unit tests (all against the scripted model)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import Field, ValidationInfo, field_validator

from toolcall_sdk import AsyncToolCallClient, RetryPolicy, ToolCallClient, tool
from toolcall_sdk.testing import ScriptedModel

TODAY = date(2026, 6, 1)
# The scenario tests script arguments their prompts need not state ("Weather in Oslo?"
# answered with an invoice): the grounding check, on by default, has its own tests
# (tests/unit/grounding), which pass `grounding=` themselves.
SCENARIO_GROUNDING = False
# A conversation that ends with get_weather's result for Oslo (the call, then its answer).
OSLO_RESULT_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Oslo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "18 degrees celsius in Oslo"},
]


class Ledger:
    """Counts business-function executions."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def count(self, name: str) -> int:
        return sum(1 for called, _ in self.calls if called == name)


@pytest.fixture
def ledger() -> Ledger:
    return Ledger()


@pytest.fixture
def create_invoice(ledger: Ledger) -> Any:
    @tool
    def create_invoice(
        customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
        amount_vnd: Annotated[int, Field(gt=0)],
        due_date: date,
    ) -> dict[str, Any]:
        """Create an invoice for a customer.

        Args:
            customer_id: Customer id like CUS-000123.
            amount_vnd: Amount in VND.
            due_date: Payment due date.
        """
        ledger.calls.append(
            ("create_invoice", {"customer_id": customer_id, "amount_vnd": amount_vnd})
        )
        return {"invoice_id": "INV-1", "customer_id": customer_id}

    return create_invoice


@pytest.fixture
def get_weather(ledger: Ledger) -> Any:
    @tool
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather for a city."""
        ledger.calls.append(("get_weather", {"city": city, "unit": unit}))
        return f"18 degrees {unit} in {city}"

    return get_weather


@pytest.fixture
def sleeps() -> list[float]:
    return []


ClientFactory = Callable[..., ToolCallClient]


class AsyncTwin:
    """`AsyncToolCallClient` behind `ToolCallClient`'s sync methods, on a loop of its own.

    Lets one test body drive both twins: the same script, the same assertions.
    """

    def __init__(self, client: AsyncToolCallClient) -> None:
        self._client = client
        self._loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        return self._loop.run_until_complete(self._client.call(*args, **kwargs))

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self._loop.run_until_complete(self._client.run(*args, **kwargs))

    def resume(self, *args: Any, **kwargs: Any) -> Any:
        return self._loop.run_until_complete(self._client.resume(*args, **kwargs))

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        return self._iterate(self._client.stream(*args, **kwargs))

    def stream_run(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        return self._iterate(self._client.stream_run(*args, **kwargs))

    def stream_resume(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        return self._iterate(self._client.stream_resume(*args, **kwargs))

    def _iterate(self, events: AsyncIterator[Any]) -> Iterator[Any]:
        async def next_event(iterator: AsyncIterator[Any]) -> tuple[bool, Any]:
            try:
                return True, await anext(iterator)
            except StopAsyncIteration:
                return False, None

        while True:
            more, event = self._loop.run_until_complete(next_event(events))
            if not more:
                return
            yield event

    def close(self) -> None:
        self._loop.run_until_complete(self._client.close())


@pytest.fixture(params=["sync", "async"])
def twin(request: pytest.FixtureRequest) -> str:
    """Which client a `make_client` test drives: every client scenario runs through both."""
    return str(request.param)


@pytest.fixture
def make_client(sleeps: list[float], twin: str) -> Iterator[ClientFactory]:
    """A client wired to a ScriptedModel in-process; backoffs recorded, never slept.

    Parametrized over both twins: the async one is driven through `AsyncTwin`.
    """
    made: list[AsyncTwin] = []

    async def no_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def factory(
        model: ScriptedModel, tools: list[Any], *, model_id: str = "test-model", **options: Any
    ) -> Any:
        options.setdefault("router", "always")
        options.setdefault("grounding", SCENARIO_GROUNDING)
        if twin == "sync":
            options.setdefault("retry", RetryPolicy(sleep=sleeps.append, jitter=0.0))
            return ToolCallClient(
                base_url=model.base_url,
                model=model_id,
                tools=tools,
                http_client=model.http_client(),
                **options,
            )
        options.setdefault("retry", RetryPolicy(async_sleep=no_sleep, jitter=0.0))
        client = AsyncTwin(
            AsyncToolCallClient(
                base_url=model.base_url,
                model=model_id,
                tools=tools,
                http_client=model.async_http_client(),
                **options,
            )
        )
        made.append(client)
        return client

    yield factory
    for client in made:
        client.close()
        client._loop.close()


@pytest.fixture
def make_sync_client(sleeps: list[float]) -> ClientFactory:
    """The sync client only: for what only it does (refusing an async router, threads)."""

    def factory(model: ScriptedModel, tools: list[Any], **options: Any) -> ToolCallClient:
        options.setdefault("router", "always")
        options.setdefault("grounding", SCENARIO_GROUNDING)
        options.setdefault("retry", RetryPolicy(sleep=sleeps.append, jitter=0.0))
        return ToolCallClient(
            base_url=model.base_url,
            model="test-model",
            tools=tools,
            http_client=model.http_client(),
            **options,
        )

    return factory


@pytest.fixture
def make_async_client(sleeps: list[float]) -> Callable[..., AsyncToolCallClient]:
    async def no_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def factory(model: ScriptedModel, tools: list[Any], **options: Any) -> AsyncToolCallClient:
        options.setdefault("router", "always")
        options.setdefault("grounding", SCENARIO_GROUNDING)
        options.setdefault("retry", RetryPolicy(async_sleep=no_sleep, jitter=0.0))
        return AsyncToolCallClient(
            base_url=model.base_url,
            model="test-model",
            tools=tools,
            http_client=model.async_http_client(),
            **options,
        )

    return factory


Call = Callable[..., Any]


@pytest.fixture(params=["sync", "async"])
def call_with(request: pytest.FixtureRequest, sleeps: list[float]) -> Call:
    """`client.call` (or `run`) through the sync or the async twin: every scenario runs twice."""

    async def no_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def call(model: ScriptedModel, tools: list[Any], *, run: bool = False, **options: Any) -> Any:
        """Call (or run) "Weather in Oslo?" on a new client of this twin."""
        options.setdefault("router", "always")
        options.setdefault("grounding", SCENARIO_GROUNDING)
        options.setdefault(
            "retry", RetryPolicy(sleep=sleeps.append, async_sleep=no_sleep, jitter=0.0)
        )
        method = "run" if run else "call"
        if request.param == "sync":
            client = ToolCallClient(
                base_url=model.base_url,
                model="test-model",
                tools=tools,
                http_client=model.http_client(),
                **options,
            )
            return getattr(client, method)("Weather in Oslo?")

        async def go() -> Any:
            async with AsyncToolCallClient(
                base_url=model.base_url,
                model="test-model",
                tools=tools,
                http_client=model.async_http_client(),
                **options,
            ) as client:
                return await getattr(client, method)("Weather in Oslo?")

        return asyncio.run(go())

    return call


def not_in_past(value: date, info: ValidationInfo) -> date:
    today = (info.context or {}).get("today", TODAY)
    if value < today:
        raise ValueError(f"must not be in the past (today is {today.isoformat()})")
    return value


__all__ = ["TODAY", "Call", "ClientFactory", "Ledger", "field_validator", "not_in_past"]
