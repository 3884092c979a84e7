"""`benchmarks/agents_live.py` end to end against the scripted server, two tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.agents_live import main
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call


def first_tool_then_answer(request: RecordedRequest) -> Reply:
    """Calls the first tool offered once, then answers in text (a chain never finished)."""
    if request.messages[-1]["role"] == "tool" or not request.json or not request.json.get("tools"):
        return text("I could not find it.")
    name = request.json["tools"][0]["function"]["name"]
    return tool_call(name, {"name": "Acme"})


def test_the_script_compares_the_loops_to_the_raw_one_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel(first_tool_then_answer, route_answer=lambda request: True)
    out = tmp_path / "agents"

    with model.serve() as base_url:
        argv = ["--base-url", base_url, "--limit", "2", "--out", str(out)]
        assert main(argv) == 0
        asked = len(model.chat_requests)
        assert main(argv) == 0  # a rerun resumes: nothing is asked again
        assert len(model.chat_requests) == asked

    printed = capsys.readouterr().out
    tables = (out / "agents.md").read_text()
    assert tables in printed
    assert tables.startswith("2 tasks, every pipeline; ratios are to `raw-loop` of the same run.")
    assert "| `raw-loop` | 0/2 (0%) | +0 tasks | 2.00 (1.00x) | 2.00 (1.00x) |" in tables
    assert "| `agent-route-first` | 0/2 (0%) | +0 tasks |" in tables
    # The default router leaves each step to the answer under auto: the model decides.
    assert "| `agent` | model (auto) | 2 | 0/2 (0%) | 0/2 | 0/0 |" in tables
    assert "| `raw-loop` | model (auto) | 2 | 0/2 (0%) | 0/2 | 0/0 |" in tables
    report = json.loads((out / "report.json").read_text())
    assert [row["pipeline"] for row in report["ladder"]] == [
        "raw-loop",
        "agent",
        "agent-route-first",
    ]
