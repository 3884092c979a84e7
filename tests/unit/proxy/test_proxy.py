"""`toolcall-sdk proxy` in-process: the ASGI app in front of a ScriptedModel upstream.

The caller talks to the app through `httpx2.ASGITransport`; the proxy talks to the scripted
upstream through its in-process transport. Streaming, concurrency and failover over real
sockets are in test_proxy_http.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, MutableMapping
from typing import Any

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from toolcall_sdk import RetryPolicy
from toolcall_sdk.proxy import ProxyConfigError, create_app, serve_proxy
from toolcall_sdk.testing import (
    ScriptedModel,
    endless_stream,
    http_error,
    malformed,
    parallel,
    text,
    tool_call,
)

from ._watched import WatchedUpstream

Proxy = Callable[..., AsyncIterator[httpx2.AsyncClient]]

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
TIME: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Current time in a time zone.",
        "parameters": {
            "type": "object",
            "properties": {"zone": {"type": "string"}},
            "required": ["zone"],
        },
    },
}
ASK = [{"role": "user", "content": "Weather in Oslo?"}]
# The JSON nesting a chat request body may have (docs/proxy.md).
MAX_BODY_DEPTH = 128
# How long a test waits for what should take milliseconds before calling it a failure.
PATIENCE_S = 10.0


def chat(**fields: Any) -> dict[str, Any]:
    return {"model": "m", "messages": ASK, "tools": [WEATHER, TIME], **fields}


async def no_sleep(seconds: float) -> None:
    """Transport backoffs are recorded by the policy's tests, not waited for here."""


def proxy_for(model: ScriptedModel, **options: Any) -> httpx2.AsyncClient:
    options.setdefault("router", "always")
    options.setdefault("retry", RetryPolicy(async_sleep=no_sleep, jitter=0.0))
    app = create_app(model.base_url, http_client=model.async_http_client(), **options)
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy")


def calls_of(response: httpx2.Response) -> list[tuple[str, dict[str, Any]]]:
    message = response.json()["choices"][0]["message"]
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]


async def test_invalid_then_valid_call_is_one_response() -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "O"}, usage=(100, 10)),
            tool_call("get_weather", {"city": "Oslo"}, usage=(150, 12)),
        ]
    )
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion"
    [choice] = body["choices"]
    assert choice["finish_reason"] == "tool_calls"
    [call] = choice["message"]["tool_calls"]
    assert call["id"] == "call_2"
    assert call["type"] == "function"
    assert call["function"] == {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    assert body["usage"] == {"prompt_tokens": 250, "completion_tokens": 22, "total_tokens": 272}
    assert response.headers["x-toolcall-attempts"] == "2"
    assert response.headers["x-toolcall-parser-miss"] == "0"
    assert response.headers["x-toolcall-repairs"] == "0"
    assert response.headers["x-toolcall-route"] == "call"
    assert response.headers["x-toolcall-route-by"] == "router=always"

    first, second = model.chat_requests
    assert first.messages == ASK
    assert second.messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "VALIDATION_ERROR in get_weather (call call_1):\n"
        '- city: String should have at least 2 characters (got "O")\n'
        "Call get_weather again with corrected arguments.",
    }
    for request in (first, second):
        assert request.tool_choice == "required"
        assert request.temperature == 0
        assert [t["function"]["strict"] for t in request.tools or []] == [True, True]


async def test_arguments_returned_are_the_validated_values() -> None:
    model = ScriptedModel(
        [tool_call("get_weather", '{"city": "Oslo", "unit": null, "extra_note": "kept"}')]
    )
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    # The strict form's null for an optional field is left out; extra keys the caller's
    # schema allows stay.
    assert calls_of(response) == [("get_weather", {"city": "Oslo", "extra_note": "kept"})]


async def test_repairs_and_parser_miss_are_reported() -> None:
    leaked = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>'
    model = ScriptedModel([text(leaked)])
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert calls_of(response) == [("get_time", {"zone": "UTC"})]
    assert response.headers["x-toolcall-parser-miss"] == "1"

    model = ScriptedModel([tool_call("get_time", '"{\\"zone\\": \\"UTC\\"}"')])
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())
    assert calls_of(response) == [("get_time", {"zone": "UTC"})]
    assert response.headers["x-toolcall-repairs"] == "1"


async def test_tool_choice_none_is_a_plain_answer() -> None:
    model = ScriptedModel([text("It is sunny.")])
    async with proxy_for(model, router="probe") as caller:
        response = await caller.post("/v1/chat/completions", json=chat(tool_choice="none"))

    body = response.json()
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "It is sunny."}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert response.headers["x-toolcall-route"] == "no_call"
    assert response.headers["x-toolcall-route-by"] == "tool_choice=none"
    assert response.headers["x-toolcall-attempts"] == "0"
    [request] = model.chat_requests  # no router probe
    assert (request.tools, request.tool_choice) == (None, None)
    assert request.stage == "answer"


async def test_tool_choice_none_answered_with_a_call_is_no_answer_never_an_empty_200() -> None:
    model = ScriptedModel(lambda request: tool_call("get_time", {"zone": "UTC"}))
    async with proxy_for(model, router="probe") as caller:
        response = await caller.post("/v1/chat/completions", json=chat(tool_choice="none"))

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["type"] == "no_answer"
    assert "only tool call(s) (get_time)" in error["message"]
    assert [r.stage for r in model.chat_requests] == ["answer", "answer"]


async def test_a_call_cut_off_at_max_tokens_is_asked_again_never_returned_as_text() -> None:
    cut = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "U'
    model = ScriptedModel(
        [text(cut, finish_reason="length"), tool_call("get_time", {"zone": "UTC"})]
    )
    async with proxy_for(model, router="llm") as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert calls_of(response) == [("get_time", {"zone": "UTC"})]
    assert response.json()["choices"][0]["message"].get("content") in (None, "")
    assert response.headers["x-toolcall-attempts"] == "2"


async def test_named_tool_choice_forces_that_tool_only() -> None:
    model = ScriptedModel([tool_call("get_time", {"zone": "UTC"})])
    named = {"type": "function", "function": {"name": "get_time"}}
    async with proxy_for(model, router="probe") as caller:
        response = await caller.post("/v1/chat/completions", json=chat(tool_choice=named))

    assert calls_of(response) == [("get_time", {"zone": "UTC"})]
    assert response.headers["x-toolcall-route-by"] == "tool_choice=function:get_time"
    [request] = model.chat_requests
    assert request.tool_choice == named
    assert [t["function"]["name"] for t in request.tools or []] == ["get_time"]


async def test_required_tool_choice_skips_the_router() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})], route_answer=False)
    async with proxy_for(model, router="probe") as caller:
        response = await caller.post("/v1/chat/completions", json=chat(tool_choice="required"))

    assert calls_of(response) == [("get_weather", {"city": "Oslo"})]
    assert response.headers["x-toolcall-route-by"] == "tool_choice=required"
    assert [r.stage for r in model.chat_requests] == ["call"]
    assert model.chat_requests[0].tool_choice == "required"


@pytest.mark.parametrize("tool_choice", [None, "auto"])
async def test_auto_goes_to_the_router(tool_choice: str | None) -> None:
    fields = {} if tool_choice is None else {"tool_choice": tool_choice}
    model = ScriptedModel([text("Hello!")], route_answer=False)
    async with proxy_for(model, router="probe") as caller:
        response = await caller.post("/v1/chat/completions", json=chat(**fields))

    assert response.json()["choices"][0]["message"]["content"] == "Hello!"
    assert response.headers["x-toolcall-route"] == "no_call"
    assert response.headers["x-toolcall-route-by"] == "router=probe"
    assert [r.stage for r in model.chat_requests] == ["route", "answer"]


async def test_retries_exhausted_is_an_error_never_a_call() -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "O"}),
            tool_call("get_weather", {"town": "Oslo"}),
            text("I cannot."),
        ]
    )
    async with proxy_for(model, max_retries=2) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["type"] == "tool_call_failed"
    assert error["message"].startswith("the model gave no valid tool call in 3 attempt(s)")
    assert [
        [(p["kind"], p["tool"]) for p in attempt["problems"]] for attempt in error["attempts"]
    ] == [
        [("invalid_arguments", "get_weather")],
        [("invalid_arguments", "get_weather")],
        [("no_tool_call", None)],
    ]
    assert "choices" not in response.json()
    assert response.headers["x-toolcall-attempts"] == "3"
    assert len(model.chat_requests) == 3


async def test_sampling_parameters_reach_the_upstream() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    async with proxy_for(model) as caller:
        await caller.post(
            "/v1/chat/completions",
            json=chat(temperature=0.3, max_tokens=64, top_p=0.9, seed=7, stop=["\n\n"]),
        )

    sent = model.chat_requests[0].json or {}
    assert (sent["temperature"], sent["max_tokens"]) == (0.3, 64)
    assert (sent["top_p"], sent["seed"], sent["stop"]) == (0.9, 7, ["\n\n"])


async def test_parallel_calls_keep_their_ids_and_order() -> None:
    model = ScriptedModel(
        [
            parallel(
                tool_call("get_weather", {"city": "Oslo"}, id="a"),
                tool_call("get_time", {"zone": "CET"}, id="b"),
            )
        ]
    )
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    calls = response.json()["choices"][0]["message"]["tool_calls"]
    assert [c["id"] for c in calls] == ["a", "b"]
    assert calls_of(response) == [("get_weather", {"city": "Oslo"}), ("get_time", {"zone": "CET"})]


async def test_request_without_tools_is_relayed_byte_for_byte() -> None:
    sent = b'{"model": "m",   "messages": [{"role": "user", "content": "h\\u00e9llo"}]}\n'
    upstream_body = b'{"any":   "bytes",\n "the": ["upstream", "sent"]}'
    model = ScriptedModel([malformed(upstream_body)])
    async with proxy_for(model) as caller:
        response = await caller.post(
            "/v1/chat/completions",
            content=sent,
            headers={"content-type": "application/json", "x-custom": "1"},
        )

    assert response.status_code == 200
    assert response.content == upstream_body
    [request] = model.requests
    assert request.body == sent
    assert request.headers["x-custom"] == "1"
    assert request.stage is None  # not through the pipeline


async def test_upstream_errors_are_relayed_with_their_status() -> None:
    model = ScriptedModel([http_error(400, {"object": "error", "message": "bad"})])
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json={"model": "m", "messages": ASK})

    assert response.status_code == 400
    assert response.json() == {"object": "error", "message": "bad"}


async def test_models_and_health() -> None:
    model = ScriptedModel([], model="served-name")
    async with proxy_for(model) as caller:
        models = await caller.get("/v1/models")
        health = await caller.get("/health")

    assert [m["id"] for m in models.json()["data"]] == ["served-name"]
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "upstreams": 1}


async def test_metrics_count_requests_attempts_and_failures() -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "O"}),
            tool_call("get_weather", {"city": "Oslo"}),
            text("plain"),
        ]
    )
    async with proxy_for(model) as caller:
        await caller.post("/v1/chat/completions", json=chat())
        await caller.post("/v1/chat/completions", json={"model": "m", "messages": ASK})
        response = await caller.get("/metrics")

    assert response.headers["content-type"].startswith("text/plain")
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }
    assert samples[("toolcall_proxy_requests_total", (("kind", "tools"), ("outcome", "ok")))] == 1
    assert (
        samples[("toolcall_proxy_requests_total", (("kind", "passthrough"), ("outcome", "ok")))]
        == 1
    )
    assert samples[("toolcall_proxy_attempts_total", ())] == 2
    assert samples[("toolcall_proxy_failures_total", (("failure", "invalid_arguments"),))] == 1
    assert (
        samples[("toolcall_proxy_routes_total", (("by", "router=always"), ("route", "call")))] == 1
    )
    assert samples[("toolcall_proxy_request_duration_seconds_count", (("kind", "tools"),))] == 1


async def test_api_key_is_required_when_set() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    async with proxy_for(model, api_key="proxy-key") as caller:
        refused = await caller.post("/v1/chat/completions", json=chat())
        wrong = await caller.post(
            "/v1/chat/completions", json=chat(), headers={"authorization": "Bearer nope"}
        )
        metrics = await caller.get("/metrics")
        health = await caller.get("/health")
        accepted = await caller.post(
            "/v1/chat/completions", json=chat(), headers={"authorization": "Bearer proxy-key"}
        )

    assert refused.status_code == wrong.status_code == metrics.status_code == 401
    assert refused.json()["error"]["code"] == "invalid_api_key"
    assert health.status_code == 200
    assert accepted.status_code == 200
    assert len(model.chat_requests) == 1


async def test_caller_authorization_is_forwarded() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}), text("hi")])
    async with proxy_for(model) as caller:
        headers = {"authorization": "Bearer caller-key"}
        await caller.post("/v1/chat/completions", json=chat(), headers=headers)
        await caller.post(
            "/v1/chat/completions", json={"model": "m", "messages": ASK}, headers=headers
        )

    assert [r.headers["authorization"] for r in model.chat_requests] == ["Bearer caller-key"] * 2


async def test_upstream_api_key_replaces_the_callers() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}), text("hi")])
    async with proxy_for(model, upstream_api_key="upstream-key") as caller:
        headers = {"authorization": "Bearer caller-key"}
        await caller.post("/v1/chat/completions", json=chat(), headers=headers)
        await caller.post(
            "/v1/chat/completions", json={"model": "m", "messages": ASK}, headers=headers
        )

    assert [r.headers["authorization"] for r in model.chat_requests] == ["Bearer upstream-key"] * 2


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"tool_choice": {"type": "function", "function": {"name": "nope"}}}, "tool_choice"),
        ({"tool_choice": "sometimes"}, "tool_choice"),
        ({"n": 2}, "n"),
        ({"messages": []}, "messages"),
        ({"tools": [{"type": "function"}]}, "tools[0]"),
        ({"tools": [{"type": "function", "function": {"name": ["x"]}}]}, "tools[0]"),
        (
            {
                "tools": [
                    {"type": "function", "function": {"name": "x", "parameters": {"type": "array"}}}
                ]
            },
            "tools[0]",
        ),
        ({"temperature": 10**400}, "temperature"),  # an integer no float can hold
    ],
)
async def test_requests_the_pipeline_cannot_serve_get_400(
    fields: dict[str, Any], param: str
) -> None:
    model = ScriptedModel([])
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat(**fields))

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert model.requests == []


def function(name: str, parameters: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def with_parameters(parameters: Any) -> dict[str, Any]:
    return function("broken", {"type": "object", **parameters})


@pytest.mark.parametrize(
    ("tools", "param"),
    [
        ([with_parameters({"properties": ["city"]})], "tools[0]"),
        (
            [with_parameters({"properties": {"city": {"type": "string"}}, "required": 5})],
            "tools[0]",
        ),
        ([with_parameters({"properties": {"n": {"type": "number", "multipleOf": 0}}})], "tools[0]"),
        ([with_parameters({"properties": {"s": {"type": "string", "minLength": -1}}})], "tools[0]"),
        # Accepted when the model is built, refused when the strict form is: still the tool's.
        ([with_parameters({"properties": {}, "allOf": {"a": 1}})], "tools[0]"),
        ([with_parameters({"properties": {}, "$defs": 5})], "tools[0]"),
        ([WEATHER, with_parameters({"properties": ["city"]})], "tools[1]"),
    ],
)
async def test_invalid_tool_schemas_get_400_naming_the_tool(
    tools: list[dict[str, Any]], param: str
) -> None:
    model = ScriptedModel([])
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat(tools=tools))

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert error["message"].startswith(param)
    assert "broken" in error["message"]
    assert model.requests == []


def nested(levels: int, inner: str, *, opening: str, closing: str) -> str:
    """`inner` wrapped `levels` times, written out: no encoder could write it recursively."""
    return opening * levels + inner + closing * levels


@pytest.mark.parametrize(
    "body",
    [
        # A tool schema 900 objects deep.
        json.dumps(chat(tools=[])).replace(
            '"tools": []',
            '"tools": [{"type": "function", "function": {"name": "deep", "parameters": '
            + nested(
                900,
                '{"type": "string"}',
                opening='{"type": "object", "properties": {"x": ',
                closing="}}",
            )
            + "}}]",
        ),
        # A body 50,000 levels deep, with tools or without (deeper than the JSON parser goes).
        json.dumps(chat()).replace(
            '"model"', '"metadata": ' + nested(50_000, "1", opening="[", closing="]") + ', "model"'
        ),
        nested(50_000, "", opening="[", closing="]"),
        # Just past the proxy's own bound.
        json.dumps(chat()).replace(
            '"model"',
            '"metadata": ' + nested(MAX_BODY_DEPTH, "1", opening="[", closing="]") + ', "model"',
        ),
    ],
    ids=["schema-900", "body-50000-tools", "body-50000-bare", "body-past-the-bound"],
)
async def test_bodies_nested_too_deep_get_400(body: str) -> None:
    model = ScriptedModel([])
    async with proxy_for(model) as caller:
        response = await caller.post(
            "/v1/chat/completions", content=body, headers={"content-type": "application/json"}
        )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert f"more than {MAX_BODY_DEPTH} levels deep" in error["message"]
    assert model.requests == []


async def test_a_body_at_the_depth_bound_is_served() -> None:
    # The body itself is one level, "metadata" a list inside it: MAX_BODY_DEPTH in all.
    metadata = nested(MAX_BODY_DEPTH - 1, "1", opening="[", closing="]")
    body = json.dumps(chat()).replace('"model"', f'"metadata": {metadata}, "model"')
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    async with proxy_for(model) as caller:
        response = await caller.post(
            "/v1/chat/completions", content=body, headers={"content-type": "application/json"}
        )

    assert response.status_code == 200
    assert calls_of(response) == [("get_weather", {"city": "Oslo"})]


async def test_upstream_answer_past_the_size_cap_is_a_gateway_error() -> None:
    # Past the client's max_response_bytes (32 MiB): the upstream's fault, not the caller's.
    model = ScriptedModel([malformed(b"x" * (32 * 1024 * 1024 + 1))])
    async with proxy_for(model) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert response.status_code == 502
    error = response.json()["error"]
    assert error["type"] == "upstream_error"
    assert error["message"].startswith("the upstream's answer was too large")
    assert len(model.chat_requests) == 1


async def test_upstream_failure_is_a_gateway_error() -> None:
    model = ScriptedModel([http_error(503), http_error(503)])
    async with proxy_for(model, retry=RetryPolicy(attempts=2, async_sleep=no_sleep)) as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert response.status_code == 502
    assert response.json()["error"]["type"] == "upstream_error"
    assert len(model.chat_requests) == 2  # the SDK's transport retry, then the error


async def test_one_client_per_tool_set_and_options() -> None:
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": "Oslo"}))
    app = create_app(model.base_url, http_client=model.async_http_client(), router="always")
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy") as caller:
        for fields in ({}, {}, {"temperature": 0.5}, {"tools": [WEATHER]}, {}):
            response = await caller.post("/v1/chat/completions", json=chat(**fields))
            assert response.status_code == 200

    assert len(app.state.proxy.clients) == 3


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "example.org"])
def test_binding_beyond_loopback_needs_an_api_key(host: str) -> None:
    with pytest.raises(ProxyConfigError, match="--api-key"):
        serve_proxy("http://127.0.0.1:8000/v1", host=host)


@pytest.mark.parametrize(
    ("upstream", "options", "message"),
    [
        ([], {}, "at least one --upstream"),
        ("localhost:8000", {}, "not an http"),
        ("http://x/v1", {"router": "sometimes"}, "--router"),
        ("http://x/v1", {"max_retries": -1}, "--max-retries"),
    ],
)
def test_invalid_options_are_refused(upstream: Any, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ProxyConfigError, match=message):
        create_app(upstream, **options)


async def test_call_tool_choice_auto_reads_the_call_from_the_text() -> None:
    # A model that calls well only in its own markup: the router's call is asked with
    # tool_choice="auto" and the call left in the text is recovered and validated.
    leaked = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    model = ScriptedModel([text(leaked)])
    async with proxy_for(model, call_tool_choice="auto") as caller:
        response = await caller.post("/v1/chat/completions", json=chat())

    assert calls_of(response) == [("get_weather", {"city": "Oslo"})]
    assert response.headers["x-toolcall-parser-miss"] == "1"
    [request] = model.chat_requests
    assert request.tool_choice == "auto"


async def test_call_tool_choice_auto_still_forces_a_callers_required() -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    async with proxy_for(model, call_tool_choice="auto") as caller:
        await caller.post("/v1/chat/completions", json=chat(tool_choice="required"))

    assert model.chat_requests[0].tool_choice == "required"


async def test_call_tool_choice_is_checked() -> None:
    with pytest.raises(ProxyConfigError, match="--call-tool-choice must be required or auto"):
        create_app("http://127.0.0.1:9/v1", call_tool_choice="named")


async def test_a_caller_gone_at_the_first_byte_still_releases_the_upstream() -> None:
    # Driven as an ASGI server would: the caller hangs up as the response starts, so the
    # body never starts and its own clean-up never runs; the response must release the
    # upstream anyway (and count the request).
    model = ScriptedModel(lambda request: endless_stream())
    watched = WatchedUpstream(model.transport())
    app = create_app(model.base_url, http_client=watched.client(), router="always")
    payload = json.dumps(chat(tool_choice="none", stream=True)).encode()
    gone = asyncio.Event()
    never = asyncio.Event()
    sent: list[str] = []
    messages = [{"type": "http.request", "body": payload, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message["type"])
        if message["type"] == "http.response.start":
            gone.set()
            await never.wait()  # the connection is gone: this write never completes

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/chat/completions",
        "raw_path": b"/v1/chat/completions",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json")],
        "client": ("127.0.0.1", 50000),
        "server": ("proxy", 80),
    }
    await asyncio.wait_for(app(scope, receive, send), timeout=PATIENCE_S)

    assert sent == ["http.response.start"]
    assert watched.opened.is_set()
    # Waited for in a thread, so that the event loop runs meanwhile: the SDK's innermost
    # reader may be closed by asyncio's async-generator finalizer, a loop turn later.
    assert await asyncio.to_thread(watched.closed.wait, PATIENCE_S)
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://proxy"
    ) as caller:
        metrics = (await caller.get("/metrics")).text
    assert 'toolcall_proxy_requests_total{kind="tools",outcome="disconnected"} 1.0' in metrics
