"""The agent loop: `run(messages, max_steps=N)` steps until a text answer, within its bounds."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from toolcall_sdk import (
    LoopDetected,
    MaxStepsExceeded,
    RunStopped,
    ServerUnavailableError,
    ToolCallError,
    Usage,
    UsageLimitExceeded,
    tool,
)
from toolcall_sdk.errors import InvalidArgumentError
from toolcall_sdk.testing import RecordedRequest, ScriptedModel, http_error, text, tool_call

from ..conftest import ClientFactory, Ledger


def verdicts(*answers: bool) -> Any:
    """A `route_answer` giving the router's answers in order, one per routing request."""
    queue = list(answers)

    def answer(request: RecordedRequest) -> bool:
        return queue.pop(0)

    return answer


@pytest.fixture
def find_customer(ledger: Ledger) -> Any:
    @tool
    def find_customer(name: str) -> str:
        """Find a customer's id by name."""
        ledger.calls.append(("find_customer", {"name": name}))
        return "CUS-000042"

    return find_customer


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_multi_step_run_feeds_results_back_until_a_text_answer(
    make_client: ClientFactory,
    find_customer: Any,
    create_invoice: Any,
    ledger: Ledger,
    stream: bool,
) -> None:
    model = ScriptedModel(
        [
            tool_call("find_customer", {"name": "Acme"}, usage=(50, 10)),
            tool_call(
                "create_invoice",
                {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"},
                usage=(80, 20),
            ),
            text("Invoice INV-1 is created for Acme.", usage=(90, 9)),
        ],
        route_answer=verdicts(True, True, False),
    )
    client = make_client(model, [find_customer, create_invoice], router="probe")

    result = client.run("Invoice Acme 1500000 VND, due 2030-12-31", max_steps=5, stream=stream)

    assert result.content == "Invoice INV-1 is created for Acme."
    assert (ledger.count("find_customer"), ledger.count("create_invoice")) == (1, 1)
    assert [(s.number, s.called) for s in result.steps] == [(1, True), (2, True), (3, False)]
    assert [c.name for c in result.steps[0].calls] == ["find_customer"]
    assert result.steps[1].calls[0].output == {"invoice_id": "INV-1", "customer_id": "CUS-000042"}
    assert result.steps[2].content == "Invoice INV-1 is created for Acme."
    assert [c.name for c in result.calls] == ["find_customer", "create_invoice"]
    assert result.called is True
    assert [r.stage for r in model.chat_requests] == [
        "route",
        "call",
        "route",
        "call",
        "route",
        "answer",
    ]
    second_call = model.calls_for("call")[1]
    assert second_call.messages == [
        {"role": "user", "content": "Invoice Acme 1500000 VND, due 2030-12-31"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "find_customer", "arguments": '{"name": "Acme"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "CUS-000042"},
    ]
    # The first step forces its call; the next one lets the model answer.
    assert [r.tool_choice for r in model.calls_for("call")] == ["required", "auto"]
    answer = model.calls_for("answer")[0]
    # A plain answer is asked for without the tools: with them in the prompt a small model
    # writes a call as its answer.
    assert (answer.tools, answer.tool_choice) == (None, None)
    assert answer.messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": '{"invoice_id": "INV-1", "customer_id": "CUS-000042"}',
    }
    assert result.messages == [*answer.messages, {"role": "assistant", "content": result.content}]
    # Every request counts: the scripted 220 + 39 and the three routing requests.
    assert result.usage == sum((s.usage for s in result.steps), Usage())
    assert result.usage.prompt_tokens > 220
    assert result.usage.completion_tokens > 39
    assert [len(s.attempts) for s in result.steps] == [1, 1, 0]
    assert len(result.attempts) == 2


def test_one_step_is_the_default_and_returns_after_the_calls_ran(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?")

    assert [s.number for s in result.steps] == [1]
    assert result.call.output == "18 degrees celsius in Oslo"
    assert result.content is None
    assert len(model.chat_requests) == 1
    assert ledger.count("get_weather") == 1


def test_a_step_retrying_invalid_arguments_is_still_one_step(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call(
                "create_invoice",
                {"customer_id": "CUS-42", "amount_vnd": 10, "due_date": "2030-12-31"},
            ),
            tool_call(
                "create_invoice",
                {"customer_id": "CUS-000042", "amount_vnd": 10, "due_date": "2030-12-31"},
            ),
            text("Done."),
        ],
        route_answer=verdicts(True, False),
    )
    client = make_client(model, [create_invoice], router="probe")

    result = client.run("invoice", max_steps=3)

    assert [len(s.attempts) for s in result.steps] == [2, 0]
    assert result.steps[0].attempts[0].error_kinds == ["invalid_arguments"]
    assert ledger.count("create_invoice") == 1
    assert result.content == "Done."


def test_the_loop_guard_gives_feedback_then_stops_a_repeated_call(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": "Oslo"}))
    # Every step forced: a later step that may answer would be told to answer instead.
    client = make_client(model, [get_weather], force="every_step")

    with pytest.raises(LoopDetected) as stopped:
        client.run("Weather in Oslo?", max_steps=10)

    assert ledger.count("get_weather") == 2  # steps 1 and 2 ran; step 3 got feedback
    error = stopped.value
    assert (error.tool_name, error.count) == ("get_weather", 4)
    assert error.arguments == '{"city":"Oslo","unit":"celsius"}'
    assert [s.number for s in error.steps] == [1, 2, 3]
    third = error.steps[2].calls[0]
    assert (third.executed, third.skipped) == (False, "repeated")
    assert len(model.calls_for("call")) == 4
    feedback = model.calls_for("call")[3].messages[-1]
    assert feedback["role"] == "tool"
    assert feedback["content"] == (
        'REPEATED_CALL: you already called get_weather with these arguments {"city":"Oslo",'
        '"unit":"celsius"} 2 time(s); it was not run again. The result was: 18 degrees '
        "celsius in Oslo\nDo not call get_weather with the same arguments again: answer "
        "with what you have, or call a different tool."
    )
    assert isinstance(error, RunStopped)
    assert "same arguments" in str(error)


def test_the_loop_guard_lets_the_model_answer_after_its_feedback(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    repeat = tool_call("get_weather", {"city": "Oslo"})
    model = ScriptedModel(
        [repeat, repeat, text("It is 18 degrees in Oslo.")],
        route_answer=verdicts(True, True, False),
    )
    client = make_client(model, [get_weather], router="probe", max_retries=0, force="every_step")

    result = client.run("Weather in Oslo?", max_steps=5, loop_guard=2)

    assert ledger.count("get_weather") == 1
    assert result.steps[1].calls[0].skipped == "repeated"
    assert result.content == "It is 18 degrees in Oslo."
    assert [c.name for c in result.calls] == ["get_weather"]  # only calls that ran


def test_identical_calls_in_one_answer_run_once_and_count_once(
    make_client: ClientFactory,
) -> None:
    rolled: list[int] = []

    @tool
    def roll_die(sides: int) -> int:
        """Roll a die."""
        rolled.append(sides)
        return 4

    from toolcall_sdk.testing import parallel

    three = parallel(*(tool_call("roll_die", {"sides": 6}) for _ in range(3)))
    model = ScriptedModel([three, text("4, 4 and 4.")], route_answer=verdicts(True, False))
    client = make_client(model, [roll_die], router="probe")

    result = client.run("roll three dice", max_steps=3, loop_guard=2)

    # Exactly once: equal calls of one answer run once; the guard counts the answer once.
    assert rolled == [6]
    assert [c.reused_from for c in result.steps[0].calls] == [None, "call_1", "call_1"]
    assert result.content == "4, 4 and 4."


def test_max_steps_stops_a_model_that_never_stops_calling(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    cities = itertools.count(1)
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": f"C{next(cities)}"}))
    client = make_client(model, [get_weather])

    with pytest.raises(MaxStepsExceeded) as stopped:
        client.run("weather everywhere", max_steps=3)

    assert ledger.count("get_weather") == 3
    assert len(model.calls_for("call")) == 3
    assert stopped.value.max_steps == 3
    assert [s.calls[0].output for s in stopped.value.steps] == [
        "18 degrees celsius in C1",
        "18 degrees celsius in C2",
        "18 degrees celsius in C3",
    ]
    assert "max_steps=3" in str(stopped.value)


def test_token_limit_stops_before_the_request_that_would_pass_it(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    cities = itertools.count(1)
    model = ScriptedModel(
        lambda request: tool_call("get_weather", {"city": f"C{next(cities)}"}, usage=(100, 20))
    )
    client = make_client(model, [get_weather], max_tokens=50)

    # 0 + 50 and 120 + 50 fit in 280; 240 + 50 would not: the third request is never sent.
    with pytest.raises(UsageLimitExceeded) as stopped:
        client.run("weather everywhere", max_steps=10, max_tokens_total=280)

    assert len(model.chat_requests) == 2
    assert ledger.count("get_weather") == 2
    error = stopped.value
    assert (error.limit, error.value, error.requests) == ("max_tokens_total", 280, 2)
    assert error.usage == Usage(200, 40)
    assert len(error.steps) == 2
    assert "240 tokens plus up to 50" in str(error)


def test_token_limit_without_max_tokens_stops_once_it_is_reached(
    make_client: ClientFactory, get_weather: Any
) -> None:
    cities = itertools.count(1)
    model = ScriptedModel(
        lambda request: tool_call("get_weather", {"city": f"C{next(cities)}"}, usage=(100, 20))
    )
    client = make_client(model, [get_weather])

    with pytest.raises(UsageLimitExceeded):
        client.run("weather everywhere", max_steps=10, max_tokens_total=200)

    assert len(model.chat_requests) == 2  # 0 and 120 are under 200; 240 is not


def test_request_limit_counts_routing_requests(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), tool_call("get_weather", {"city": "Hue"})]
    )
    client = make_client(model, [get_weather], router="probe")

    with pytest.raises(UsageLimitExceeded) as stopped:
        client.run("weather", max_steps=5, max_requests=3)

    assert [r.stage for r in model.chat_requests] == ["route", "call", "route"]
    assert stopped.value.limit == "max_requests"
    assert ledger.count("get_weather") == 1


def test_a_limit_also_bounds_a_single_step_run(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [get_weather], router="probe")

    with pytest.raises(UsageLimitExceeded):
        client.run("weather", max_requests=1)

    assert [r.stage for r in model.chat_requests] == ["route"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_steps": 0}, r"max_steps must be >= 1 \(got 0\)"),
        ({"max_requests": 0}, r"max_requests must be >= 1 \(got 0\)"),
        ({"max_tokens_total": 2.5}, r"max_tokens_total must be an int \(got 2.5\)"),
        ({"loop_guard": 1}, r"loop_guard must be >= 2 \(got 1\)"),
    ],
)
def test_bad_bounds_are_refused_before_any_request(
    make_client: ClientFactory, get_weather: Any, options: dict[str, Any], message: str
) -> None:
    model = ScriptedModel([])
    client = make_client(model, [get_weather])

    with pytest.raises(InvalidArgumentError, match=message):
        client.run("weather", **options)

    assert model.chat_requests == []


def test_a_misspelt_run_option_is_a_type_error(
    make_client: ClientFactory, get_weather: Any
) -> None:
    client = make_client(ScriptedModel([]), [get_weather])

    with pytest.raises(TypeError, match="max_step"):
        client.run("weather", max_step=3)  # type: ignore[call-arg]


def test_every_bound_is_a_tool_call_error() -> None:
    for error in (MaxStepsExceeded, UsageLimitExceeded, LoopDetected):
        assert issubclass(error, RunStopped)
        assert issubclass(error, ToolCallError)


def test_a_transport_error_in_a_later_step_says_what_ran_in_the_run(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), *[http_error(503)] * 4],
    )
    client = make_client(model, [get_weather])

    with pytest.raises(ServerUnavailableError) as raised:
        client.run("weather", max_steps=3)

    assert ledger.count("get_weather") == 1
    assert [c.output for c in raised.value.executed] == ["18 degrees celsius in Oslo"]
    assert len(raised.value.attempts) == 1
