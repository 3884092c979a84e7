"""The options both twins share, declared once; the rule for async tools under the sync client."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolcall_sdk import AsyncToolCallClient, ToolCallClient, tool
from toolcall_sdk._options import DEFAULTS, ClientOptions
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory


@pytest.mark.parametrize("cls", [ToolCallClient, AsyncToolCallClient])
def test_a_misspelt_option_is_refused_by_both_twins(cls: Any) -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) 'max_retry'"):
        cls(base_url="http://127.0.0.1:9/v1", model="m", max_retry=2)


def test_every_option_has_one_default() -> None:
    assert set(DEFAULTS) == set(ClientOptions.__annotations__)


@pytest.mark.parametrize("cls", [ToolCallClient, AsyncToolCallClient])
def test_defaults_reach_the_request(cls: Any) -> None:
    client = cls(base_url="http://127.0.0.1:9/v1", model="m")
    assert client._config.max_retries == 2
    assert client._config.temperature == 0.0
    assert client._config.tool_choice == "required"


def test_sync_client_runs_an_async_tool_inside_a_running_loop(
    make_sync_client: ClientFactory,
) -> None:
    threads: list[str] = []

    @tool
    async def lookup(city: str) -> str:
        """Look a city up."""
        threads.append(threading.current_thread().name)
        await asyncio.sleep(0)
        return f"found {city}"

    model = ScriptedModel([tool_call("lookup", {"city": "Hue"})])
    client = make_sync_client(model, [lookup])

    async def inside_a_loop() -> Any:
        # e.g. a notebook cell: a loop runs in this thread while sync code calls the client
        return client.run("find Hue")

    result = asyncio.run(inside_a_loop())
    assert result.calls[0].output == "found Hue"
    assert result.calls[0].error is None
    assert len(threads) == 1
    assert threads[0] != threading.current_thread().name

    outside = make_sync_client(ScriptedModel([tool_call("lookup", {"city": "Vinh"})]), [lookup])
    assert outside.run("find Vinh").calls[0].output == "found Vinh"
    assert threads[-1] == threading.current_thread().name
