"""`benchmarks/ladder.py` end to end against scripted servers, two cases per source."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from toolcall_sdk.evals import LADDER
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

if importlib.util.find_spec("bfcl_eval") is None:
    pytest.skip(
        "bfcl-eval is not installed (pip install --no-deps bfcl-eval==2026.3.23)",
        allow_module_level=True,
    )

from benchmarks.ladder import _parser, main

SOURCES = ["invoices", "bfcl-simple_python", "bfcl-multiple", "bfcl-parallel", "bfcl-irrelevance"]


def answer(request: RecordedRequest) -> Reply:
    """Text when the model may choose; when forced, the first tool with no arguments."""
    if request.tool_choice == "auto":
        return text("I cannot help with that.")
    tools = (request.json or {}).get("tools") or [{"function": {"name": "none"}}]
    return tool_call(tools[0]["function"]["name"], {})


def test_the_script_runs_six_rungs_per_source_and_writes_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_server = ScriptedModel(answer)
    wrong_server = ScriptedModel(answer)
    out = tmp_path / "ladder"

    with main_server.serve() as base_url, wrong_server.serve() as wrong_url:
        argv = ["--base-url", base_url, "--wrong-parser-base-url", wrong_url]
        code = main([*argv, "--per-source", "2", "--out", str(out), "--router", "always"])

    printed = capsys.readouterr().out
    assert code == 0, printed
    assert sorted(p.name for p in out.iterdir()) == sorted([*SOURCES, "all", "summary.md"])
    # One report over every source: each rung holds all the cases.
    combined = json.loads((out / "all" / "report.json").read_text())
    total = sum(
        json.loads((out / name / "report.json").read_text())["ladder"][0]["cases"]
        for name in SOURCES
    )
    assert [row["cases"] for row in combined["ladder"]] == [total] * len(combined["ladder"])
    assert (out / "all" / "ladder.svg").read_text().startswith("<svg")
    assert len(wrong_server.chat_requests) == 2 * len(SOURCES)  # the auto rung only
    for name in SOURCES:
        report = json.loads((out / name / "report.json").read_text())
        assert [row["pipeline"] for row in report["ladder"]] == list(LADDER)
        assert report["cases"] == 2
        assert report["meta"]["max_tokens"] == 256
        assert report["meta"]["wrong_parser_base_url"] == wrong_url
        assert report["meta"]["listed_values"] == "continue_listed"  # the client's default
        assert (out / name / "ladder.svg").exists()
    invoices = json.loads((out / "invoices" / "report.json").read_text())
    assert len({r["category"] for r in invoices["records"]}) == 2  # spread, not the first two
    bfcl = json.loads((out / "bfcl-irrelevance" / "report.json").read_text())
    assert bfcl["meta"]["cases"] == "bfcl:irrelevance"

    summary = (out / "summary.md").read_text()
    assert "| rung | seed | " + " | ".join(SOURCES) + " |" in summary
    irrelevance = {row["pipeline"]: row for row in bfcl["ladder"]}
    assert irrelevance["auto"]["passed"] == 2  # text is right when no call is
    assert "| auto | ~70% | " in summary
    assert "| required+validate | ~93% | " in summary
    assert "| auto+recover | - | " in summary
    assert "\x1b" not in printed
    progress = re.findall(r"^eval: (\d+)/12 done, .* elapsed, \d+ failed$", printed, re.M)
    assert progress.count("12") == len(SOURCES)  # each source ends with its last line


def test_the_full_rungs_listed_values_can_be_chosen() -> None:
    args = _parser().parse_args(["--base-url", "http://x/v1", "--listed-values", "off"])
    assert args.listed_values == "off"
    with pytest.raises(SystemExit):
        _parser().parse_args(["--base-url", "http://x/v1", "--listed-values", "some"])
