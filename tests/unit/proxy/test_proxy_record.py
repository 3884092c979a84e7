"""`proxy --record DIR`: what the proxy served becomes eval cases (record -> review -> eval)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
from typer.testing import CliRunner

from toolcall_sdk import RetryPolicy
from toolcall_sdk.cli import app
from toolcall_sdk.evals import load_cases
from toolcall_sdk.proxy import create_app
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from .test_proxy import ASK, WEATHER, chat, no_sleep


async def test_recorded_proxy_traffic_becomes_cases_eval_runs_without_allow_code(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "traffic"
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), text("Hello! How can I help?")]
    )
    app_ = create_app(
        model.base_url,
        http_client=model.async_http_client(),
        router="always",
        retry=RetryPolicy(async_sleep=no_sleep, jitter=0.0),
        record=folder,
    )
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app_), base_url="http://proxy"
    ) as caller:
        called = await caller.post("/v1/chat/completions", json=chat())
        answered = await caller.post("/v1/chat/completions", json=chat(tool_choice="none"))
    assert (called.status_code, answered.status_code) == (200, 200)

    [first, second] = [
        json.loads(line) for line in (folder / "traffic.jsonl").read_text().splitlines()
    ]
    assert (first["source"], first["operation"]) == ("proxy", "chat")
    assert first["messages"] == ASK
    assert first["outcome"]["status"] == "called"
    # The validated call, whole: the optional unit the model left out is null.
    assert first["outcome"]["calls"] == [
        {"name": "get_weather", "arguments": {"city": "Oslo", "unit": None}}
    ]
    assert first["tools"][0]["function"]["name"] == WEATHER["function"]["name"]
    assert second["outcome"]["status"] == "answered"
    assert "authorization" not in json.dumps(first).lower()

    cases = tmp_path / "cases.jsonl"
    reviewed = CliRunner().invoke(
        app, ["cases", "review", str(folder), "--out", str(cases), "--accept", "validated"]
    )
    assert reviewed.exit_code == 0, reviewed.output
    [case] = load_cases(cases)  # inline JSON Schema tools: no --allow-code
    assert [c.name for c in case.expected] == ["get_weather"]
    assert list(case.expected[0].accept["city"]) == ["Oslo"]
