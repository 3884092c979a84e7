"""`flow()` driven directly with canned answers: the pipeline's decisions without any client."""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

import pytest

from toolcall_sdk import RouteDecision, ToolCallFailed, ToolCallResult, Usage, tool
from toolcall_sdk._pipeline import (
    Answer,
    ChatRequest,
    Config,
    Effect,
    ExecuteMany,
    Notify,
    Outcome,
    RouteQuery,
    flow,
)
from toolcall_sdk.events import AttemptFailed, ToolCallValidated
from toolcall_sdk.routing import (
    AskModel,
    Consult,
    LLMRouter,
    RouteFlow,
    coerce_decision,
    resolve_router,
)


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


@tool
def get_time(zone: str) -> str:
    """Current time in a time zone."""
    return f"noon in {zone}"


def _config(router: Any = "always", max_retries: int = 1, **tools: Any) -> Config:
    chosen = tools or {"get_weather": get_weather}
    return Config(
        model="m",
        tools=chosen,
        schemas={name: t.openai_schema() for name, t in chosen.items()},
        router=resolve_router(router),
        max_retries=max_retries,
        temperature=0.0,
        max_tokens=None,
        parallel_tool_calls=None,
        extra_body=None,
        validation_context=None,
    )


def _call(name: str, arguments: str, call_id: str = "call_1") -> Answer:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }
    return Answer(message=message, finish_reason="tool_calls", usage=Usage(10, 5), latency_s=0.0)


def _text(content: str) -> Answer:
    message = {"role": "assistant", "content": content}
    return Answer(message=message, finish_reason="stop", usage=Usage(3, 2), latency_s=0.0)


def _drive(
    steps: Generator[Effect, Any, ToolCallResult], replies: list[Any]
) -> tuple[list[Effect], ToolCallResult]:
    """Send each effect the next canned reply (None for `Notify`); collect the effects."""
    seen: list[Effect] = []
    queue = list(replies)
    try:
        effect = next(steps)
        while True:
            seen.append(effect)
            effect = steps.send(None if isinstance(effect, Notify) else queue.pop(0))
    except StopIteration as done:
        assert not queue, f"replies left over: {queue}"
        return seen, done.value


def test_forced_call_then_validation_feedback_then_valid_call() -> None:
    steps = flow(_config(), [{"role": "user", "content": "weather?"}], execute=False)
    effects, result = _drive(
        steps, [True, _call("get_weather", "{}"), _call("get_weather", '{"city": "Oslo"}')]
    )

    assert isinstance(effects[0], RouteQuery)  # "always" is a router object: consulted whole
    requests = [e for e in effects if isinstance(e, ChatRequest)]
    assert [r.stage for r in requests] == ["call", "call"]
    assert [r.attempt for r in requests] == [1, 2]
    first, second = (r.params for r in requests)
    assert first["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert first["temperature"] == 0.0
    feedback = second["messages"][-1]
    assert feedback["role"] == "tool"
    assert feedback["tool_call_id"] == "call_1"
    assert "city" in feedback["content"]
    assert "Field required" in feedback["content"]
    notified = [type(e.event) for e in effects if isinstance(e, Notify)]
    assert notified == [AttemptFailed, ToolCallValidated]
    assert result.calls[0].arguments.city == "Oslo"  # type: ignore[attr-defined]
    assert [len(a.problems) for a in result.attempts] == [1, 0]
    assert result.usage == Usage(20, 10)


def test_retries_exhausted_raise_with_every_attempt() -> None:
    steps = flow(_config(max_retries=1), [{"role": "user", "content": "x"}], execute=False)
    with pytest.raises(ToolCallFailed) as failed:
        _drive(steps, [True, _call("nope", "{}"), _call("nope", "{}")])
    assert [a.error_kinds for a in failed.value.attempts] == [["unknown_tool"], ["unknown_tool"]]


def test_execute_effect_carries_the_validated_arguments_once() -> None:
    steps = flow(_config(), [{"role": "user", "content": "x"}], execute=True)
    effects, result = _drive(
        steps, [True, _call("get_weather", '{"city": "Hue"}'), [Outcome(output="sunny in Hue")]]
    )
    executes = [e for e in effects if isinstance(e, ExecuteMany)]
    assert len(executes) == 1
    [execute] = executes[0].calls
    assert execute.tool is get_weather
    assert execute.call_id == "call_1"
    assert execute.arguments.city == "Hue"  # type: ignore[attr-defined]
    assert result.calls[0].output == "sunny in Hue"
    assert result.messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "sunny in Hue",
    }


def test_llm_router_flow_becomes_a_route_request_with_the_clients_model() -> None:
    config = _config(router="probe")
    steps = flow(config, [{"role": "user", "content": "hello"}], execute=False)
    effects, result = _drive(steps, [_text('{"need_tool": false, "tools": []}'), _text("Hi!")])
    route, answer = (e for e in effects if isinstance(e, ChatRequest))
    assert route.stage == "route"
    assert route.params["model"] == "m"
    assert route.params["response_format"]["type"] == "json_schema"
    assert answer.stage == "answer"
    assert "tools" not in answer.params
    assert "tool_choice" not in answer.params
    assert result.called is False
    assert result.content == "Hi!"
    assert result.usage == Usage(6, 4)  # the routing request counts too


class _TwoStep:
    """A composite router: a local verdict first, the model only when it says 'maybe'."""

    name = "two-step"

    def __init__(self, verdict: bool | None) -> None:
        self.verdict = verdict
        self.llm = LLMRouter(mode="probe", shortlist=0)

    def decide(self, messages: Any, tools: Any) -> bool:
        raise AssertionError("a router with route_flow is driven, never decided whole")

    def route_flow(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]) -> RouteFlow:
        first = yield Consult(_Fixed(self.verdict))
        if first is not None:
            return RouteDecision(call=bool(first), router=self.name)
        second = yield from self.llm.route_flow(messages, tools)
        return coerce_decision(second, self.llm)


class _Fixed:
    name = "fixed"

    def __init__(self, verdict: bool | None) -> None:
        self.verdict = verdict

    def decide(self, messages: Any, tools: Any) -> bool | None:
        return self.verdict


def test_a_composite_router_is_driven_through_its_flow_without_special_cases() -> None:
    router = _TwoStep(verdict=None)
    steps = flow(_config(router=router), [{"role": "user", "content": "weather?"}], execute=False)
    effects, result = _drive(
        steps, [None, _text('{"need_tool": true}'), _call("get_weather", '{"city": "Oslo"}')]
    )
    assert isinstance(effects[0], RouteQuery)
    assert isinstance(effects[0].router, _Fixed)
    kinds = [(e.stage if isinstance(e, ChatRequest) else type(e).__name__) for e in effects]
    assert kinds == ["RouteQuery", "route", "call", "Notify"]
    assert result.called is True
    assert result.route is not None
    assert result.route.router == "llm"


def test_a_composite_router_settles_locally_without_asking_the_model() -> None:
    steps = flow(
        _config(router=_TwoStep(verdict=False)), [{"role": "user", "content": "hi"}], execute=False
    )
    effects, result = _drive(steps, [False, _text("Hello.")])
    assert [type(e).__name__ for e in effects] == ["RouteQuery", "ChatRequest"]
    assert result.called is False


def test_standalone_decide_drives_the_same_flow_through_ask() -> None:
    asked: list[dict[str, Any]] = []

    class Asker(LLMRouter):
        def ask(self, params: dict[str, Any]) -> dict[str, Any]:
            asked.append(params)
            return {"role": "assistant", "content": '{"need_tool": true, "tools": ["get_time"]}'}

    decision = Asker(mode="probe").decide(
        [{"role": "user", "content": "time in Hanoi?"}], [get_weather, get_time]
    )
    assert decision.call is True
    assert decision.tools == ["get_time"]
    assert len(asked) == 1
    assert "model" not in asked[0]
    assert isinstance(AskModel(asked[0], asker=Asker()), AskModel)
