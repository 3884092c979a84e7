"""History normalisation: what the server receives from a user's conversation."""

from __future__ import annotations

from typing import Any

from toolcall_sdk import ToolCallClient
from toolcall_sdk.testing import ScriptedModel, tool_call

OSLO = {"city": "Oslo", "unit": "celsius"}

HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "You are helpful."},
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Oslo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_abc",
                "type": "function",
                "function": {"name": "get_weather", "arguments": OSLO},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_abc", "content": "18 degrees"},
    {"role": "assistant", "content": "It is 18 degrees.", "tool_calls": []},
    {"role": "user", "content": "And in Hanoi?"},
]


def _sent(model_name: str, get_weather: Any) -> list[dict[str, Any]]:
    model = ScriptedModel([tool_call("get_weather", {**OSLO, "city": "Hanoi"})])
    client = ToolCallClient(
        base_url=model.base_url,
        model=model_name,
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
    )
    client.call(HISTORY)
    return model.calls_for("call")[0].messages


def test_arguments_become_strings_and_empty_tool_calls_go(get_weather: Any) -> None:
    sent = _sent("Qwen/Qwen2.5-7B-Instruct", get_weather)

    assert sent[0] == {"role": "system", "content": "You are helpful.\n\nBe brief."}
    call = sent[2]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"city": "Oslo", "unit": "celsius"}'
    assert call["id"] == "call_abc"
    assert "tool_calls" not in sent[4]
    assert HISTORY[3]["tool_calls"][0]["function"]["arguments"] == OSLO  # input untouched


def test_mistral_ids_are_nine_alphanumerics_and_stay_paired(get_weather: Any) -> None:
    sent = _sent("mistralai/Mistral-7B-Instruct-v0.3", get_weather)

    call_id = sent[2]["tool_calls"][0]["id"]
    assert len(call_id) == 9
    assert call_id.isalnum()
    assert sent[3]["tool_call_id"] == call_id
