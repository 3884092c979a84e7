"""`toolcall_sdk.testing.ScriptedModel` driven by the real `openai` client.

Every behaviour is checked against both backends (the in-process `MockTransport` and the
local HTTP server), since they must behave the same.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, ExitStack
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall

from toolcall_sdk.testing import (
    RecordedRequest,
    Reply,
    ScriptedModel,
    ScriptError,
    cut,
    delay,
    disconnect,
    http_error,
    malformed,
    parallel,
    text,
    tool_call,
    tool_calls,
)

BACKENDS = ["in_process", "local_server"]
MESSAGES: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
WEATHER_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}

Connect = Callable[..., openai.OpenAI]
AsyncConnect = Callable[..., openai.AsyncOpenAI]


@pytest.fixture(params=BACKENDS)
def connect(request: pytest.FixtureRequest) -> Iterator[Connect]:
    """Returns `connect(model, **client_options)`, an `openai.OpenAI` on either backend."""
    with ExitStack() as stack:

        def make(model: ScriptedModel, **options: Any) -> openai.OpenAI:
            if request.param == "in_process":
                http_client = stack.enter_context(model.http_client())
                base_url = model.base_url
            else:
                base_url = stack.enter_context(model.serve())
                http_client = None
            client = openai.OpenAI(
                base_url=base_url, api_key="x", http_client=http_client, max_retries=0, **options
            )
            stack.callback(client.close)
            return client

        yield make


@pytest.fixture(params=BACKENDS)
async def aconnect(request: pytest.FixtureRequest) -> AsyncIterator[AsyncConnect]:
    """Returns `aconnect(model)`, an `openai.AsyncOpenAI` on either backend."""
    async with AsyncExitStack() as stack:

        def make(model: ScriptedModel, **options: Any) -> openai.AsyncOpenAI:
            if request.param == "in_process":
                http_client = model.async_http_client()
                base_url = model.base_url
            else:
                base_url = stack.enter_context(model.serve())
                http_client = None
            client = openai.AsyncOpenAI(
                base_url=base_url, api_key="x", http_client=http_client, max_retries=0, **options
            )
            stack.push_async_callback(client.close)
            return client

        yield make


def create(client: openai.OpenAI, **overrides: Any) -> Any:
    arguments: dict[str, Any] = {"model": "scripted", "messages": MESSAGES}
    return client.chat.completions.create(**(arguments | overrides))


def function_calls(message: Any) -> list[ChatCompletionMessageFunctionToolCall]:
    calls = message.tool_calls or []
    assert all(isinstance(call, ChatCompletionMessageFunctionToolCall) for call in calls)
    return list(calls)


# --- successful replies -------------------------------------------------------------------


def test_tool_call_is_parsed_and_the_request_recorded(connect: Connect) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Paris"})])
    client = connect(model)

    completion = create(
        client,
        tools=[WEATHER_TOOL],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
        temperature=0.0,
        extra_headers={"x-toolcall-stage": "call"},
    )

    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    [call] = function_calls(choice.message)
    assert (call.id, call.type, call.function.name) == ("call_1", "function", "get_weather")
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert completion.model == "scripted"

    [request] = model.requests
    assert (request.method, request.path, request.stage) == ("POST", "/v1/chat/completions", "call")
    assert request.messages == MESSAGES
    assert request.tools == [WEATHER_TOOL]
    assert request.tool_choice == {"type": "function", "function": {"name": "get_weather"}}
    assert request.temperature == 0.0
    assert request.headers["authorization"] == "Bearer x"
    assert request.json is not None
    assert request.json["model"] == "scripted"
    assert model.remaining == 0
    assert model.errors == []


def test_parallel_tool_calls_arrive_in_one_message_with_default_and_explicit_ids(
    connect: Connect,
) -> None:
    model = ScriptedModel(
        [
            parallel(
                text("Checking both. "),
                tool_call("get_weather", {"city": "Paris"}),
                tool_call("get_weather", {"city": "Oslo"}, id="call_custom"),
            ),
            tool_calls([tool_call("get_time", {}), tool_call("get_date", {})]),
        ]
    )
    client = connect(model)

    first = create(client).choices[0]
    second = create(client).choices[0]

    assert first.finish_reason == "tool_calls"
    assert first.message.content == "Checking both. "
    assert [(c.id, json.loads(c.function.arguments)) for c in function_calls(first.message)] == [
        ("call_1", {"city": "Paris"}),
        ("call_custom", {"city": "Oslo"}),
    ]
    # Default ids count the tool calls served, so they stay unique across replies.
    assert [(c.id, c.function.name) for c in function_calls(second.message)] == [
        ("call_3", "get_time"),
        ("call_4", "get_date"),
    ]


def test_raw_string_arguments_are_sent_unchanged(connect: Connect) -> None:
    model = ScriptedModel([tool_call("get_weather", '{"city": "Par')])

    [call] = function_calls(create(connect(model)).choices[0].message)

    assert call.function.arguments == '{"city": "Par'


def test_text_reply_carries_finish_reason_and_usage_overrides(connect: Connect) -> None:
    model = ScriptedModel(
        [
            text("It is sun", finish_reason="length", usage=(12, 3)),
            tool_call("get_weather", {"city": "Paris"}, finish_reason="stop"),
            text("Sunny."),
        ]
    )
    client = connect(model)

    truncated = create(client)
    forced = create(client)
    default = create(client)

    assert truncated.choices[0].message.content == "It is sun"
    assert truncated.choices[0].finish_reason == "length"
    assert truncated.usage is not None
    assert (truncated.usage.prompt_tokens, truncated.usage.completion_tokens) == (12, 3)
    assert truncated.usage.total_tokens == 15
    assert forced.choices[0].finish_reason == "stop"
    # Unscripted usage is a rough, deterministic estimate, never missing.
    assert default.usage is not None
    assert default.usage.prompt_tokens > 0
    assert default.usage.completion_tokens > 0


def test_callable_script_sees_each_request(connect: Connect) -> None:
    def script(request: RecordedRequest) -> Reply:
        if request.messages[-1]["role"] == "tool":
            return text(f"Done after {len(request.messages)} messages.")
        return tool_call("get_weather", {"city": request.messages[-1]["content"]})

    model = ScriptedModel(script)
    client = connect(model)

    first = create(client, messages=[{"role": "user", "content": "Rome"}])
    [call] = function_calls(first.choices[0].message)
    second = create(
        client,
        messages=[
            {"role": "user", "content": "Rome"},
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
        ],
    )

    assert json.loads(call.function.arguments) == {"city": "Rome"}
    assert second.choices[0].message.content == "Done after 3 messages."
    assert model.remaining is None
    assert model.chat_requests[1].messages[1]["tool_calls"][0]["id"] == "call_1"


def test_a_named_model_answers_404_for_other_model_names(connect: Connect) -> None:
    model = ScriptedModel([text("hello")], model="served-name")
    client = connect(model)

    with pytest.raises(openai.NotFoundError) as excinfo:
        create(client, model="other-name")

    assert excinfo.value.status_code == 404
    assert "The model `other-name` does not exist." in str(excinfo.value)
    assert model.remaining == 1  # the refused request did not use up the script
    assert create(client, model="served-name").model == "served-name"


def test_without_a_model_name_any_name_is_served_and_echoed(connect: Connect) -> None:
    model = ScriptedModel([text("hello")])

    completion = create(connect(model), model="whatever-7b")

    assert completion.model == "whatever-7b"
    assert [entry.id for entry in connect(model).models.list()] == ["scripted"]


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/chat/completions"), ("GET", "/models"), ("POST", "/v2/chat/completions")],
)
def test_paths_without_v1_are_404_like_vllm(method: str, path: str) -> None:
    model = ScriptedModel([text("hello")])

    with model.serve() as base_url, httpx2.Client(base_url=base_url.removesuffix("/v1")) as http:
        response = http.request(method, path, json={"model": "scripted", "messages": MESSAGES})

    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}
    assert model.remaining == 1


def test_a_client_without_v1_in_its_base_url_gets_404(get_weather: Any) -> None:
    from toolcall_sdk import RequestRejectedError, ToolCallClient

    model = ScriptedModel([tool_call("get_weather", {"city": "Paris"})])
    client = ToolCallClient(
        base_url="http://scripted.test",
        model="m",
        tools=[get_weather],
        router="always",
        http_client=model.http_client(),
    )

    with pytest.raises(RequestRejectedError) as excinfo:
        client.call("Weather in Paris?")

    assert excinfo.value.status_code == 404
    assert [(r.method, r.path) for r in model.requests] == [("POST", "/chat/completions")]


def test_models_endpoint_lists_the_model_name(connect: Connect) -> None:
    model = ScriptedModel([], model="demo-model")

    assert [entry.id for entry in connect(model).models.list()] == ["demo-model"]
    assert model.chat_requests == []
    assert [(r.method, r.path) for r in model.requests] == [("GET", "/v1/models")]


# --- streaming ----------------------------------------------------------------------------


@pytest.mark.parametrize("chunk_size", [1, 3, 4, 1000])
def test_stream_reassembles_to_the_scripted_message(connect: Connect, chunk_size: int) -> None:
    arguments = {"city": "São Paulo", "days": 3, "units": ["C", "F"]}
    model = ScriptedModel(
        [
            parallel(
                text("Looking it up."), tool_call("get_weather", arguments), tool_call("noop", {})
            )
        ],
        chunk_size=chunk_size,
    )

    chunks = list(create(connect(model), stream=True))

    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for delta in chunk.choices[0].delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            assert delta.function is not None
            if delta.id is not None:
                # The first delta of a call names it, as vLLM and OpenAI do.
                assert (delta.type, delta.function.arguments) == ("function", "")
                call["id"], call["name"] = delta.id, delta.function.name or ""
            else:
                assert len(delta.function.arguments or "") <= chunk_size
                call["arguments"] += delta.function.arguments or ""
    assert content == "Looking it up."
    assert calls == {
        0: {
            "id": "call_1",
            "name": "get_weather",
            "arguments": json.dumps(arguments, ensure_ascii=False),
        },
        1: {"id": "call_2", "name": "noop", "arguments": "{}"},
    }
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks][-2:] == [None, "tool_calls"]
    assert all(c.usage is None for c in chunks)
    assert model.chat_requests[0].stream is True


def test_stream_helper_accumulates_the_final_completion(connect: Connect) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Paris"}), text("Sunny and 21 °C.")], chunk_size=2
    )
    client = connect(model)

    with client.chat.completions.stream(model="scripted", messages=MESSAGES) as stream:
        called = stream.get_final_completion()
    with client.chat.completions.stream(model="scripted", messages=MESSAGES) as stream:
        answered = stream.get_final_completion()

    [call] = function_calls(called.choices[0].message)
    assert (call.id, call.function.name, call.function.arguments) == (
        "call_1",
        "get_weather",
        '{"city": "Paris"}',
    )
    assert answered.choices[0].message.content == "Sunny and 21 °C."
    assert answered.choices[0].finish_reason == "stop"


def test_stream_ends_with_a_usage_chunk_when_asked(connect: Connect) -> None:
    model = ScriptedModel([text("Hello there", usage=(7, 2))])

    chunks = list(create(connect(model), stream=True, stream_options={"include_usage": True}))

    *body, last = chunks
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (7, 2)
    assert all(chunk.usage is None for chunk in body)
    assert body[-1].choices[0].finish_reason == "stop"


# --- failures -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "error_type", "message", "type_name"),
    [
        (500, openai.InternalServerError, "Internal Server Error", "InternalServerError"),
        (429, openai.RateLimitError, "Too Many Requests", "TooManyRequestsError"),
        (400, openai.BadRequestError, "Bad Request", "BadRequestError"),
    ],
)
def test_http_errors_surface_as_the_matching_openai_exception(
    connect: Connect,
    status: int,
    error_type: type[openai.APIStatusError],
    message: str,
    type_name: str,
) -> None:
    model = ScriptedModel([http_error(status, headers={"Retry-After": "2"})])

    with pytest.raises(error_type) as caught:
        create(connect(model))

    assert caught.value.status_code == status
    assert caught.value.response.headers["retry-after"] == "2"
    # The default body is vLLM's error shape.
    assert caught.value.body == {
        "object": "error",
        "message": message,
        "type": type_name,
        "code": status,
    }


def test_vllm_style_error_body_can_be_scripted(connect: Connect) -> None:
    body = {
        "object": "error",
        "message": "'get_weather' is not a valid tool",
        "type": "BadRequestError",
        "code": 400,
    }
    model = ScriptedModel([http_error(400, body), http_error(502, "upstream down")])
    client = connect(model)

    with pytest.raises(openai.BadRequestError, match="'get_weather' is not a valid tool") as caught:
        create(client)
    with pytest.raises(openai.InternalServerError) as plain:
        create(client)

    assert caught.value.body == body
    assert plain.value.body == "upstream down"


def test_disconnect_is_a_connection_error(connect: Connect) -> None:
    model = ScriptedModel([disconnect(), text("Back again.")])
    client = connect(model)

    with pytest.raises(openai.APIConnectionError):
        create(client)
    # The model keeps serving after a dropped connection.
    assert create(client).choices[0].message.content == "Back again."
    assert len(model.chat_requests) == 2


def test_cut_body_is_a_connection_error(connect: Connect) -> None:
    model = ScriptedModel([cut(tool_call("get_weather", {"city": "Paris"}), after=40), text("ok")])
    client = connect(model)

    with pytest.raises(openai.APIConnectionError):
        create(client)
    # The model keeps serving after a dropped connection.
    assert create(client).choices[0].message.content == "ok"


def test_cut_stream_stops_mid_event(connect: Connect) -> None:
    model = ScriptedModel([cut(tool_call("get_weather", {"city": "Paris"}), after=300)])
    received = bytearray()

    def read_all() -> None:
        for chunk in create(connect(model), stream=True).response.iter_bytes():
            received.extend(chunk)

    with pytest.raises(httpx2.TransportError):  # openai's stream lets httpx's error through
        read_all()
    assert len(received) == 300
    assert b"[DONE]" not in received


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cut_longer_than_the_body_sends_it_whole(backend: str) -> None:
    model = ScriptedModel([cut(text("whole"), after=10**6)])
    with ExitStack() as stack:
        if backend == "in_process":
            http = stack.enter_context(model.http_client())
        else:
            http = stack.enter_context(httpx2.Client(base_url=stack.enter_context(model.serve())))
        answer = http.post("/chat/completions", json={"messages": []})
    assert answer.json()["choices"][0]["message"]["content"] == "whole"


def test_cut_needs_a_byte_count() -> None:
    with pytest.raises(ValueError, match="after >= 0"):
        cut(text("x"), after=-1)


def test_malformed_body_is_sent_exactly(connect: Connect) -> None:
    model = ScriptedModel([malformed(b'{"choices": [', status=200)])

    # openai 3.57 lets the JSON decoding error through (it is not an openai.APIError).
    with pytest.raises(ValueError, match="Expecting"):
        create(connect(model))


def test_malformed_stream_reaches_the_client_as_is(connect: Connect) -> None:
    model = ScriptedModel([malformed("data: {oops\n\n")])

    with pytest.raises(ValueError, match="Expecting"):
        list(create(connect(model), stream=True))


def test_exhausted_script_answers_500_and_records_the_error(connect: Connect) -> None:
    model = ScriptedModel([text("Only one.")])
    client = connect(model)
    create(client)

    with pytest.raises(openai.InternalServerError, match="script exhausted after 1 request;"):
        create(client, extra_headers={"x-toolcall-stage": "answer"})

    [error] = model.errors
    assert isinstance(error, ScriptError)
    assert "script exhausted after 1 request" in str(error)
    assert error.request is model.requests[1]
    assert error.request.stage == "answer"


def test_failing_script_callable_answers_500_and_records_the_cause(connect: Connect) -> None:
    def script(request: RecordedRequest) -> Reply:
        raise KeyError("no such city")

    model = ScriptedModel(script)

    with pytest.raises(openai.InternalServerError, match="KeyError"):
        create(connect(model))

    [error] = model.errors
    assert isinstance(error.__cause__, KeyError)


def test_delay_then_small_client_timeout_is_a_timeout_error() -> None:
    model = ScriptedModel([delay(0.5, text("Too late.")), text("On time.")])

    with model.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=0.1)
        with pytest.raises(openai.APITimeoutError):
            create(client)
        client.close()
        # The next reply of the script is served: asked with room to spare, since a loaded
        # machine can take 0.1 s to answer on localhost.
        patient = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=10)
        assert create(patient).choices[0].message.content == "On time."
        patient.close()


def test_delay_is_answered_at_once_in_process() -> None:
    model = ScriptedModel([delay(30, text("No wait in-process."))])
    client = openai.OpenAI(
        base_url=model.base_url,
        api_key="x",
        http_client=model.http_client(),
        max_retries=0,
        timeout=0.1,
    )

    assert create(client).choices[0].message.content == "No wait in-process."


# --- router probes ------------------------------------------------------------------------


def test_route_probes_are_answered_without_consuming_the_script(connect: Connect) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Paris"})])
    client = connect(model)

    probe = create(client, extra_headers={"x-toolcall-stage": "route"})
    call = create(client, extra_headers={"x-toolcall-stage": "call"})

    assert json.loads(probe.choices[0].message.content) == {"need_tool": True}
    assert function_calls(call.choices[0].message)[0].function.name == "get_weather"
    assert [r.stage for r in model.requests] == ["route", "call"]
    assert model.calls_for("route") == [model.requests[0]]
    assert model.calls_for("call") == [model.requests[1]]
    assert model.calls_for(None) == []
    assert model.remaining == 0


def test_route_answer_can_be_false_or_decided_per_request(connect: Connect) -> None:
    decided = ScriptedModel([], route_answer=lambda request: "Paris" in str(request.messages))
    never = ScriptedModel([], route_answer=False)
    route = {"x-toolcall-stage": "route"}
    decided_client = connect(decided)

    paris = create(decided_client, extra_headers=route)
    hello = create(
        decided_client, messages=[{"role": "user", "content": "Hi"}], extra_headers=route
    )
    refused = create(connect(never), extra_headers=route)

    assert paris.choices[0].message.content == '{"need_tool": true}'
    assert hello.choices[0].message.content == '{"need_tool": false}'
    assert refused.choices[0].message.content == '{"need_tool": false}'
    assert [r.stage for r in decided.requests] == ["route", "route"]
    assert decided.errors == []


def test_route_answer_none_serves_probes_from_the_script(connect: Connect) -> None:
    model = ScriptedModel([text('{"need_tool": false}'), text("Hi!")], route_answer=None)
    client = connect(model)

    probe = create(client, extra_headers={"x-toolcall-stage": "route"})
    answer = create(client, extra_headers={"x-toolcall-stage": "answer"})

    assert probe.choices[0].message.content == '{"need_tool": false}'
    assert answer.choices[0].message.content == "Hi!"
    assert model.remaining == 0


def test_streamed_route_probe_is_answered_too(connect: Connect) -> None:
    model = ScriptedModel([], chunk_size=3)

    chunks = list(create(connect(model), stream=True, extra_headers={"x-toolcall-stage": "route"}))

    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert json.loads(content) == {"need_tool": True}


# --- async --------------------------------------------------------------------------------


async def test_async_client_gets_tool_calls_streams_and_errors(aconnect: AsyncConnect) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Paris"}),
            text("Streamed answer."),
            http_error(429, headers={"Retry-After": "2"}),
            disconnect(),
        ],
        chunk_size=5,
    )
    client = aconnect(model)

    called = await client.chat.completions.create(model="scripted", messages=MESSAGES)
    stream = await client.chat.completions.create(model="scripted", messages=MESSAGES, stream=True)
    streamed = "".join([c.choices[0].delta.content or "" async for c in stream])
    with pytest.raises(openai.RateLimitError):
        await client.chat.completions.create(model="scripted", messages=MESSAGES)
    with pytest.raises(openai.APIConnectionError):
        await client.chat.completions.create(model="scripted", messages=MESSAGES)

    [call] = function_calls(called.choices[0].message)
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert streamed == "Streamed answer."
    assert [r.stream for r in model.requests] == [False, True, False, False]


async def test_async_timeout_against_the_local_server() -> None:
    model = ScriptedModel([delay(0.5, text("Too late."))])

    with model.serve() as base_url:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=0.1)
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(model="scripted", messages=MESSAGES)
        await client.close()


# --- the local server ---------------------------------------------------------------------


def test_local_server_binds_loopback_and_answers_health() -> None:
    model = ScriptedModel([])

    with model.serve() as base_url, httpx2.Client(base_url=base_url.removesuffix("/v1")) as http:
        health = http.get("/health")
        missing = http.post("/v1/embeddings", json={"input": "x"})

    assert base_url.startswith("http://127.0.0.1:")
    assert base_url.endswith("/v1")
    assert health.status_code == 200
    assert missing.status_code == 404
    assert missing.json() == {"detail": "Not Found"}
    assert [(r.method, r.path) for r in model.requests] == [
        ("GET", "/health"),
        ("POST", "/v1/embeddings"),
    ]


def test_local_server_stops_with_open_connections_and_pending_delays() -> None:
    model = ScriptedModel([text("kept alive"), delay(60, text("never sent"))])

    with model.serve() as base_url:
        # An idle keep-alive connection, never closed by the client...
        client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        assert create(client).choices[0].message.content == "kept alive"
        # ... and a request whose scripted 60 s delay is still running.
        impatient = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=0.05)
        with pytest.raises(openai.APITimeoutError):
            create(impatient)
    # Reaching this line means the exit neither waited for the delay nor for the client.
    client.close()
    impatient.close()


def test_local_server_reads_chunked_request_bodies() -> None:
    model = ScriptedModel([text("first"), text("second")])
    body = json.dumps({"messages": MESSAGES}).encode()

    with model.serve() as base_url, httpx2.Client(base_url=base_url) as http:
        chunked = http.post("/chat/completions", content=iter([body[:10], body[10:]]))
        # The same keep-alive connection still parses the next request correctly.
        plain = http.post("/chat/completions", json={"messages": []})

    assert chunked.json()["choices"][0]["message"]["content"] == "first"
    assert plain.json()["choices"][0]["message"]["content"] == "second"
    assert model.requests[0].headers["transfer-encoding"] == "chunked"
    assert model.requests[0].messages == MESSAGES


def test_in_process_disconnect_raises_httpx2_connect_error() -> None:
    model = ScriptedModel([disconnect()])

    with model.http_client() as http, pytest.raises(httpx2.ConnectError):
        http.post("/chat/completions", json={"messages": []})
