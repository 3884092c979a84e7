"""`benchmarks/bounces.py`: right answers replayed through the `full` rung, scripted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.bounces import bounced, ground_truth, main, recorded, replay
from toolcall_sdk.evals._cases import EvalCase, ExpectedCall, load_cases

INVOICES = Path(__file__).resolve().parents[3] / "evals" / "invoices.jsonl"
# inv-002's right arguments.
RIGHT = {"customer_id": "CUS-070874", "amount_vnd": 500000, "due_date": "2027-01-31"}


@pytest.fixture(scope="module")
def case() -> EvalCase:
    """inv-002: create_invoice(CUS-070874, 500000, 2027-01-31)."""
    return next(c for c in load_cases(INVOICES, allow_code=True) if c.id == "inv-002")


def test_ground_truth_takes_the_first_value_and_leaves_out_optional_arguments() -> None:
    expected = ExpectedCall(
        "list_invoices", {"customer_id": ["CUS-000001"], "status": ["", "paid"]}
    )
    made = ground_truth(EvalCase("c", (), (), (expected,)))
    assert made == [("list_invoices", {"customer_id": "CUS-000001"})]


def test_a_right_answer_is_returned_as_right(case: EvalCase) -> None:
    answer = [("create_invoice", RIGHT)]
    record = replay(case, answer, "Qwen/Qwen2.5-Coder-0.5B-Instruct")
    assert record["verdict"] == "pass"
    assert not bounced(record)
    assert record["calls"] == [{"name": "create_invoice", "arguments": answer[0][1]}]


def test_an_answer_validation_refuses_bounces_after_every_retry(case: EvalCase) -> None:
    # The same refused answer to every request: the first and the two retries, then failed.
    answer = [("create_invoice", {**RIGHT, "customer_id": "CUS-70874"})]
    record = replay(case, answer, "Qwen/Qwen2.5-Coder-0.5B-Instruct")
    assert bounced(record)
    assert record["verdict"] == "hard_fail"
    assert record["requests"] == 3


def test_recorded_reads_the_right_parser_rungs_passes_only(tmp_path: Path) -> None:
    calls = [{"name": "create_invoice", "arguments": RIGHT}]
    rows = [
        {"case_id": "inv-002", "pipeline": "auto+parser", "verdict": "pass", "calls": calls},
        {"case_id": "inv-001", "pipeline": "auto+parser", "verdict": "wrong_args", "calls": calls},
        {"case_id": "inv-003", "pipeline": "full", "verdict": "pass", "calls": calls},
    ]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    [(found, answer)] = recorded(str(INVOICES), str(results))
    assert found.id == "inv-002"
    assert answer == [("create_invoice", RIGHT)]


def test_main_prints_the_table_and_the_cases_that_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = [{"name": "create_invoice", "arguments": RIGHT}]
    results = tmp_path / "run" / "results.jsonl"
    results.parent.mkdir()
    results.write_text(
        json.dumps(
            {"case_id": "inv-002", "pipeline": "auto+parser", "verdict": "pass", "calls": calls}
        )
        + "\n",
        encoding="utf-8",
    )
    before = tmp_path / "before.json"
    before.write_text(
        json.dumps({"run (recorded)/inv-002": {"bounced": True, "verdict": "hard_fail"}}),
        encoding="utf-8",
    )
    out = tmp_path / "now.json"
    argv = [
        "--bfcl",
        "",
        "--recorded",
        str(INVOICES),
        str(results),
        "--out",
        str(out),
        "--compare",
        str(before),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| run (recorded) | 1 | 0 | 0.0% |" in printed
    assert "run (recorded)/inv-002: hard_fail -> pass" in printed
    assert json.loads(out.read_text(encoding="utf-8"))["run (recorded)/inv-002"]["bounced"] is False
