"""`doctor` against the demo server: every check passes on what `launch --demo` serves.

The wrong-parser server's diagnosis is in test_wrong_parser_live.py.
"""

from __future__ import annotations

from toolcall_sdk.doctor import run_doctor
from toolcall_sdk.launcher import Server

from .conftest import MODEL


def test_doctor_on_the_demo_server(demo_server: Server) -> None:
    report = run_doctor(demo_server.base_url, model=MODEL)

    statuses = {f.check: f.status for f in report.findings}
    assert statuses["server reachable"] == "ok"
    assert statuses["model"] == "ok"
    assert statuses["vLLM version"] == "ok"
    assert statuses["auto tool choice"] == "ok"
    assert statuses["required tool_choice"] == "ok", report.findings
    assert statuses["named tool_choice"] == "ok", report.findings
    assert statuses["chat template renders tools"] == "ok"
    assert statuses["tool-call parser"] == "ok", report.findings
    assert report.exit_code == 0, report.findings
