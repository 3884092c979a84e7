"""The proxy completes an answer that gives fewer calls than asked, as the client does
(`listed_values=`): the caller gets every call in one assistant message."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from toolcall_sdk.proxy import ProxyConfigError, create_app
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ._post import post_through_proxy

FACTORIAL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "math_factorial",
        "description": "The factorial of a number.",
        "parameters": {
            "type": "object",
            "properties": {"number": {"type": "integer"}},
            "required": ["number"],
        },
    },
}
MESSAGES = [{"role": "user", "content": "What is the factorial of 5, 10 and 15?"}]
CONTINUED = (
    ' {"number": 10}}\n```\n```json\n{"name": "math_factorial", "arguments": {"number": 15}}\n```'
)


async def post(model: ScriptedModel, **options: Any) -> httpx2.Response:
    body = {
        "model": "Qwen/Qwen2.5-Coder-0.5B-Instruct",
        "messages": MESSAGES,
        "tools": [FACTORIAL],
    }
    return await post_through_proxy(model, body, **options)


async def test_continue_gives_the_caller_every_call_in_one_answer() -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), text(CONTINUED)])

    response = await post(model, listed_values="continue")

    assert response.status_code == 200
    message = response.json()["choices"][0]["message"]
    numbers = [json.loads(c["function"]["arguments"])["number"] for c in message["tool_calls"]]
    assert numbers == [5, 10, 15]
    _, continued = model.calls_for("call")
    assert continued.json is not None
    assert continued.json["tool_choice"] == "none"
    assert continued.json["continue_final_message"] is True


async def test_continue_listed_by_default_as_in_the_client_and_the_cli() -> None:
    # The request lists 10 and 15 beside the 5 the answer used: continued, as with the
    # client's default and `toolcall-sdk proxy`'s.
    model = ScriptedModel([tool_call("math_factorial", {"number": 5}), text(CONTINUED)])

    response = await post(model)

    message = response.json()["choices"][0]["message"]
    numbers = [json.loads(c["function"]["arguments"])["number"] for c in message["tool_calls"]]
    assert numbers == [5, 10, 15]
    assert len(model.calls_for("call")) == 2


async def test_off_leaves_the_answer_as_it_came() -> None:
    model = ScriptedModel([tool_call("math_factorial", {"number": 5})])

    response = await post(model, listed_values="off")

    assert len(response.json()["choices"][0]["message"]["tool_calls"]) == 1
    assert len(model.calls_for("call")) == 1


def test_an_unknown_mode_is_refused_at_start() -> None:
    with pytest.raises(ProxyConfigError, match="--listed-values must be one of off, ask"):
        create_app("http://127.0.0.1:1/v1", listed_values="all")
