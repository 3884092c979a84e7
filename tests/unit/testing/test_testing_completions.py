"""`ScriptedModel` as a Completions API server, and the vLLM fields of `GET /v1/models`."""

from __future__ import annotations

import httpx2
import openai
import pytest

from toolcall_sdk.testing import ScriptedModel, text, tool_call


def client_for(model: ScriptedModel) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=model.base_url, api_key="x", http_client=model.http_client(), max_retries=0
    )


def test_completions_are_answered_from_the_script() -> None:
    model = ScriptedModel([text(" blue"), text("A", finish_reason="length")])
    client = client_for(model)

    first = client.completions.create(model="scripted", prompt="The sky is", max_tokens=2)
    second = client.completions.create(
        model="scripted", prompt=None, extra_body={"prompt_embeds": "AAAA"}
    )

    assert first.object == "text_completion"
    assert first.choices[0].text == " blue"
    assert first.choices[0].finish_reason == "stop"
    assert first.usage is not None
    assert first.usage.prompt_tokens > 0
    assert second.choices[0].finish_reason == "length"
    requests = model.completion_requests
    assert [r.json for r in requests] == [
        {"model": "scripted", "prompt": "The sky is", "max_tokens": 2},
        {"model": "scripted", "prompt": None, "prompt_embeds": "AAAA"},
    ]
    assert all(r.is_completion and not r.is_chat for r in requests)
    assert model.chat_requests == []
    assert model.remaining == 0


def test_a_tool_call_reply_to_a_completion_is_a_script_error() -> None:
    model = ScriptedModel([tool_call("f", {})])

    with pytest.raises(openai.InternalServerError):
        client_for(model).completions.create(model="scripted", prompt="x")

    assert "script text() for completions" in str(model.errors[0])


def test_streamed_completions_are_refused() -> None:
    model = ScriptedModel([text("x")])

    with pytest.raises(openai.BadRequestError, match="does not stream"):
        client_for(model).completions.create(model="scripted", prompt="x", stream=True)
    assert model.remaining == 1


def test_models_lists_max_model_len_and_root_when_given() -> None:
    plain = httpx2.Client(transport=ScriptedModel([]).transport())
    full = httpx2.Client(
        transport=ScriptedModel([], model="m", max_model_len=2048, root="/models/m").transport()
    )

    entry = plain.get("http://scripted.test/v1/models").json()["data"][0]
    full_entry = full.get("http://scripted.test/v1/models").json()["data"][0]

    assert "max_model_len" not in entry
    assert "root" not in entry
    assert full_entry["id"] == "m"
    assert full_entry["max_model_len"] == 2048
    assert full_entry["root"] == "/models/m"


def test_the_local_server_answers_completions_too() -> None:
    model = ScriptedModel([text("hi")])
    with model.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        answer = client.completions.create(model="scripted", prompt="say hi")
    assert answer.choices[0].text == "hi"
    assert model.completion_requests[0].path == "/v1/completions"
