"""`toolcall-sdk eval` end to end against the scripted model served over real HTTP."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

REPO = Path(__file__).resolve().parents[3]


def answer(request: RecordedRequest) -> Reply:
    """Calls get_order_status with the order id the user wrote; text when not forced."""
    words = str(request.messages[-1]["content"]).replace("?", " ").split()
    ids = [w for w in words if w.startswith("ORD-")]
    if not ids and request.tool_choice == "required":  # forced: a call it should not make
        ids = ["ORD-00000"]
    if not ids:
        return text("Happy to help.")
    return tool_call("get_order_status", {"order_id": ids[0]})


def test_eval_prints_the_ladder_and_writes_reports(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    # Three order-status cases and two irrelevant ones from the bundled set.
    lines = (REPO / "evals" / "invoices.jsonl").read_text(encoding="utf-8").splitlines()
    picked = [json.loads(x) for x in lines if '"order/status"' in x][:3]
    picked += [json.loads(x) for x in lines if '"irrelevant"' in x][:2]
    cases.write_text("".join(json.dumps(c) + "\n" for c in picked), encoding="utf-8")
    shutil.copy(REPO / "evals" / "invoices_tools.py", tmp_path / "invoices_tools.py")
    out = tmp_path / "out"
    model = ScriptedModel(answer, route_answer=lambda r: "ORD-" in str(r.messages))

    with model.serve() as base_url:
        argv = ["eval", str(cases), "--base-url", base_url, "--out", str(out), "--no-progress"]
        result = CliRunner().invoke(app, [*argv, "--concurrency", "3"])
        assert result.exit_code == 0, result.output
        requests_first = len(model.chat_requests)
        rerun = CliRunner().invoke(app, argv)
        assert rerun.exit_code == 0, rerun.output

    assert "Tool-calling ladder (5 cases)" in result.output
    for pipeline in ("auto", "required", "required+validate", "full"):
        assert pipeline in result.output
    assert "resuming: 20 of 20" in rerun.output
    assert len(model.chat_requests) == requests_first  # nothing ran again

    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["model"] == "scripted"  # from GET /v1/models
    ladder = {row["pipeline"]: row for row in report["ladder"]}
    # The forced pipelines call a tool on the irrelevant cases; the routed one does not.
    assert ladder["required"]["classes"]["spurious_call"] == 2
    assert ladder["required+validate"]["classes"]["spurious_call"] == 2
    assert ladder["auto"]["passed"] == 5
    assert ladder["full"]["classes"]["spurious_call"] == 0
    order_ids = [c["expected"][0]["accept"]["order_id"][0] for c in report["records"][:12:4]]
    assert all(i.startswith("ORD-") for i in order_ids)
    by_case = {(r["case_id"], r["pipeline"]): r["verdict"] for r in report["records"]}
    assert by_case[(picked[3]["id"], "auto")] == "pass"
    assert (out / "report.md").read_text().count("| full |") == 1
    assert (out / "ladder.svg").exists()


def test_eval_rejects_bad_options(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "m", "--pipeline", "magic"])
    assert result.exit_code == 2
    assert "unknown pipeline" in result.output
    result = CliRunner().invoke(app, ["eval", "--model", "m"])
    assert result.exit_code == 2
    assert "give a case file" in result.output
