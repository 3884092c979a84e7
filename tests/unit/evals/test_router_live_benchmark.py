"""`benchmarks/router_live.py` against a scripted server: the rows and each example's score."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

if importlib.util.find_spec("bfcl_eval") is None:
    pytest.skip(
        "bfcl-eval is not installed (pip install --no-deps bfcl-eval==2026.3.23)",
        allow_module_level=True,
    )

from benchmarks.router_live import dev_sample, main


def calls_the_first_tool(request: RecordedRequest) -> Reply:
    """A model that always calls, so the answer mode says "call" for every example."""
    tools = (request.json or {}).get("tools") or []
    if not tools:
        return text("Hello.")
    return tool_call(tools[0]["function"]["name"], {})


def run_candidate(candidate: str, out: Path) -> tuple[ScriptedModel, dict[str, Any]]:
    """router_live over 5% of the development sample against the always-calling model."""
    model = ScriptedModel(calls_the_first_tool)
    with model.serve() as base_url:
        argv = ["--base-url", base_url, "--candidates", candidate, "--per-kind", "0.05"]
        assert main([*argv, "--out", str(out)]) == 0
    return model, json.loads(out.read_text())


def test_each_examples_score_is_written_beside_the_rows(tmp_path: Path) -> None:
    sample = dev_sample(0.05, 1)

    model, written = run_candidate("answer", tmp_path / "router.json")

    [row] = written["rows"]
    assert (row["candidate"], row["recall"], row["left_alone"]) == ("answer", 1.0, 0.0)
    scores = written["examples"]["answer"]
    assert [e["id"] for e in scores] == [e.id for e in sample]
    assert {e["score"] for e in scores} == {1.0}
    assert [e["should_call"] for e in scores] == [e.should_call for e in sample]
    assert len(model.chat_requests) == len(sample)


def test_both_asks_the_routing_question_before_the_answer(tmp_path: Path) -> None:
    sample = dev_sample(0.05, 1)

    model, written = run_candidate("both", tmp_path / "router.json")

    # `both` is measured with `answer` (its verdict joins the answer's): one stage-2 request
    # per example, plus the question wherever the conversation ends with the user's turn.
    asked = [e for e in sample if e.tools and e.messages[-1]["role"] == "user"]
    questions = [r for r in model.chat_requests if not (r.json or {}).get("tools")]
    assert asked
    assert len(questions) == len(asked)
    assert len(model.chat_requests) == len(sample) + len(asked)
    both = written["examples"]["both"]
    assert all(e["prompt_tokens"] > 0 for e in both if e["id"] in {a.id for a in asked})
