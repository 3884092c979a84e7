"""The pytest plugin: `toolcall_model` and `toolcall_served_model`, run in a pytest of their own."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

PLUGIN = "toolcall_sdk.pytest_plugin"

USER_TESTS = '''
import asyncio

import pytest

from toolcall_sdk import AsyncToolCallClient, ToolCallClient, tool
from toolcall_sdk.testing import text, tool_call

ran = []


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    ran.append(city)
    return f"sunny in {city}"


def test_in_process(toolcall_model):
    model = toolcall_model(
        [tool_call("get_weather", {"town": "Oslo"}), tool_call("get_weather", {"city": "Oslo"})]
    )
    client = ToolCallClient(
        base_url=model.base_url, model="m", tools=[get_weather], router="always",
        http_client=model.http_client(),
    )
    result = client.run("Weather in Oslo?")
    assert result.call.output == "sunny in Oslo"
    assert "city: Field required" in model.calls_for("call")[1].messages[-1]["content"]
    assert model.base_url == "http://scripted.test/v1"


def test_in_process_async(toolcall_model):
    model = toolcall_model([tool_call("get_weather", {"city": "Hanoi"})], route_answer=True)

    async def go():
        async with AsyncToolCallClient(
            base_url=model.base_url, model="m", tools=[get_weather],
            http_client=model.async_http_client(),
        ) as client:
            return await client.run("Weather in Hanoi?")

    assert asyncio.run(go()).call.output == "sunny in Hanoi"
    assert [r.stage for r in model.chat_requests] == ["call"]  # the default router asks nothing


def test_served(toolcall_served_model):
    model, base_url = toolcall_served_model([tool_call("get_weather", {"city": "Oslo"})])
    assert base_url.startswith("http://127.0.0.1:")
    client = ToolCallClient(base_url=base_url, model="m", tools=[get_weather], router="always")
    events = list(client.stream("Weather in Oslo?"))
    assert events[-1].result.call.arguments.city == "Oslo"
    assert model.chat_requests[0].stream
    pytest.served_url = base_url  # read after the test, once the server has stopped


def test_two_served_models(toolcall_served_model):
    first = toolcall_served_model([text("one")])
    second = toolcall_served_model([text("two")])
    assert first.base_url != second.base_url


def test_the_server_stopped_after_its_test():
    import httpx2

    with pytest.raises(httpx2.ConnectError):
        httpx2.get(pytest.served_url.replace("/v1", "/health"), timeout=2)
'''


@pytest.fixture(autouse=True)
def only_this_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # The inner runs load this plugin by name and no other installed one: the result does
    # not depend on whether the package's entry point is installed yet.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_the_fixtures_serve_a_users_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)

    result = pytester.runpytest("-p", PLUGIN, "-p", "no:cacheprovider")

    result.assert_outcomes(passed=5)


def test_the_fixtures_are_listed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")

    result = pytester.runpytest("-p", PLUGIN, "--fixtures")

    result.stdout.fnmatch_lines(
        [
            "*toolcall_model*",
            "*Make a `ScriptedModel` answering in-process*",
            "*toolcall_served_model*",
            "*Make a `ScriptedModel` serving over real HTTP*",
        ]
    )


def test_the_entry_point_names_the_plugin() -> None:
    pyproject = tomllib.loads(Path(__file__).parents[3].joinpath("pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["pytest11"] == {PLUGIN: PLUGIN}


def test_loading_the_plugin_does_not_import_the_client() -> None:
    code = f"import sys, {PLUGIN}; print('openai' in sys.modules, 'httpx2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"
