"""Stage 1 through the client: the router decides whether stage 2 runs, and with what."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pytest

from toolcall_sdk import RouteDecision, RouterError, Tool, ToolCallClient, tool
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

from ..conftest import OSLO_RESULT_HISTORY, ClientFactory, Ledger

WEATHER = {"city": "Oslo", "unit": "celsius"}


NAMED = {"type": "function", "function": {"name": "get_weather"}}


def _client(model: ScriptedModel, tools: list[Any], **options: Any) -> ToolCallClient:
    return ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=tools,
        http_client=model.http_client(),
        **options,
    )


def test_both_router_asks_then_lets_the_answer_decide(
    get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", WEATHER)], route_answer=True)
    history = [
        {"role": "user", "content": "Hi, I am planning a trip."},
        {"role": "assistant", "content": "Nice! How can I help?"},
        {"role": "user", "content": "Weather in Oslo?"},
    ]

    result = _client(model, [create_invoice, get_weather], router="both").call(history)

    probe, call = model.requests
    assert probe.stage == "route"
    assert probe.tools is None
    assert probe.json is not None
    assert probe.json["response_format"]["type"] == "json_schema"
    # The question is about the user's last message alone.
    assert "Weather in Oslo?" in probe.messages[-1]["content"]
    assert "planning a trip" not in probe.messages[-1]["content"]
    # A "yes" offers every tool under auto: the answer decides which, or none.
    assert (call.stage, call.tool_choice, call.temperature) == ("call", "auto", 0)
    assert [t["function"]["name"] for t in call.tools or []] == ["create_invoice", "get_weather"]
    assert call.messages == history
    assert result.called
    assert (result.route.router, result.route.answer_decides) == ("llm", True)
    assert result.calls[0].arguments.model_dump() == WEATHER


def test_both_router_no_gives_a_plain_answer_without_tools(
    get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([text("The capital of France is Paris.")], route_answer=False)

    result = _client(model, [get_weather], router="both").run("What is the capital of France?")

    probe, answer = model.requests
    assert probe.stage == "route"
    assert (answer.stage, answer.tools, answer.tool_choice) == ("answer", None, None)
    assert result.called is False
    assert result.content == "The capital of France is Paris."
    assert ledger.calls == []


def test_a_text_answer_after_a_yes_ends_the_call(get_weather: Any, ledger: Ledger) -> None:
    model = ScriptedModel([text("Paris is the capital of France.")], route_answer=True)

    result = _client(model, [get_weather], router="both").run("What is the capital of France?")

    _, request = model.requests
    assert (request.stage, request.tool_choice) == ("call", "auto")
    assert result.called is False
    assert result.content == "Paris is the capital of France."
    assert result.calls == []
    assert ledger.calls == []
    assert [a.problems for a in result.attempts] == [[]]


def test_after_a_tool_result_the_answer_decides_without_a_question(get_weather: Any) -> None:
    model = ScriptedModel([text("It is 18 degrees in Oslo.")])
    history = OSLO_RESULT_HISTORY

    result = _client(model, [get_weather]).call(history)

    [request] = model.requests
    assert (request.stage, request.tool_choice) == ("call", "auto")
    assert result.content == "It is 18 degrees in Oslo."


def test_default_llm_router_lets_the_answer_decide_with_no_question(
    get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", WEATHER)])

    result = _client(model, [create_invoice, get_weather]).call("Weather in Oslo?")

    [call] = model.requests  # no routing request
    assert (call.stage, call.tool_choice, call.temperature) == ("call", "auto", 0)
    assert [t["function"]["name"] for t in call.tools or []] == ["create_invoice", "get_weather"]
    assert call.messages == [{"role": "user", "content": "Weather in Oslo?"}]
    assert (result.route.router, result.route.answer_decides) == ("llm", True)
    assert result.calls[0].arguments.model_dump() == WEATHER


def test_default_llm_router_ends_with_a_text_answer(get_weather: Any, ledger: Ledger) -> None:
    model = ScriptedModel([text("Hello! How can I help?")])

    result = _client(model, [get_weather]).run("Hi there!")

    [request] = model.requests
    assert (request.stage, request.tool_choice) == ("call", "auto")
    assert result.called is False
    assert result.content == "Hello! How can I help?"
    assert ledger.calls == []


def test_a_call_to_a_tool_nobody_offered_is_asked_again_without_tools(
    get_weather: Any, ledger: Ledger
) -> None:
    invented = '```json\n{"name": "tell_joke", "arguments": {"topic": "cats"}}\n```'
    model = ScriptedModel([text(invented), text("Why did the cat sit on the laptop?")])

    result = _client(model, [get_weather]).run("Tell me a joke about cats.")

    first, second = model.requests
    assert (first.stage, first.tool_choice) == ("call", "auto")
    assert (second.stage, second.tools, second.tool_choice) == ("answer", None, None)
    assert second.messages == [{"role": "user", "content": "Tell me a joke about cats."}]
    assert result.called is False
    assert result.content == "Why did the cat sit on the laptop?"
    assert ledger.calls == []


def test_a_call_named_from_an_offered_tools_words_runs_as_that_tool(
    get_weather: Any, ledger: Ledger
) -> None:
    # "Current weather for a city.": the 0.5B names tools after their descriptions.
    invented = '```json\n{"name": "current_weather", "arguments": {"city": "Oslo"}}\n```'
    model = ScriptedModel([text(invented)])

    result = _client(model, [get_weather]).run("Weather in Oslo?")

    [request] = model.requests
    assert (request.stage, request.tool_choice) == ("call", "auto")
    assert ledger.calls == [("get_weather", WEATHER)]
    assert result.attempts[0].repairs == [
        "current_weather:fenced_code",
        "get_weather:meant_tool:current_weather",
    ]
    assert result.calls[0].output == "18 degrees celsius in Oslo"


def test_a_word_of_the_invented_name_fills_the_choice_it_names(ledger: Ledger) -> None:
    @tool
    def list_invoices(
        customer_id: str, status: Literal["unpaid", "paid", "overdue"] | None = None
    ) -> str:
        """List a customer's invoices, optionally by status."""
        ledger.calls.append(("list_invoices", {"customer_id": customer_id, "status": status}))
        return "[]"

    invented = '{"name": "list_overdue_invoices", "arguments": {"customer_id": "CUS-000001"}}'
    model = ScriptedModel([text(invented)])

    result = _client(model, [list_invoices]).run("List the overdue invoices of CUS-000001.")

    assert ledger.calls == [("list_invoices", {"customer_id": "CUS-000001", "status": "overdue"})]
    assert result.attempts[0].repairs[-2:] == [
        "list_invoices:meant_tool:list_overdue_invoices",
        "list_invoices:meant_choice:/status",
    ]


def test_a_call_with_a_word_no_offered_tool_uses_is_asked_again_without_tools(
    get_weather: Any, ledger: Ledger
) -> None:
    # The arguments fit get_weather, but "forecast" is no word of it: another question's tool.
    invented = '```json\n{"name": "forecast_weather", "arguments": {"city": "Oslo"}}\n```'
    model = ScriptedModel([text(invented), text("I cannot forecast the weather.")])

    result = _client(model, [get_weather]).run("Will it rain in Oslo next month?")

    _, second = model.requests
    assert (second.stage, second.tools) == ("answer", None)
    assert result.called is False
    assert ledger.calls == []


def test_a_wrong_call_in_the_answer_is_fed_back_and_retried_forced(
    get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"unit": "celsius"}), tool_call("get_weather", WEATHER)]
    )

    result = _client(model, [get_weather]).run("Weather in Oslo?")

    first, second = model.requests
    assert first.tool_choice == "auto"
    assert second.tool_choice == NAMED  # the model called: its retry may not dodge in text
    assert "city" in str(second.messages[-1]["content"])
    assert result.called
    assert ledger.calls == [("get_weather", WEATHER)]
    assert [bool(a.problems) for a in result.attempts] == [True, False]


def test_probe_router_asks_then_forces_the_call(get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", WEATHER)], route_answer=True)
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        http_client=model.http_client(),
        router="probe",
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
    assert (call.stage, call.tool_choice) == ("call", NAMED)
    assert result.route.router == "llm"
    assert result.route.answer_decides is False
    assert result.called


def test_probe_router_no_gives_a_plain_answer(get_weather: Any, ledger: Ledger) -> None:
    model = ScriptedModel([text("Hello! How can I help?")], route_answer=False)
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        http_client=model.http_client(),
        router="probe",
    )

    result = client.run("Hi")

    assert result.called is False
    assert result.content == "Hello! How can I help?"
    assert result.calls == []
    assert ledger.calls == []
    answer = model.calls_for("answer")[0]
    assert (answer.tools, answer.tool_choice) == (None, None)
    assert answer.temperature == 0


def test_unreadable_probe_answer_falls_back_to_calling(get_weather: Any) -> None:
    model = ScriptedModel(
        [text("I think yes"), tool_call("get_weather", WEATHER)], route_answer=None
    )
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[get_weather],
        http_client=model.http_client(),
        router="probe",
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
    client = make_client(model, [], router="probe")

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


def test_a_shortlist_of_one_with_parallel_calls_stays_required_and_keeps_every_call(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    # A named choice is decoded as exactly one call: asking for parallel calls keeps the
    # grammar that allows several calls of the one tool left.
    def router(messages: Any, tools: Any) -> RouteDecision:
        return RouteDecision(call=True, tools=["get_weather"], score=0.9)

    oslo, bergen = WEATHER, {"city": "Bergen", "unit": "celsius"}
    model = ScriptedModel(
        [parallel(tool_call("get_weather", oslo), tool_call("get_weather", bergen))]
    )
    client = make_client(
        model, [create_invoice, get_weather], router=router, parallel_tool_calls=True
    )

    result = client.call("Weather in Oslo and Bergen?")

    [request] = model.calls_for("call")
    assert request.tool_choice == "required"
    assert request.json is not None
    assert request.json["parallel_tool_calls"] is True
    assert [t["function"]["name"] for t in request.tools or []] == ["get_weather"]
    assert [call.arguments.model_dump() for call in result.calls] == [oslo, bergen]


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
    with pytest.raises(RouterError, match="'llm', 'both', 'probe', 'always', 'never'"):
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
