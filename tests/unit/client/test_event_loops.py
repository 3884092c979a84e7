"""One `AsyncToolCallClient` across event loops: each `asyncio.run()` starts a new loop and
closes it at the end, and a pooled connection of a closed loop cannot be used again.

The scripted model is served over real HTTP here: the in-process transport keeps no
connection, so only a real pool shows the problem. The sync client has no event loop;
these scenarios are the async twin's alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import openai
import pytest

from toolcall_sdk import AsyncToolCallClient, InvalidArgumentError
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import SCENARIO_GROUNDING, Ledger

OSLO = {"city": "Oslo", "unit": "celsius"}


def client_for(base_url: str | None, tools: list[Any], **options: Any) -> AsyncToolCallClient:
    return AsyncToolCallClient(
        base_url,
        model="test-model",
        tools=tools,
        router="always",
        grounding=SCENARIO_GROUNDING,
        **options,
    )


def test_one_client_serves_one_asyncio_run_after_another(get_weather: Any, ledger: Ledger) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)] * 3)
    with model.serve() as base_url:
        client = client_for(base_url, [get_weather])  # made once, outside any loop

        first = asyncio.run(client.call("Weather in Oslo?"))
        second = asyncio.run(client.run("Weather in Oslo?"))

        async def last() -> Any:
            async with client:  # closes what this loop opened
                return await client.call("Weather in Oslo?")

        third = asyncio.run(last())

    assert first.call.arguments.model_dump() == third.call.arguments.model_dump() == OSLO
    assert second.call.output == "18 degrees celsius in Oslo"
    assert ledger.count("get_weather") == 1
    assert len(model.chat_requests) == 3
    assert not model.errors


@pytest.mark.parametrize("given", ["http_client", "openai_client"])
def test_a_pooled_client_you_pass_is_refused_on_a_second_loop(get_weather: Any, given: str) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)] * 2)
    with model.serve() as base_url:
        http = httpx2.AsyncClient()
        if given == "http_client":
            client = client_for(base_url, [get_weather], http_client=http)
        else:
            passed = openai.AsyncOpenAI(base_url=base_url, api_key="x", http_client=http)
            client = client_for(None, [get_weather], openai_client=passed)

        async def first() -> Any:
            result = await client.call("Weather in Oslo?")
            await http.aclose()
            return result

        assert asyncio.run(first()).call.arguments.model_dump() == OSLO
        with pytest.raises(InvalidArgumentError) as refused:
            asyncio.run(client.call("Weather in Oslo?"))

    assert len(model.chat_requests) == 1  # nothing was sent the second time
    message = str(refused.value)
    assert f"{given}=" in message
    assert "asyncio.run" in message
    assert "inside the loop" in message


def test_a_client_you_pass_that_keeps_no_connection_works_on_any_loop(get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)] * 2)
    client = client_for(model.base_url, [get_weather], http_client=model.async_http_client())

    first = asyncio.run(client.call("Weather in Oslo?"))
    second = asyncio.run(client.call("Weather in Oslo?"))

    assert first.call.arguments.model_dump() == second.call.arguments.model_dump() == OSLO
    assert len(model.chat_requests) == 2
