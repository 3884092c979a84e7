"""`toolcall-sdk eval compare RUN_A RUN_B`: two real run folders, made by the eval runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.unit.evals._recorded import ORDER, WEATHER, answer, user_text
from toolcall_sdk.cli import app
from toolcall_sdk.evals import (
    EvalSettings,
    build_report,
    load_cases,
    run_eval_sync,
    write_reports,
)
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, tool_call

PIPELINES = ["required", "full"]


def case(case_id: str, user: str, *calls: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": case_id,
        "category": calls[0]["name"] if calls else "no_call",
        "messages": [{"role": "user", "content": user}],
        "tools": [WEATHER, ORDER],
        "expected": {"calls": list(calls)},
    }


CASES = [
    case("paris", "Weather in Paris?", {"name": "get_weather", "arguments": {"city": "Paris"}}),
    case(
        "ord-1",
        "Where is order ORD-12345?",
        {"name": "get_order_status", "arguments": {"order_id": "ORD-12345"}},
    ),
    case(
        "ord-2",
        "Where is order ORD-54321?",
        {"name": "get_order_status", "arguments": {"order_id": "ORD-54321"}},
    ),
    case("thanks", "Thanks, that's all!"),
]


def before(request: RecordedRequest) -> Reply:
    """Drops a digit of the second order id (wrong_args there)."""
    if "ORD-54321" in user_text(request):
        return tool_call("get_order_status", {"order_id": "ORD-5432"})
    return answer(request)


def after(request: RecordedRequest) -> Reply:
    """Gets the order right, and writes the city in lower case (wrong_args there)."""
    if "Paris" in user_text(request):
        return tool_call("get_weather", {"city": "paris"})
    return answer(request)


def make_run(folder: Path, model: ScriptedModel, name: str, cases_file: Path) -> Path:
    """A run folder as `toolcall-sdk eval` writes it, through the runner and report writer."""
    settings = EvalSettings(base_url="http://127.0.0.1:8000/v1", model=name)
    cases = load_cases(cases_file)
    records = run_eval_sync(
        cases, settings, pipelines=PIPELINES, out_dir=folder, transport=model.transport()
    )
    meta = {"model": name, "cases": cases_file.name, "pipelines": ",".join(PIPELINES)}
    write_reports(build_report(records, meta), records, folder)
    return folder


def two_runs(folder: Path) -> tuple[Path, Path]:
    cases_file = folder / "cases.jsonl"
    cases_file.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    run_a = make_run(folder / "runs" / "before", ScriptedModel(before), "qwen-7b", cases_file)
    run_b = make_run(folder / "runs" / "after", ScriptedModel(after), "qwen-7b-ft", cases_file)
    return run_a, run_b


def compare(*argv: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["eval", "compare", *argv], env={"COLUMNS": "160"})
    return result.exit_code, result.output


def plain_lines(output: str) -> str:
    return "\n".join(line.rstrip() for line in output.splitlines())


def test_compare_shows_rates_classes_regressions_and_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    two_runs(tmp_path)

    code, output = compare("runs/before", "runs/after")

    assert code == 0, output
    assert "A: runs/before  model qwen-7b, cases cases.jsonl, pipelines required,full" in output
    assert "changed: model qwen-7b -> qwen-7b-ft" in output
    rows = {line.split()[1]: line.split("│") for line in output.splitlines() if "pts" in line}
    full = [cell.strip() for cell in rows["full"]]
    # pipeline, cases, pass% A, pass% B, change, wrong_tool, wrong_args, hard_fail, ...
    assert full[1:9] == ["full", "4", "75.0%", "75.0%", "+0.0 pts", "0 -> 0", "0 -> 1", "1 -> 0"]
    required = [cell.strip() for cell in rows["required"]]
    # `required` forces a call on the thanks too: a spurious call on both sides.
    assert required[3:5] == ["50.0%", "50.0%"]
    assert required[10] == "1 -> 1"
    assert "Regressed: passed in A, not in B (2)" in output
    assert "Fixed: not passed in A, passed in B (2)" in output
    regressed = output.split("Regressed")[1].split("Fixed")[0]
    assert 'get_weather(city="Paris")' in regressed
    assert "wrong_args: city: value not accepted" in regressed
    assert 'get_weather(city="paris")' in regressed
    fixed = output.split("Fixed")[1]
    assert 'get_order_status(order_id="ORD-5432")' in fixed
    assert "wrong_args: order_id: value not accepted" in fixed  # required: no validation
    assert "hard_fail: invalid_arguments: order_id: String should match pattern" in fixed
    assert 'get_order_status(order_id="ORD-54321")' in fixed
    assert plain_lines(output).endswith("2 regressed, 2 fixed over 8 shared (case, pipeline) pairs")


def test_fail_on_regression_exits_1_exactly_when_a_case_regressed(tmp_path: Path) -> None:
    run_a, run_b = two_runs(tmp_path)

    assert compare(str(run_a), str(run_b), "--fail-on-regression")[0] == 1
    assert compare(str(run_a), str(run_b))[0] == 0
    code, output = compare(str(run_a), str(run_a), "--fail-on-regression")
    assert code == 0, output
    assert "0 regressed, 0 fixed" in output
    assert "Regressed" not in output


def test_pairs_in_one_run_only_are_counted_not_compared(tmp_path: Path) -> None:
    run_a, run_b = two_runs(tmp_path)
    report = json.loads((run_b / "report.json").read_text())
    report["records"] = [r for r in report["records"] if r["case_id"] != "paris"]
    report["records"].append({**report["records"][0], "case_id": "new", "pipeline": "auto"})
    (run_b / "report.json").write_text(json.dumps(report))

    code, output = compare(str(run_a), str(run_b), "--fail-on-regression")

    assert code == 0, output  # the Paris regressions went with its records
    assert "only in A: 2 (case, pipeline) pair(s) (required 1, full 1)" in output
    assert "only in B: 1 (case, pipeline) pair(s) (auto 1)" in output
    assert "0 regressed, 2 fixed over 6 shared" in output


def test_a_folder_that_is_not_a_run_exits_2(tmp_path: Path) -> None:
    run_a, _ = two_runs(tmp_path)
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "results.jsonl").write_text("{}\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "report.json").write_text('{"ladder": []}')
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "report.json").write_text("{")

    for folder, message in [
        (tmp_path / "nowhere", "is not a folder: give the --out folder of an eval run"),
        (tmp_path, "is not an eval run (no report.json)"),
        (unfinished, "holds results but no report.json: the run did not finish"),
        (other, "is not an eval report (no 'ladder' and 'records')"),
        (broken, "cannot be read as JSON"),
    ]:
        code, output = compare(str(run_a), str(folder))
        assert code == 2, output
        assert output.startswith("error: ")
        assert message in output
        assert "Traceback" not in output


def test_eval_itself_is_unchanged_by_its_compare_word(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "compare", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "Usage: toolcall-sdk eval compare [OPTIONS]" in result.output
    assert "--fail-on-regression" in result.output
    assert "--base-url" not in result.output

    result = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "80"})
    assert "Usage: toolcall-sdk eval [OPTIONS] [CASES]..." in result.output
    assert "toolcall-sdk eval compare RUN_A RUN_B" in result.output

    # A case file called `compare` is still a case file when its path says so.
    out = str(tmp_path / "out")
    result = CliRunner().invoke(app, ["eval", "./compare", "--model", "m", "--out", out])
    assert result.exit_code == 2
    assert "no case file at ./compare" in result.output


def test_compare_reads_what_the_eval_command_writes(tmp_path: Path) -> None:
    cases_file = tmp_path / "cases.jsonl"
    cases_file.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    runs = []
    for name, script in (("before", before), ("after", after)):
        out = tmp_path / name
        with ScriptedModel(script).serve() as base_url:
            argv = ["eval", str(cases_file), "--base-url", base_url, "--out", str(out)]
            result = CliRunner().invoke(app, [*argv, "--no-progress", "-p", "full"])
        assert result.exit_code == 0, result.output
        runs.append(str(out))

    code, output = compare(*runs, "--fail-on-regression")

    assert code == 1, output
    assert "changed: base_url http://127.0.0.1:" in output  # two servers, two ports
    assert "1 regressed, 1 fixed over 4 shared (case, pipeline) pairs" in output
