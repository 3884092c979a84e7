"""An answer cut off at the token limit has one name on every surface.

A forced call whose arguments ran into `max_tokens` (`finish_reason == "length"`) is an
`invalid_json` problem whose message starts `cut off at the token limit`, and an answer cut
before its call a `no_tool_call` one with the same mark: in each attempt's `error_kinds`,
the client's metrics, the proxy's 422 body and /metrics, the doctor's finding and the eval
taxonomy of all four pipelines (the raw ones read the arguments as the SDK does).
"""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import ToolCallFailed
from toolcall_sdk._feedback import CUT_OFF
from toolcall_sdk.evals import EvalSettings, parse_case, run_eval_sync
from toolcall_sdk.evals._pipelines import LADDER
from toolcall_sdk.testing import Reply, ScriptedModel, text, tool_call

from .conftest import ClientFactory

# The arguments as a token limit leaves them: valid JSON up to where the answer stopped.
CUT = '{"city": "Oslo" "unit'
JSON_ERROR = "Expecting ',' delimiter at character 16"
CUT_ARGUMENTS = f"{CUT_OFF}: {JSON_ERROR}"
CUT_BEFORE_THE_CALL = f"{CUT_OFF}: the answer has no tool call"


def cut_call() -> Reply:
    return tool_call("get_weather", CUT, finish_reason="length")


def cut_text() -> Reply:
    return text("Let me look up the weather in", finish_reason="length")


def test_the_attempts_name_the_cut_arguments(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([cut_call(), cut_call()])
    client = make_client(model, [get_weather], router="always", max_retries=1)

    with pytest.raises(ToolCallFailed) as failed:
        client.call("Weather in Oslo?")

    attempts = failed.value.attempts
    assert [a.error_kinds for a in attempts] == [["invalid_json"], ["invalid_json"]]
    assert [a.problems[0].message for a in attempts] == [CUT_ARGUMENTS] * 2
    assert client.metrics.failures == {"invalid_json": 2}


def test_the_attempts_name_an_answer_cut_before_its_call(
    make_client: ClientFactory, get_weather: Any
) -> None:
    model = ScriptedModel([cut_text()])
    client = make_client(model, [get_weather], router="always", max_retries=0)

    with pytest.raises(ToolCallFailed) as failed:
        client.call("Weather in Oslo?")

    [attempt] = failed.value.attempts
    assert attempt.error_kinds == ["no_tool_call"]
    assert attempt.problems[0].message == CUT_BEFORE_THE_CALL
    assert client.metrics.failures == {"no_tool_call": 1}


WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def eval_record(pipeline: str, reply: Reply) -> dict[str, Any]:
    case = parse_case(
        {
            "id": "w1",
            "messages": "Weather in Oslo?",
            "tools": [WEATHER],
            "expected": {"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
        }
    )
    model = ScriptedModel([reply] * 3)
    settings = EvalSettings(base_url=model.base_url, model="m", router="always")
    [record] = run_eval_sync([case], settings, pipelines=[pipeline], transport=model.transport())
    return record


@pytest.mark.parametrize("pipeline", LADDER)
def test_every_eval_pipeline_names_the_cut_arguments_alike(pipeline: str) -> None:
    record = eval_record(pipeline, cut_call())

    assert (record["verdict"], record["message"]) == ("hard_fail", f"invalid_json: {CUT_ARGUMENTS}")
    assert record["tool"] == "get_weather"


@pytest.mark.parametrize("pipeline", LADDER)
def test_every_eval_pipeline_names_an_answer_cut_before_its_call_alike(pipeline: str) -> None:
    record = eval_record(pipeline, cut_text())

    assert (record["verdict"], record["message"]) == (
        "hard_fail",
        f"no_tool_call: {CUT_BEFORE_THE_CALL}",
    )


def test_a_raw_pipeline_reads_other_bad_arguments_as_the_sdk_does() -> None:
    stopped = tool_call("get_weather", '{"city": ', finish_reason="stop")

    raw, sdk = (eval_record(p, stopped) for p in ("required", "required+validate"))

    assert raw["message"] == sdk["message"]
    assert raw["message"].startswith("invalid_json: ")
    assert CUT_OFF not in raw["message"]


async def test_the_proxy_names_the_cut_arguments_in_its_body_and_metrics() -> None:
    pytest.importorskip("starlette", reason="needs the proxy extra")
    import httpx2
    from prometheus_client.parser import text_string_to_metric_families

    from toolcall_sdk import RetryPolicy
    from toolcall_sdk.proxy import create_app

    async def no_sleep(seconds: float) -> None:
        """Backoffs are not waited for here."""

    model = ScriptedModel([cut_call(), cut_call()])
    app = create_app(
        model.base_url,
        http_client=model.async_http_client(),
        router="always",
        max_retries=1,
        retry=RetryPolicy(async_sleep=no_sleep, jitter=0.0),
    )
    body = {"model": "m", "messages": [{"role": "user", "content": "Oslo?"}], "tools": [WEATHER]}
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy") as caller:
        response = await caller.post("/v1/chat/completions", json=body)
        metrics = await caller.get("/metrics")

    assert response.status_code == 422
    error = response.json()["error"]
    assert f"invalid_json: {CUT_ARGUMENTS}" in error["message"]
    assert [
        [(p["kind"], p["message"]) for p in attempt["problems"]] for attempt in error["attempts"]
    ] == [[("invalid_json", CUT_ARGUMENTS)]] * 2
    assert [attempt["finish_reason"] for attempt in error["attempts"]] == ["length"] * 2
    assert response.headers["x-toolcall-attempts"] == "2"
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(metrics.text)
        for sample in family.samples
    }
    assert samples[("toolcall_proxy_failures_total", (("failure", "invalid_json"),))] == 2


def test_the_doctor_says_cut_off_at_the_token_limit() -> None:
    from toolcall_sdk.doctor import run_doctor

    def handle(request: Any) -> Reply:
        if (request.json or {}).get("max_tokens") == 1:
            return text("I", usage=(40 + (60 if request.tools else 0), 1))
        if request.tool_choice == "auto":
            return tool_call("get_weather", {"city": "Paris"})
        return text("I will call", finish_reason="length")  # forced, cut before the call

    model = ScriptedModel(handle)
    report = run_doctor(model.base_url, http_client=model.http_client())

    finding = next(f for f in report.findings if f.check == "required tool_choice")
    assert finding.status == "fail"
    assert finding.detail.startswith(f"no tool_calls: {CUT_OFF} (max_tokens=")
