"""Accepted cases teach the model: `examples=` through both twins, against the scripted server.

Each test asserts the exact messages the server received: where the demonstrations go, in
what order and form, how many, which requests never get them, and that the grounding check
does not take a demonstration's values for the user's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import (
    ExampleBank,
    ExamplesError,
    InvalidArgumentError,
    RouteDecision,
    ToolCallFailed,
    tool,
)
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
OSLO = {"city": "Oslo"}
NOTE = "(example: not run)"


def case(asked: str, *calls: tuple[str, Mapping[str, Any]]) -> dict[str, Any]:
    """An accepted case as `cases review` writes it (system prompt, user turn, expected)."""
    return {
        "id": f"c-{abs(hash(asked))}",
        "messages": [SYSTEM, {"role": "user", "content": asked}],
        "tools": [],
        "expected": {"calls": [{"name": n, "arguments": dict(a)} for n, a in calls]},
    }


TOMORROW = case("Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"}))
RAINING = case("Is it raining in Paris?", ("get_weather", {"city": "Paris"}))
BILL = case(
    "Bill CUS-000777 two million VND, due 2028-03-01.",
    (
        "create_invoice",
        {"customer_id": "CUS-000777", "amount_vnd": 2_000_000, "due_date": "2028-03-01"},
    ),
)


def demonstration(number: int, asked: str, *calls: tuple[str, Any]) -> list[dict[str, Any]]:
    """The turns one demonstration is sent as."""
    ids = [f"demo_{number}_{index}" for index in range(len(calls))]
    return [
        {"role": "user", "content": asked},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for call_id, (name, arguments) in zip(ids, calls, strict=True)
            ],
        },
        *({"role": "tool", "tool_call_id": call_id, "content": NOTE} for call_id in ids),
    ]


def bank(*cases: dict[str, Any], **options: Any) -> ExampleBank:
    # TF-IDF: the same ranking with or without the router extra installed.
    return ExampleBank(list(cases), similarity="tfidf", **options)


def has_demonstration(messages: Sequence[Mapping[str, Any]]) -> bool:
    return any(m.get("content") == NOTE or "demo_" in json.dumps(m) for m in messages)


def test_demonstrations_go_after_the_system_message_most_alike_last(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(
        model, [get_weather, create_invoice], examples=bank(BILL, RAINING, TOMORROW, k=2)
    )

    client.call([SYSTEM, {"role": "user", "content": "Weather in Oslo?"}])

    [request] = model.calls_for("call")
    assert request.messages == [
        SYSTEM,
        *demonstration(1, "Is it raining in Paris?", ("get_weather", {"city": "Paris"})),
        *demonstration(2, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"})),
        {"role": "user", "content": "Weather in Oslo?"},
    ]


def test_without_a_system_message_they_come_first(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], examples=bank(TOMORROW))

    client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    assert request.messages == [
        *demonstration(1, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"})),
        {"role": "user", "content": "Weather in Oslo?"},
    ]


def test_a_case_with_several_calls_is_one_assistant_message_with_a_reply_each(
    make_client: ClientFactory, get_weather: Any
) -> None:
    both = case(
        "Weather in Oslo and Rome?",
        ("get_weather", {"city": "Oslo"}),
        ("get_weather", {"city": "Rome"}),
    )
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], examples=bank(both))

    client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    assert request.messages[:4] == demonstration(
        1,
        "Weather in Oslo and Rome?",
        ("get_weather", {"city": "Oslo"}),
        ("get_weather", {"city": "Rome"}),
    )


def test_k_bounds_how_many(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], examples=bank(RAINING, TOMORROW, k=1))

    client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    assert request.messages == [
        *demonstration(1, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"})),
        {"role": "user", "content": "Weather in Oslo?"},
    ]


def test_the_token_budget_bounds_them_at_four_characters_a_token(
    make_client: ClientFactory, get_weather: Any
) -> None:
    rain = case("Rain in Rome?", ("get_weather", {"city": "Rome"}))
    most_alike = demonstration(1, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"}))
    cost = math.ceil(len(json.dumps(most_alike)) / 4)
    model = ScriptedModel([tool_call("get_weather", OSLO)] * 2)
    exact = make_client(model, [get_weather], examples=bank(rain, TOMORROW, max_tokens=cost))
    short = make_client(model, [get_weather], examples=bank(rain, TOMORROW, max_tokens=cost - 1))

    exact.call("Weather in Oslo?")
    short.call("Weather in Oslo?")

    fits, passed_over = model.calls_for("call")
    assert fits.messages == [*most_alike, {"role": "user", "content": "Weather in Oslo?"}]
    # The most alike does not fit; the next, shorter, does.
    assert passed_over.messages == [
        *demonstration(1, "Rain in Rome?", ("get_weather", {"city": "Rome"})),
        {"role": "user", "content": "Weather in Oslo?"},
    ]


def test_only_cases_calling_offered_tools_are_shown(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any
) -> None:
    def weather_only(messages: Any, tools: Any) -> RouteDecision:
        return RouteDecision(call=True, tools=["get_weather"], router="test")

    invoice_asked = "Bill CUS-000777 two million VND, due tomorrow."
    model = ScriptedModel([tool_call("get_weather", OSLO), tool_call("get_weather", OSLO)])
    shortlisted = make_client(
        model, [get_weather, create_invoice], router=weather_only, examples=bank(BILL, TOMORROW)
    )
    no_tool = make_client(model, [get_weather], examples=bank(BILL))

    shortlisted.call(invoice_asked)
    no_tool.call(invoice_asked)

    first, second = model.calls_for("call")
    assert [t["function"]["name"] for t in first.json["tools"]] == ["get_weather"]  # type: ignore[index]
    assert first.messages == [
        *demonstration(1, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"})),
        {"role": "user", "content": invoice_asked},
    ]
    assert second.messages == [{"role": "user", "content": invoice_asked}]


def test_every_attempt_of_the_step_gets_the_same_demonstrations(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([text("It is sunny."), tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], examples=bank(RAINING, TOMORROW, k=1))

    client.call("Weather in Oslo?")

    first, retry = model.calls_for("call")
    shown = demonstration(1, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"}))
    assert first.messages[:3] == retry.messages[:3] == shown
    # The feedback (a user turn) is not what the user asked: the choice stays the same.
    assert retry.messages[-1]["content"].startswith("ERROR: you answered with text")
    assert not has_demonstration(retry.messages[3:])


def test_never_in_the_router_probe_or_a_plain_answer(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO), text("Hello!")])
    probed = make_client(model, [get_weather], router="probe", examples=bank(TOMORROW))
    never = make_client(model, [get_weather], router="never", examples=bank(TOMORROW))

    probed.call("Weather in Oslo?")
    never.call("Weather in Oslo?")

    [route] = model.calls_for("route")
    [call] = model.calls_for("call")
    [answer] = model.calls_for("answer")
    assert not has_demonstration(route.messages)
    assert has_demonstration(call.messages)
    assert answer.messages == [{"role": "user", "content": "Weather in Oslo?"}]


def test_an_answer_decides_router_gets_them_in_its_auto_request(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], router="llm", examples=bank(TOMORROW))

    client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    assert request.tool_choice == "auto"
    assert request.messages[:3] == demonstration(
        1, "Weather in Oslo tomorrow?", ("get_weather", {"city": "Oslo"})
    )
    assert not model.calls_for("route")


def test_a_later_step_of_a_run_gets_none(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO), text("18 degrees in Oslo.")])
    client = make_client(model, [get_weather], examples=bank(TOMORROW))

    result = client.run("Weather in Oslo?", max_steps=3)

    assert result.content == "18 degrees in Oslo."
    first, later = model.calls_for("call")
    assert has_demonstration(first.messages)
    assert not has_demonstration(later.messages)
    assert later.messages[0] == {"role": "user", "content": "Weather in Oslo?"}
    # Nor in what the run hands back: the conversation is the user's and the model's.
    assert not has_demonstration(result.messages)


def test_a_value_only_a_demonstration_states_is_still_ungrounded(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    asked = "Bill the usual customer two million VND, due 2028-03-01."
    invented = {"customer_id": "CUS-000777", "amount_vnd": 2_000_000, "due_date": "2028-03-01"}
    model = ScriptedModel([tool_call("create_invoice", invented)] * 2)
    client = make_client(
        model, [create_invoice], grounding=True, max_retries=1, examples=bank(BILL)
    )

    with pytest.raises(ToolCallFailed) as raised:
        client.call(asked)

    first, retry = model.calls_for("call")
    assert "CUS-000777" in json.dumps(first.messages[:3])  # the demonstration states it
    problems = [p for attempt in raised.value.attempts for p in attempt.problems]
    assert [p.kind for p in problems] == ["ungrounded", "ungrounded"]
    assert [f.field for f in problems[0].fields] == ["customer_id"]
    assert retry.messages[-1]["content"].startswith("UNGROUNDED in create_invoice")


def test_grounded_decoding_never_offers_a_demonstrations_values(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    asked = "Bill CUS-000042 12.5 million VND, due 2028-01-31."
    right = {"customer_id": "CUS-000042", "amount_vnd": 12_500_000, "due_date": "2028-01-31"}
    model = ScriptedModel([tool_call("create_invoice", right)])
    client = make_client(model, [create_invoice], grounded_decoding="forced", examples=bank(BILL))

    client.call(asked)

    [request] = model.calls_for("call")
    assert has_demonstration(request.messages)
    properties = request.json["tools"][0]["function"]["parameters"]["properties"]  # type: ignore[index]
    assert properties["customer_id"]["enum"] == ["CUS-000042"]
    assert 2_000_000 not in properties["amount_vnd"]["enum"]
    assert properties["due_date"]["enum"] == ["2028-01-31"]


def test_a_mistral_model_gets_ids_its_template_takes(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(
        model, [get_weather], model_id="mistralai/Mistral-7B-Instruct-v0.3", examples=bank(TOMORROW)
    )

    client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    call_id = request.messages[1]["tool_calls"][0]["id"]
    assert call_id.isalnum()
    assert len(call_id) == 9
    assert request.messages[2] == {"role": "tool", "tool_call_id": call_id, "content": NOTE}


def test_written_tool_examples_go_into_the_description_of_stage_2_only(
    make_client: ClientFactory,
) -> None:
    @tool(examples=[{"city": "Hanoi"}, {"city": "Oslo", "unit": "fahrenheit"}])
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather for a city."""
        return f"18 degrees {unit} in {city}"

    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], router="probe")

    client.call("Weather in Oslo?")

    [route] = model.calls_for("route")
    [call] = model.calls_for("call")
    [entry] = call.json["tools"]  # type: ignore[index]
    assert entry["function"]["description"] == (
        "Current weather for a city.\n\n"
        "Examples of arguments:\n"
        '{"city": "Hanoi"}\n'
        '{"city": "Oslo", "unit": "fahrenheit"}'
    )
    assert "Hanoi" not in json.dumps(route.json)
    assert call.messages == [{"role": "user", "content": "Weather in Oslo?"}]  # no bank
    # The client's own schema is untouched.
    assert client.tool_schemas[0]["function"]["description"] == "Current weather for a city."


def test_off_by_default_the_request_is_the_conversation(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather])

    client.call([SYSTEM, {"role": "user", "content": "Weather in Oslo?"}])

    [request] = model.calls_for("call")
    assert request.messages == [SYSTEM, {"role": "user", "content": "Weather in Oslo?"}]
    assert request.json["tools"][0]["function"]["description"] == "Current weather for a city."  # type: ignore[index]


def test_a_case_file_path_is_read_with_the_defaults(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    file = tmp_path / "cases.jsonl"
    file.write_text("".join(json.dumps(c) + "\n" for c in (RAINING, TOMORROW, BILL)))
    model = ScriptedModel([tool_call("get_weather", OSLO)])
    client = make_client(model, [get_weather], examples=str(file))

    client.call("Weather in Oslo?")

    [request] = model.calls_for("call")
    # Both weather cases (k=3 by default; the invoice calls a tool that is not offered).
    assert [m["content"] for m in request.messages if m["role"] == "user"][-1] == (
        "Weather in Oslo?"
    )
    shown = [
        m["tool_calls"][0]["function"]["arguments"]
        for m in request.messages[:-1]
        if m.get("tool_calls")
    ]
    assert sorted(shown) == ['{"city": "Oslo"}', '{"city": "Paris"}']


def test_a_missing_case_file_is_a_typed_error_naming_it(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere.jsonl"

    with pytest.raises(ExamplesError) as raised:
        make_client(ScriptedModel([]), [get_weather], examples=missing)

    assert raised.value.path == str(missing)
    assert raised.value.line is None
    assert str(raised.value).startswith(f"{missing}: no case file here")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{not json", "not JSON"),
        ('["a", "list"]', "a case must be a JSON object"),
        ('{"messages": "Hi"}', "'expected' is required"),
        ('{"messages": "Hi", "expected": {"calls": [{"arguments": {}}]}}', "needs a 'name'"),
        ('{"messages": [], "expected": {"calls": []}}', "'messages' must be a non-empty list"),
        (
            '{"messages": "Hi", "expected": {"calls": [{"name": "f", "arguments": [1]}]}}',
            "'arguments' of 'f' must be an object",
        ),
    ],
)
def test_a_malformed_case_is_a_typed_error_naming_the_file_and_line(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path, line: str, said: str
) -> None:
    file = tmp_path / "cases.jsonl"
    file.write_text(json.dumps(TOMORROW) + "\n\n" + line + "\n")

    with pytest.raises(ExamplesError) as raised:
        make_client(ScriptedModel([]), [get_weather], examples=file)

    assert (raised.value.path, raised.value.line) == (str(file), 3)
    assert raised.value.source == f"{file}:3"
    assert str(raised.value).startswith(f"{file}:3: ")
    assert said in str(raised.value)


def test_a_malformed_case_in_a_list_names_its_position(
    make_client: ClientFactory, get_weather: Any
) -> None:
    with pytest.raises(ExamplesError) as raised:
        make_client(ScriptedModel([]), [get_weather], examples=[TOMORROW, {"messages": "Hi"}])

    assert (raised.value.path, raised.value.line, raised.value.source) == (None, 1, "examples[1]")


@pytest.mark.parametrize("given", [5, {"messages": "Hi"}, ["cases.jsonl"]])
def test_anything_else_is_refused(make_client: ClientFactory, get_weather: Any, given: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="examples must be a case file's path"):
        make_client(ScriptedModel([]), [get_weather], examples=given)
