"""Token counts a server reports that cannot be true do not let a run past its budget.

`max_tokens_total` adds up the counts of each answer. A count that is missing or cannot be
true (negative, fractional, zero for a prompt) is estimated from the text it should have
counted instead (about four characters a token of the messages and tools sent, and of the
answer's text and calls); a total that disagrees with its parts counts as the larger.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import pytest

from toolcall_sdk import Usage, UsageLimitExceeded
from toolcall_sdk.testing import RecordedRequest, ScriptedModel, malformed, tool_call

from ..conftest import ClientFactory

ARGUMENTS = '{"city": "Oslo"}'
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": ARGUMENTS},
}


def prompt_estimate(request: RecordedRequest) -> int:
    """The documented estimate of a prompt: its messages and tools as JSON, 4 characters a
    token, rounded up."""
    text = json.dumps(request.messages, ensure_ascii=False) + json.dumps(request.tools)
    return math.ceil(len(text) / 4)


ANSWER_ESTIMATE = math.ceil(len("get_weather" + ARGUMENTS) / 4)


def weather_everywhere(usage: tuple[int, int] | None) -> ScriptedModel:
    """A model that calls get_weather for a new city at every step, reporting `usage`."""
    cities = itertools.count(1)
    return ScriptedModel(
        lambda request: tool_call("get_weather", {"city": f"C{next(cities)}"}, usage=usage)
    )


def test_negative_prompt_tokens_cannot_carry_a_run_past_its_token_budget(
    make_client: ClientFactory, get_weather: Any
) -> None:
    budget = 3000
    honest = weather_everywhere(None)  # the scripted model's own estimate of every request
    with pytest.raises(UsageLimitExceeded):
        make_client(honest, [get_weather]).run("weather", max_steps=50, max_tokens_total=budget)
    lying = weather_everywhere((-5000, 1))
    client = make_client(lying, [get_weather])

    with pytest.raises(UsageLimitExceeded) as stopped:
        client.run("weather", max_steps=50, max_tokens_total=budget)

    error = stopped.value
    assert error.limit == "max_tokens_total"
    sent = len(lying.chat_requests)
    # About as many requests as an honest server's counts allow: not 50 (counted as 0,
    # the negative prompts let the run go on until max_steps).
    assert sent <= len(honest.chat_requests) + 1
    assert error.requests == sent < 50
    # The budget was not spent before the last request went out, and is spent now.
    last = error.steps[-1].usage.total_tokens
    assert error.usage.total_tokens - last < budget <= error.usage.total_tokens
    counted = [attempt.usage for step in error.steps for attempt in step.attempts]
    assert [u.prompt_tokens for u in counted] == [
        prompt_estimate(request) for request in lying.chat_requests
    ]
    assert {u.completion_tokens for u in counted} == {1}  # a possible count is kept


def completion(usage: dict[str, Any] | None) -> str:
    body: dict[str, Any] = {
        "id": "c",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [CALL]},
                "finish_reason": "tool_calls",
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


def stream(usage: dict[str, Any] | None) -> str:
    delta = {"role": "assistant", "tool_calls": [{"index": 0, **CALL}]}
    chunks = [{"index": 0, "delta": delta, "finish_reason": "tool_calls"}]
    events: list[dict[str, Any]] = [
        {"id": "c", "object": "chat.completion.chunk", "choices": chunks}
    ]
    if usage is not None:
        events.append({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": usage})
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"


# The reported usage, and what it counts for: "P" is the prompt's estimate, "A" the answer's.
CASES: list[tuple[dict[str, Any] | None, tuple[int | str, int | str]]] = [
    ({"prompt_tokens": 50, "completion_tokens": 4, "total_tokens": 54}, (50, 4)),
    ({"prompt_tokens": 50.0, "completion_tokens": 4}, (50, 4)),  # JSON's 50.0 is 50
    ({"prompt_tokens": -3000, "completion_tokens": 4}, ("P", 4)),
    ({"prompt_tokens": 12.5, "completion_tokens": 4}, ("P", 4)),
    ({"prompt_tokens": 0, "completion_tokens": 4}, ("P", 4)),  # no prompt is empty
    ({"prompt_tokens": 50, "completion_tokens": -1}, (50, "A")),
    ({"prompt_tokens": 50, "completion_tokens": 0}, (50, "A")),  # the answer says something
    ({"prompt_tokens": 50, "completion_tokens": 4, "total_tokens": 30}, (50, 4)),
    ({"prompt_tokens": 50, "completion_tokens": 4, "total_tokens": 90}, (86, 4)),
    ({"completion_tokens": 4, "total_tokens": 90}, (86, 4)),
    ({"prompt_tokens": 50, "total_tokens": 90}, (50, 40)),
    ({"prompt_tokens": "50", "completion_tokens": None}, ("P", "A")),
    (None, ("P", "A")),  # no usage at all
]


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize(("reported", "counted"), CASES)
def test_usage_that_cannot_be_true_is_repaired(
    make_client: ClientFactory,
    get_weather: Any,
    streamed: bool,
    reported: dict[str, Any] | None,
    counted: tuple[int | str, int | str],
) -> None:
    model = ScriptedModel([malformed(stream(reported) if streamed else completion(reported))])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?", stream=streamed)

    estimates = {"P": prompt_estimate(model.chat_requests[0]), "A": ANSWER_ESTIMATE}
    prompt, answer = (estimates[c] if isinstance(c, str) else c for c in counted)
    assert result.usage == Usage(prompt, answer)
    assert result.call.output == "18 degrees celsius in Oslo"
