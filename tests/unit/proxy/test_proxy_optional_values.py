"""The proxy leaves out an optional free-text value no message states, as the client does
(`optional_values=`), where the caller's tool documents the default."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk.proxy import ProxyConfigError, create_app
from toolcall_sdk.testing import ScriptedModel, tool_call

from ._post import post_through_proxy

# BFCL simple_python_280's tool, as a caller sends it.
FIND_INSTRUMENT: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "find_instrument",
        "description": "Search for a musical instrument of a type within a budget.",
        "parameters": {
            "type": "object",
            "properties": {
                "budget": {"type": "integer", "description": "Your budget for the instrument."},
                "type": {"type": "string", "description": "Type of the instrument"},
                "make": {
                    "type": "string",
                    "description": "Maker of the instrument. Default to not use if not specified.",
                },
            },
            "required": ["budget", "type"],
        },
    },
}
MESSAGES = [{"role": "user", "content": "Find an acoustic instrument within my budget of $1000."}]
ANSWER = {"budget": 1000, "type": "acoustic", "make": "Fender"}


async def arguments(model: ScriptedModel, **options: Any) -> dict[str, Any]:
    body = {
        "model": "Qwen/Qwen2.5-Coder-0.5B-Instruct",
        "messages": MESSAGES,
        "tools": [FIND_INSTRUMENT],
    }
    response = await post_through_proxy(model, body, **options)
    assert response.status_code == 200
    [call] = response.json()["choices"][0]["message"]["tool_calls"]
    result: dict[str, Any] = json.loads(call["function"]["arguments"])
    return result


async def test_an_unstated_optional_value_is_left_out_by_default() -> None:
    model = ScriptedModel([tool_call("find_instrument", ANSWER)])

    assert await arguments(model) == {"budget": 1000, "type": "acoustic"}
    assert len(model.requests) == 1


async def test_any_keeps_it() -> None:
    model = ScriptedModel([tool_call("find_instrument", ANSWER)])

    assert await arguments(model, optional_values="any") == ANSWER


def test_an_unknown_mode_is_refused_at_start() -> None:
    with pytest.raises(ProxyConfigError, match="--optional-values must be one of stated, any"):
        create_app("http://127.0.0.1:1/v1", optional_values="drop")
