"""`toolcall-sdk eval`: the six-rung ladder against the real model, on 8 bundled cases.

The `auto` rung asks the wrong-parser server (vLLM's hermes), the others the demo server (the
SDK's parser plugin). What is asserted is the plumbing (every rung on every case, costs,
reports, resume) and that the full pipeline passes at least as many cases as `required`;
the rates themselves are the benchmark's (benchmarks/ladder.py, docs/ladder.md)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.evals import CLASSES, LADDER
from toolcall_sdk.launcher import Server

from .conftest import MODEL

REPO = Path(__file__).resolve().parents[2]
# Invoices, order status, and cases that need no tool, with the two core tools offered
# (a shorter prompt: every case costs seconds on two CPU cores).
SLICE = {"create/basic": 3, "order/status": 2, "irrelevant": 3}


def _slice(folder: Path) -> Path:
    picked: list[dict[str, object]] = []
    wanted = dict(SLICE)
    for line in (REPO / "evals" / "invoices.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        category = case["category"]
        if wanted.get(category, 0) > 0:
            wanted[category] -= 1
            case["tools"] = f"{REPO / 'evals' / 'invoices_tools.py'}:CORE_TOOLS"
            picked.append(case)
    path = folder / "slice.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in picked), encoding="utf-8")
    return path


def test_ladder_on_the_real_model(
    demo_server: Server, hermes_server: Server, tmp_path: Path
) -> None:
    cases = _slice(tmp_path)
    total = len(cases.read_text().splitlines())
    assert total == 8
    out = tmp_path / "out"
    argv = [
        "eval",
        str(cases),
        "--allow-code",  # the bundled cases' tools are Python (invoices_tools.py)
        "--base-url",
        demo_server.base_url,
        "--wrong-parser-base-url",
        hermes_server.base_url,
        "--model",
        MODEL,
        "--out",
        str(out),
        "--concurrency",
        "4",
        # A loaded 2-core machine: an unconstrained `auto` answer can take minutes, and a
        # timed-out pair is "unfinished" (exit 1), not a result.
        "--timeout",
        "900",
        "--no-progress",
    ]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert f"Tool-calling ladder ({total} cases)" in result.output

    report = json.loads((out / "report.json").read_text())
    assert set(report) == {"meta", "cases", "ladder", "by_category", "by_tool", "records"}
    assert report["meta"]["model"] == MODEL
    assert report["meta"]["max_tokens"] == 256
    assert [row["pipeline"] for row in report["ladder"]] == list(LADDER)
    for row in report["ladder"]:
        assert row["cases"] == total
        assert sum(row["classes"].values()) == total
        assert set(row["classes"]) == set(CLASSES)
        assert row["requests"] >= total  # every case sent at least one request
        assert row["tokens"] > 0  # vLLM reports usage
        assert 0 < row["latency_p50_s"] <= row["latency_p95_s"]
    records = report["records"]
    assert len(records) == total * len(LADDER)
    assert {r["verdict"] for r in records} <= set(CLASSES)
    for record in records:
        if record["pipeline"] in ("auto", "auto+parser", "required"):
            assert record["requests"] == 1
        if record["verdict"] == "wrong_args":
            assert record["field"]
    rows = {row["pipeline"]: row for row in report["ladder"]}
    assert rows["full"]["classes"]["pass"] >= rows["required"]["classes"]["pass"], rows
    # The forced pipelines cannot answer the irrelevant cases without a call.
    forced = [
        r
        for r in records
        if r["category"] == "irrelevant" and r["pipeline"] in ("required", "required+validate")
    ]
    assert all(r["verdict"] in ("spurious_call", "hard_fail") for r in forced), forced

    markdown = (out / "report.md").read_text()
    assert "| pipeline | pass% |" in markdown
    for pipeline in LADDER:
        assert f"| {pipeline} |" in markdown
    svg = (out / "ladder.svg").read_text()
    assert svg.startswith("<svg")
    assert svg.count("<text") >= len(LADDER)

    # A rerun finds every result in place and sends nothing.
    again = CliRunner().invoke(app, argv)
    assert again.exit_code == 0, again.output
    assert f"resuming: {total * len(LADDER)} of {total * len(LADDER)}" in again.output
    assert len((out / "results.jsonl").read_text().splitlines()) == total * len(LADDER)
