"""Stage 1 through the client: the router decides whether stage 2 runs, and with what."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from toolcall_sdk import RouteDecision, RouterError, Tool, ToolCallClient
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory, Ledger

WEATHER = {"city": "Oslo", "unit": "celsius"}


def test_default_llm_router_probes_then_forces_the_call(get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", WEATHER)], route_answer=True)
    client = ToolCallClient(
        base_url=model.base_url, model="m", tools=[get_weather], http_client=model.http_client()
    )

    result = client.call("Weather in Oslo?")

    probe, call = model.requests
    assert probe.stage == "route"
    assert probe.json is not None
    assert probe.json["response_format"]["type"] == "json_schema"
    assert probe.json["temperature"] == 0
    assert "get_weather" in probe.messages[0]["content"]
    assert "Weather in Oslo?" in probe.messages[-1]["content"]
    assert probe.tools is None
    assert call.stage == "call"
    assert result.route.router == "llm"
    assert result.called


def test_llm_router_no_gives_a_plain_answer(get_weather: Any, ledger: Ledger) -> None:
    model = ScriptedModel([text("Hello! How can I help?")], route_answer=False)
    client = ToolCallClient(
        base_url=model.base_url, model="m", tools=[get_weather], http_client=model.http_client()
    )

    result = client.run("Hi")

    assert result.called is False
    assert result.content == "Hello! How can I help?"
    assert result.calls == []
    assert ledger.calls == []
    answer = model.calls_for("answer")[0]
    assert (answer.tools, answer.tool_choice) == (None, None)
    assert answer.temperature == 0


def test_unreadable_router_answer_falls_back_to_calling(get_weather: Any) -> None:
    model = ScriptedModel(
        [text("I think yes"), tool_call("get_weather", WEATHER)], route_answer=None
    )
    client = ToolCallClient(
        base_url=model.base_url, model="m", tools=[get_weather], http_client=model.http_client()
    )

    result = client.call("Weather?")

    assert result.called
    assert "unreadable" in result.route.reason


def test_never_router_answers_without_the_tools(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text("I cannot check the weather right now.")])
    client = make_client(model, [get_weather], router="never")

    result = client.call("Weather in Oslo?")

    [request] = model.requests
    assert request.stage == "answer"
    # No tools in the prompt, so no tool_choice either (vLLM refuses one without tools).
    assert (request.tools, request.tool_choice) == (None, None)
    assert result.content == "I cannot check the weather right now."


def test_no_tools_means_no_call_without_tool_choice(make_client: ClientFactory) -> None:
    model = ScriptedModel([text("Hi there")])
    client = make_client(model, [], router="llm")

    result = client.call("Hi")

    [request] = model.requests
    assert request.tool_choice is None
    assert request.tools is None
    assert result.called is False


def test_callable_router_returning_bool(make_client: ClientFactory, get_weather: Any) -> None:
    seen: list[tuple[int, list[str]]] = []

    def router(messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool[..., Any]]) -> bool:
        seen.append((len(messages), [t.name for t in tools]))
        return "weather" in str(messages[-1]["content"]).lower()

    model = ScriptedModel([tool_call("get_weather", WEATHER), text("Hello")])
    client = make_client(model, [get_weather], router=router)

    assert client.call("Weather in Oslo?").called is True
    assert client.call("Hello").called is False
    assert seen == [(1, ["get_weather"]), (1, ["get_weather"])]


def test_shortlist_of_one_makes_a_named_call(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    def router(messages: Any, tools: Any) -> RouteDecision:
        return RouteDecision(call=True, tools=["get_weather", "no_such_tool"], score=0.9)

    model = ScriptedModel([tool_call("get_weather", WEATHER)])
    client = make_client(model, [create_invoice, get_weather], router=router)

    result = client.call("Oslo?")

    [request] = model.calls_for("call")
    assert request.tool_choice == {"type": "function", "function": {"name": "get_weather"}}
    assert [t["function"]["name"] for t in request.tools or []] == ["get_weather"]
    assert result.route.router == "router"


def test_router_object_and_bad_answers(make_client: ClientFactory, get_weather: Any) -> None:
    class Broken:
        name = "broken"

        def decide(self, messages: Any, tools: Any) -> Any:
            return "yes"

    model = ScriptedModel([])
    client = make_client(model, [get_weather], router=Broken())
    with pytest.raises(RouterError, match="expected bool or RouteDecision"):
        client.call("x")

    class Raising:
        def decide(self, messages: Any, tools: Any) -> bool:
            raise KeyError("boom")

    client = make_client(model, [get_weather], router=Raising())
    with pytest.raises(RouterError, match="KeyError"):
        client.call("x")


def test_unknown_router_name(get_weather: Any) -> None:
    with pytest.raises(RouterError, match="'llm', 'always', 'never'"):
        ToolCallClient(
            base_url="http://127.0.0.1:9/v1", model="m", tools=[get_weather], router="smart"
        )


def test_async_router_needs_the_async_client(
    make_sync_client: ClientFactory, get_weather: Any
) -> None:
    async def router(messages: Any, tools: Any) -> bool:
        return True

    client = make_sync_client(ScriptedModel([]), [get_weather], router=router)
    with pytest.raises(RouterError, match="AsyncToolCallClient"):
        client.call("x")
