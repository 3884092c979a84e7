"""LLMRouter: the constrained routing request, its shortlist, and standalone use."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import OpenAI

from toolcall_sdk import LLMRouter, RouterError
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory

WEATHER = {"city": "Oslo"}


def route(need: bool, *tools: str) -> Any:
    return text(json.dumps({"need_tool": need, "tools": list(tools)}))


def test_the_routing_request_constrains_the_names_to_the_offered_tools(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel(
        [route(True, "get_weather"), tool_call("get_weather", WEATHER)], route_answer=None
    )
    client = make_client(model, [create_invoice, get_weather], router="probe")

    result = client.call("Weather in Oslo?")

    probe, call = model.requests
    assert probe.stage == "route"
    assert probe.json is not None
    schema = probe.json["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["need_tool", "tools"]
    assert schema["properties"]["tools"]["items"]["enum"] == ["create_invoice", "get_weather"]
    assert schema["properties"]["tools"]["maxItems"] == 3
    assert probe.json["temperature"] == 0
    assert probe.json["max_tokens"] == 16 + 24 * 3
    # The named tool is the whole shortlist: stage 2 names it.
    assert result.route.tools == ["get_weather"]
    assert [t["function"]["name"] for t in call.tools or []] == ["get_weather"]
    assert call.tool_choice == {"type": "function", "function": {"name": "get_weather"}}


def test_no_tool_answer_gives_a_plain_answer(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([route(False), text("Hello!")], route_answer=None)
    client = make_client(model, [get_weather], router="probe")

    result = client.call("Hi")

    assert result.called is False
    assert result.route.reason == "model: no tool needed"
    assert [r.stage for r in model.requests] == ["route", "answer"]


def test_unknown_names_are_dropped_and_an_empty_list_means_all_tools(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel(
        [route(True, "not_a_tool"), tool_call("get_weather", WEATHER)], route_answer=None
    )
    client = make_client(model, [create_invoice, get_weather], router="probe")

    client.call("Weather in Oslo?")

    call = model.requests[1]
    assert [t["function"]["name"] for t in call.tools or []] == ["create_invoice", "get_weather"]
    assert call.tool_choice == "required"


def test_shortlist_zero_keeps_the_one_field_schema(get_weather: Any) -> None:
    params = LLMRouter(mode="probe", shortlist=0).request_params(
        [{"role": "user", "content": "Hi"}], [get_weather]
    )
    schema = params["response_format"]["json_schema"]["schema"]
    assert schema["properties"] == {"need_tool": {"type": "boolean"}}
    assert params["max_tokens"] == 16


def test_interpret_reads_both_answer_forms() -> None:
    router = LLMRouter(mode="probe")
    assert router.interpret({"content": '{"need_tool": true}'}).tools == []
    named = router.interpret({"content": '{"tools": ["a", "b", "a"]}'})
    assert (named.call, named.tools) == (True, ["a", "b"])
    assert router.interpret({"content": '{"tools": []}'}).call is False
    broken = router.interpret({"content": '{"need_tool": tr'})
    assert (broken.call, broken.score) == (True, 0.5)


def test_standalone_decide_needs_a_client(get_weather: Any) -> None:
    with pytest.raises(RouterError, match="client= and model="):
        LLMRouter(mode="probe").decide([{"role": "user", "content": "Hi"}], [get_weather])


def test_standalone_decide_counts_tokens_and_requests() -> None:
    model = ScriptedModel([], route_answer=True)
    client = OpenAI(base_url=model.base_url, api_key="unused", http_client=model.http_client())
    router = LLMRouter(mode="probe", client=client, model="m")
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather."}}]

    decision = router.decide([{"role": "user", "content": "Weather in Oslo?"}], tools)
    assert router.decide([{"role": "user", "content": "Weather?"}], []).call is False

    assert decision.call is True
    (request,) = model.requests
    assert request.stage == "route"
    assert request.json is not None
    assert request.json["model"] == "m"
    assert "get_weather: Weather." in request.messages[0]["content"]
    assert router.requests == 1
    assert router.prompt_tokens > 0
    assert router.completion_tokens > 0
    assert router.latency_s > 0
