"""`doctor` against real servers: the demo server, and one started with the wrong parser."""

from __future__ import annotations

import openai

from toolcall_sdk.doctor import run_doctor
from toolcall_sdk.launcher import Server
from toolcall_sdk.parsing import parse_any
from toolcall_sdk_demo import SERVED_MODEL_NAME
from toolcall_sdk_demo.tools import get_weather


def test_doctor_on_the_demo_server(demo_server: Server) -> None:
    report = run_doctor(demo_server.base_url, model=SERVED_MODEL_NAME)

    statuses = {f.check: f.status for f in report.findings}
    assert statuses["server reachable"] == "ok"
    assert statuses["model"] == "ok"
    assert statuses["vLLM version"] == "ok"
    assert statuses["auto tool choice"] == "ok"
    assert statuses["required tool_choice"] == "ok", report.findings
    assert statuses["named tool_choice"] == "ok", report.findings
    assert statuses["chat template renders tools"] == "ok"


def test_doctor_finds_the_planted_wrong_parser(wrong_parser_server: Server) -> None:
    server = wrong_parser_server
    report = run_doctor(server.base_url, model=SERVED_MODEL_NAME)
    raw = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
    leaked = (
        raw.chat.completions.create(  # type: ignore[call-overload]
            model=SERVED_MODEL_NAME,
            messages=[{"role": "user", "content": "What's the weather in Paris?"}],
            tools=[get_weather.openai_schema()],
            tool_choice="auto",
            temperature=0,
            max_tokens=200,
        )
        .choices[0]
        .message
    )

    finding = next(f for f in report.findings if f.check == "tool-call parser")
    assert finding.status == "fail", report.findings
    assert "--tool-call-parser hermes" in finding.fix
    assert report.exit_code == 1
    # The server left the call in the text; the SDK's parsers read it back.
    assert leaked.tool_calls is None
    recovered = parse_any(leaked.content or "", SERVED_MODEL_NAME)
    assert [call.name for call in recovered.calls] == ["get_weather"]
    assert recovered.format == "hermes"
