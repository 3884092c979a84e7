"""HybridRouter: confident cases stay local, the uncertain band asks the served model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import OpenAI

from toolcall_sdk import EmbeddingRouter, HybridRouter, LLMRouter, RouteDecision
from toolcall_sdk.routing import resolve_router
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from .._router_extra import requires_router_extra
from ..conftest import ClientFactory

pytestmark = requires_router_extra


@pytest.fixture(scope="module")
def embedding() -> EmbeddingRouter:
    return EmbeddingRouter()


def test_confident_decisions_never_reach_the_model(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any, embedding: EmbeddingRouter
) -> None:
    hybrid = HybridRouter(embedding=embedding, band=0.0)
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), text("Hello!")], route_answer=None
    )
    client = make_client(model, [create_invoice, get_weather], router=hybrid)

    called = client.call("What's the weather in Oslo?")
    chatted = client.call("Hi!")

    assert called.called is True
    assert chatted.called is False
    assert called.route.router == chatted.route.router == "hybrid"
    assert called.route.reason.startswith("embedding, confident")
    assert [r.stage for r in model.requests] == ["call", "answer"]
    assert (hybrid.decisions, hybrid.llm_decisions, hybrid.llm_share) == (2, 0, 0.0)


def test_uncertain_decisions_ask_the_model_and_merge_its_shortlist(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any, embedding: EmbeddingRouter
) -> None:
    # Everything is uncertain; the LLM stage asks its routing question.
    hybrid = HybridRouter(embedding=embedding, band=1.0, llm=LLMRouter(mode="probe"))
    answer = text(json.dumps({"need_tool": True, "tools": ["get_weather"]}))
    model = ScriptedModel([answer, tool_call("get_weather", {"city": "Oslo"})], route_answer=None)
    client = make_client(model, [create_invoice, get_weather], router=hybrid)

    result = client.call("What's the weather in Oslo?")

    route, call = model.requests
    assert route.stage == "route"
    assert route.json is not None
    assert "tools" in route.json["response_format"]["json_schema"]["schema"]["properties"]
    # The model's pick leads; the embedding ranking fills the shortlist behind it.
    assert result.route.tools == ["get_weather", "create_invoice"]
    assert result.route.reason.startswith("uncertain embedding p(call)=")
    assert [t["function"]["name"] for t in call.tools or []] == ["get_weather", "create_invoice"]
    assert hybrid.llm_share == 1.0


def test_the_model_can_overrule_an_uncertain_call(
    make_client: ClientFactory, get_weather: Any, embedding: EmbeddingRouter
) -> None:
    hybrid = HybridRouter(embedding=embedding, band=1.0, llm=LLMRouter(mode="probe"))
    model = ScriptedModel([text("Sure.")], route_answer=False)
    client = make_client(model, [get_weather], router=hybrid)

    result = client.call("What's the weather in Oslo?")

    assert result.called is False
    assert [r.stage for r in model.requests] == ["route", "answer"]


def test_band_decides_what_is_uncertain(embedding: EmbeddingRouter) -> None:
    hybrid = HybridRouter(embedding=embedding, band=0.1)
    threshold = embedding.threshold
    assert hybrid.uncertain(RouteDecision(call=True, score=threshold + 0.05))
    assert not hybrid.uncertain(RouteDecision(call=True, score=threshold + 0.2))
    with pytest.raises(ValueError, match="band"):
        HybridRouter(embedding=embedding, band=-1)


def test_standalone_hybrid_reports_the_llm_share(embedding: EmbeddingRouter) -> None:
    model = ScriptedModel([], route_answer=True)
    client = OpenAI(base_url=model.base_url, api_key="unused", http_client=model.http_client())
    hybrid = HybridRouter(
        embedding=embedding, llm=LLMRouter(mode="probe", client=client, model="m"), band=0.0
    )
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather."}}]
    messages = [{"role": "user", "content": "What's the weather in Oslo?"}]

    hybrid.decide(messages, tools)
    hybrid.band = 1.0
    decision = hybrid.decide(messages, tools)

    assert decision.call is True
    assert len(model.requests) == 1
    assert (hybrid.decisions, hybrid.llm_decisions, hybrid.llm_share) == (2, 1, 0.5)


async def test_async_hybrid(
    make_async_client: Any, get_weather: Any, embedding: EmbeddingRouter
) -> None:
    hybrid = HybridRouter(embedding=embedding, band=1.0, llm=LLMRouter(mode="probe"))
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})], route_answer=True)
    client = make_async_client(model, [get_weather], router=hybrid)

    result = await client.call("What's the weather in Oslo?")

    assert result.called is True
    assert [r.stage for r in model.requests] == ["route", "call"]
    assert hybrid.llm_decisions == 1


def test_the_default_llm_stage_leaves_the_band_to_the_answer(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any, embedding: EmbeddingRouter
) -> None:
    hybrid = HybridRouter(embedding=embedding, band=1.0)  # LLMRouter(): the answer decides
    model = ScriptedModel([text("Hello! How can I help?")])
    client = make_client(model, [create_invoice, get_weather], router=hybrid)

    result = client.call("Hi there!")

    [request] = model.requests  # no routing question
    assert (request.stage, request.tool_choice) == ("call", "auto")
    assert result.route.answer_decides
    assert result.called is False
    assert result.content == "Hello! How can I help?"


def test_below_the_screens_floor_the_request_is_answered_without_tools(
    make_client: ClientFactory, get_weather: Any, embedding: EmbeddingRouter
) -> None:
    # A floor of 1 puts every request below it: no tool is offered, nothing is called.
    hybrid = HybridRouter.screen(embedding=embedding, floor=1.0)
    model = ScriptedModel([text("It is usually mild.")])
    client = make_client(model, [get_weather], router=hybrid)

    result = client.call("What's the weather in Oslo?")

    [request] = model.requests
    assert request.stage == "answer"
    assert not (request.json or {}).get("tools")
    assert result.called is False
    assert result.content == "It is usually mild."
    assert result.route.reason.startswith("embedding p(call)=")
    assert "below the floor 1" in result.route.reason
    assert (hybrid.decisions, hybrid.llm_decisions) == (1, 0)


def test_above_the_screens_floor_the_models_answer_decides(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any, embedding: EmbeddingRouter
) -> None:
    hybrid = HybridRouter.screen(embedding=embedding, floor=0.0)
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [create_invoice, get_weather], router=hybrid)

    result = client.call("What's the weather in Oslo?")

    # No routing question, and the call is the model's choice under auto, not forced, with
    # every tool offered in the client's order.
    [request] = model.requests
    assert (request.stage, request.tool_choice) == ("call", "auto")
    assert [t["function"]["name"] for t in request.tools or []] == [
        "create_invoice",
        "get_weather",
    ]
    assert result.called is True
    assert result.route.answer_decides
    assert hybrid.llm_share == 1.0


def test_a_screen_never_forces_a_call_the_embedding_is_sure_of(embedding: EmbeddingRouter) -> None:
    screen = HybridRouter.screen(embedding=embedding)
    sure = RouteDecision(call=True, tools=["get_weather"], score=0.99)

    assert screen.floor == 0.02
    assert screen.uncertain(sure)  # the model still decides
    assert not screen.uncertain(RouteDecision(call=False, score=0.01))
    assert screen.settle(RouteDecision(call=True, score=0.01)).call is False
    with pytest.raises(ValueError, match="floor"):
        HybridRouter(embedding=embedding, floor=1.5)


def test_the_screen_is_named(make_client: ClientFactory, get_weather: Any) -> None:
    screen = resolve_router("screen")
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [get_weather], router="screen")

    result = client.call("What's the weather in Oslo?")

    assert isinstance(screen, HybridRouter)
    assert screen.floor == 0.02
    # Every named screen shares one embedding router (one encoder in memory), not its counts.
    again = resolve_router("screen")
    assert again is not screen
    assert again.embedding is screen.embedding
    assert isinstance(screen.llm, LLMRouter)
    assert screen.llm.mode == "answer"
    assert (result.route.router, result.route.answer_decides) == ("hybrid", True)
    assert result.called is True
