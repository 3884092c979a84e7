"""canitoolcall's live probe against the demo server (served with the SDK's parser plugin).

canitoolcall (the public conformance suite the parsers are judged by offline) also probes a
live endpoint with its own scenarios and tools. Some scenarios fail by the model's choice (a
value outside the probe's enum, a call where the probe wants an answer, one call where it
wants two). What this test holds is that no failure is the parser's: whenever the server
returned no call, the text the model wrote holds no call to an offered tool that the SDK's
own parser can read.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk.launcher import Server
from toolcall_sdk.parsing import parse

from .conftest import MODEL

# Failures that are the model's answer, not a parse: the probe's own words for them.
MODEL_CHOICES = (
    "is not one of",  # a value outside the probe's enum (the model's trained "celsius")
    "expected no tool call",  # it called where the probe wanted an answer
    "expected at least 2 tool call",  # one call where the probe wanted two
)


def _probe(server: Server, out: Path) -> dict[str, Any]:
    command = shutil.which("canitoolcall", path=str(Path(sys.executable).parent))
    assert command is not None, "canitoolcall is in the dev extra"
    subprocess.run(
        [
            command,
            "probe",
            "--base-url",
            server.base_url,
            "--model",
            MODEL,
            "--concurrency",
            "2",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,  # it exits non-zero when a scenario fails; the report says which
    )
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


@pytest.fixture(scope="module")
def report(demo_server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _probe(demo_server, tmp_path_factory.mktemp("probe") / "probe.json")


def test_probe_failures_are_the_models_choices(report: dict[str, Any]) -> None:
    outcomes = report["outcomes"]
    assert outcomes, report

    not_explained = []
    for outcome in outcomes:
        if outcome["status"] != "fail":
            continue
        detail = outcome["detail"]
        if any(choice in detail for choice in MODEL_CHOICES):
            continue
        content = (outcome.get("observed") or {}).get("content") or ""
        readable = parse(content, "hermes").calls if content else []
        if outcome["check"] == "scenario" and not readable:
            continue  # no call in the text either: broken markup, or none at all
        if outcome["check"] != "scenario" and not readable:
            continue  # stream vs non-stream differ only in unreadable text
        not_explained.append((outcome["scenario_id"], outcome["stream"], detail))

    summary = report["summary"]
    print(f"\ncanitoolcall probe on the demo server: {summary}")
    assert not_explained == [], not_explained
    passed = [o for o in outcomes if o["status"] == "pass"]
    assert any(o["scenario_id"] == "tool-result-followup" for o in passed)


@pytest.mark.parametrize("scenario", ["single-call", "forced-tool-choice"])
def test_known_tool_calls_arrive_as_calls(report: dict[str, Any], scenario: str) -> None:
    # get_weather is a tool the demo model knows: its call must come back as a call, streamed
    # or not, whatever the probe then says of its unit value.
    for outcome in report["outcomes"]:
        if outcome["scenario_id"] == scenario and outcome["check"] == "scenario":
            calls = outcome["observed"]["tool_calls"]
            assert [c["name"] for c in calls] == ["get_weather"], outcome
            assert json.loads(calls[0]["arguments_raw"])["city"]
