"""Every router through `client.call` against the real CPU vLLM serving Qwen2.5-Coder-0.5B.

What is checked is that each router works end to end on the wire (the constrained routing
request is accepted and readable, the shortlist reaches stage 2), and what one LLM routing
request costs in tokens and time is printed (`pytest -s`) for docs/routing.md. How well the
router decides on a real model is measured by the ladder benchmark, not asserted here.
"""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from toolcall_sdk import EmbeddingRouter, HybridRouter, LLMRouter, ToolCallClient
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo.tools import DEMO_TOOLS

from .conftest import MODEL

WEATHER = "What is the weather in Oslo in celsius?"
COST_REQUESTS = [
    WEATHER,
    "Hi there!",
    "Thanks, that's all.",
    "Where is my order ORD-12345?",
    "Create an invoice for customer CUS-000123 of 250000 VND due 2026-09-01.",
    "Tell me a joke about cats.",
    "Weather in Hanoi tomorrow, in fahrenheit please",
    "What can you do?",
    "Is order ORD-55555 shipped yet?",
    "I need an invoice.",
]


def client_for(server: Server, router: Any) -> ToolCallClient:
    return ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=DEMO_TOOLS,
        router=router,
        max_tokens=200,
    )


@pytest.fixture(scope="module")
def embedding() -> EmbeddingRouter:
    router = EmbeddingRouter()
    router.warm_up()
    return router


def test_llm_router_through_the_client(demo_server: Server) -> None:
    result = client_for(demo_server, "llm").call(WEATHER)

    assert result.route.router == "llm"
    assert result.usage.prompt_tokens > 0
    # Without compact JSON the answer is whitespace up to max_tokens: "unreadable".
    assert not result.route.reason.startswith("unreadable"), result.route
    if result.called:
        # The default router's "yes" leaves the choice to the answer, among every tool.
        assert result.route.answer_decides
        assert result.attempts[0].request.tool_choice == "auto"
        assert set(result.attempts[0].request.tools) == {t.name for t in DEMO_TOOLS}


def test_embedding_router_through_the_client(
    demo_server: Server, embedding: EmbeddingRouter
) -> None:
    client = client_for(demo_server, embedding)

    called = client.call(WEATHER)
    chatted = client.call("Hi there, how are you?")

    assert called.route.router == "embedding"
    assert called.called is True
    assert called.route.tools[0] == "get_weather"
    assert called.attempts[0].request.tools == tuple(called.route.tools)
    assert called.calls, called.attempts
    assert chatted.called is False
    assert chatted.content is not None


def test_hybrid_router_through_the_client(demo_server: Server, embedding: EmbeddingRouter) -> None:
    confident = HybridRouter(embedding=embedding, band=0.0)
    asking = HybridRouter(embedding=embedding, band=1.0, llm=LLMRouter(mode="probe"))

    local = client_for(demo_server, confident).call(WEATHER)
    remote = client_for(demo_server, asking).call(WEATHER)

    assert local.route.reason.startswith("embedding, confident")
    assert remote.route.reason.startswith("uncertain embedding")
    assert not remote.route.reason.endswith("calling to be safe"), remote.route
    assert (confident.llm_share, asking.llm_share) == (0.0, 1.0)


def test_llm_router_cost_per_decision(demo_server: Server) -> None:
    openai_client = OpenAI(base_url=demo_server.base_url, api_key="EMPTY")
    # The routing question's cost (mode "both" asks it about the user's last message).
    router = LLMRouter(mode="both", client=openai_client, model=MODEL)
    schemas = [t.openai_schema() for t in DEMO_TOOLS]
    seconds: list[float] = []
    readable = 0
    for text in COST_REQUESTS:
        before = router.latency_s
        decision = router.decide([{"role": "user", "content": text}], schemas)
        seconds.append(router.latency_s - before)
        readable += not decision.reason.startswith("unreadable")

    report = {
        "requests": router.requests,
        "tools_offered": len(schemas),
        "prompt_tokens_per_decision": router.prompt_tokens / router.requests,
        "completion_tokens_per_decision": router.completion_tokens / router.requests,
        "latency_p50_ms": statistics.median(seconds) * 1000,
        "latency_p95_ms": sorted(seconds)[int(0.95 * (len(seconds) - 1))] * 1000,
        "readable_answers": readable / router.requests,
    }
    print("\nLLMRouter cost on the CPU demo server:", json.dumps(report))
    out = os.environ.get("TOOLCALL_ROUTER_COST_JSON")
    if out:
        Path(out).write_text(json.dumps(report, indent=1))
    assert router.requests == len(COST_REQUESTS)
    assert 0 < report["completion_tokens_per_decision"] <= router.max_tokens
    assert report["readable_answers"] == 1.0


def test_screen_through_the_client(demo_server: Server, embedding: EmbeddingRouter) -> None:
    client = client_for(demo_server, HybridRouter.screen(embedding=embedding))

    chatted = client.call("Hi there, how are you?")
    called = client.call(WEATHER)

    # Below the floor: decided locally, answered with no tools offered.
    assert "below the floor" in chatted.route.reason
    assert chatted.called is False
    assert chatted.content
    assert not chatted.attempts
    # Above it: the model's own answer under auto decides, over every tool.
    assert called.route.answer_decides
    first = called.attempts[0].request
    assert first.tool_choice == "auto"
    assert set(first.tools) == {t.name for t in DEMO_TOOLS}
    assert [call.name for call in called.calls] == ["get_weather"]
