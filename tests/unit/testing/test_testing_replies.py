"""Reply builders, request records and stream splitting of `toolcall_sdk.testing`."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_sdk.testing import (
    RecordedRequest,
    ScriptedModel,
    choices,
    delay,
    http_error,
    parallel,
    text,
    tool_call,
)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    chunk_size=st.integers(min_value=1, max_value=40),
    content=st.text(max_size=30),
    arguments=st.lists(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4), max_size=3),
)
def test_any_chunk_size_streams_back_the_same_message(
    chunk_size: int, content: str, arguments: list[dict[str, Any]]
) -> None:
    replies = [text(content)] + [tool_call(f"tool_{i}", args) for i, args in enumerate(arguments)]
    model = ScriptedModel([parallel(*replies)], chunk_size=chunk_size)
    client = openai.OpenAI(
        base_url=model.base_url, api_key="x", http_client=model.http_client(), max_retries=0
    )

    with client.chat.completions.stream(model="scripted", messages=[]) as stream:
        final = stream.get_final_completion()

    message = final.choices[0].message
    assert (message.content or "") == content
    assert [
        (call.function.name, json.loads(call.function.arguments))
        for call in message.tool_calls or []
        if call.type == "function"
    ] == [(f"tool_{i}", args) for i, args in enumerate(arguments)]


@pytest.mark.parametrize(
    ("build", "error"),
    [
        (lambda: http_error(200), ValueError),
        (lambda: http_error(302), ValueError),
        (lambda: delay(-1, text("x")), ValueError),
        (lambda: delay(float("inf"), text("x")), ValueError),
        (lambda: parallel(), ValueError),
        (lambda: parallel(tool_call("f", {}), http_error(500)), TypeError),
        (lambda: ScriptedModel([text("ok"), "not a reply"]), TypeError),  # type: ignore[list-item]
        (lambda: ScriptedModel([], chunk_size=0), ValueError),
    ],
)
def test_invalid_replies_fail_when_the_script_is_written(
    build: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        build()


def test_script_callable_returning_a_non_reply_is_a_recorded_error() -> None:
    model = ScriptedModel(lambda request: "oops")  # type: ignore[arg-type,return-value]

    with model.http_client() as http:
        response = http.post("/chat/completions", json={"messages": []})

    assert response.status_code == 500
    assert response.json()["type"] == "ScriptError"
    assert "not a Reply" in model.errors[0].args[0]


def test_recorded_request_properties_default_when_fields_are_absent() -> None:
    request = RecordedRequest.from_parts(
        "post", "/v1/chat/completions?debug=1", {"X-Toolcall-Stage": "answer"}, b"not json"
    )

    assert (request.method, request.path, request.is_chat) == ("POST", "/v1/chat/completions", True)
    assert request.headers == {"x-toolcall-stage": "answer"}
    assert request.stage == "answer"
    assert request.json is None
    assert request.body == b"not json"
    assert request.messages == []
    assert request.tools is None
    assert request.tool_choice is None
    assert request.temperature is None
    assert request.stream is False


def test_http_error_with_a_raw_body_and_custom_content_type() -> None:
    model = ScriptedModel(
        [
            http_error(503, "<html>busy</html>", headers={"Content-Type": "text/html"}),
            http_error(418, {"detail": "teapot"}),
        ]
    )

    with model.http_client() as http:
        html = http.post("/chat/completions", json={})
        teapot = http.post("/chat/completions", json={})

    assert (html.status_code, html.headers["content-type"], html.text) == (
        503,
        "text/html",
        "<html>busy</html>",
    )
    assert (teapot.status_code, teapot.json()) == (418, {"detail": "teapot"})
    assert teapot.headers["content-type"] == "application/json"


def test_unknown_paths_are_recorded_and_answered_404_without_consuming_the_script() -> None:
    model = ScriptedModel([text("kept")])

    with model.http_client() as http:
        response = http.post("/embeddings", json={"input": "hi"})

    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}
    assert model.remaining == 1
    assert model.chat_requests == []
    assert model.requests[0].json == {"input": "hi"}


def test_repr_summarises_the_model() -> None:
    assert repr(ScriptedModel([text("a")], model="m")) == (
        "ScriptedModel(model='m', requests=0, remaining=1, errors=0)"
    )


@pytest.mark.parametrize("stream", [False, True])
def test_choices_answer_with_one_choice_each_as_openai_reads_them(stream: bool) -> None:
    model = ScriptedModel(
        [
            choices(
                tool_call("get_weather", {"city": "Oslo"}),
                text("No idea.", usage=(10, 3)),
            )
        ],
        chunk_size=4,
    )
    client = openai.OpenAI(
        base_url=model.base_url, api_key="x", http_client=model.http_client(), max_retries=0
    )

    completion: Any
    if stream:
        with client.chat.completions.stream(model="scripted", messages=[], n=2) as events:
            completion = events.get_final_completion()
    else:
        completion = client.chat.completions.create(model="scripted", messages=[], n=2)

    first, second = completion.choices
    assert (first.index, second.index) == (0, 1)
    assert first.finish_reason == "tool_calls"
    assert first.message.tool_calls is not None
    assert first.message.tool_calls[0].id == "call_1"
    assert second.message.content == "No idea."
    assert second.finish_reason == "stop"
    if not stream:  # a stream reports usage only when asked
        assert completion.usage is not None
        # The prompt once (the first choice's estimate), every choice's completion tokens.
        assert completion.usage.completion_tokens > 3


def test_choices_takes_assistant_messages_only() -> None:
    with pytest.raises(ValueError, match="at least one"):
        choices()
    with pytest.raises(TypeError, match="assistant message"):
        choices(text("a"), http_error(500))
