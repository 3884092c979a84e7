"""The runner: bounded concurrency, deterministic order, resuming; case files; reports."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from toolcall_sdk.evals import (
    RESULTS_FILE,
    CaseFormatError,
    EvalSettings,
    build_report,
    load_cases,
    parse_case,
    run_eval,
    run_eval_sync,
    write_reports,
)
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

REPO = Path(__file__).resolve().parents[3]
TOOL = {
    "type": "function",
    "function": {
        "name": "get_order_status",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
}


def order_case(n: int) -> Any:
    return parse_case(
        {
            "id": f"case-{n}",
            "category": "odd" if n % 2 else "even",
            "messages": [{"role": "user", "content": f"ORD-{n:05d}"}],
            "tools": [TOOL],
            "expected": {
                "calls": [{"name": "get_order_status", "arguments": {"order_id": f"ORD-{n:05d}"}}]
            },
        }
    )


def echo(request: RecordedRequest) -> Reply:
    """Answers each case right, except case 3, which gets text."""
    order = request.messages[-1]["content"]
    if order == "ORD-00003":
        return text("no idea")
    return tool_call("get_order_status", {"order_id": order})


class Gate(httpx2.AsyncBaseTransport):
    """Counts requests in flight; holds earlier cases longer so they finish last."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.in_flight = 0
        self.peak = 0
        self.finished: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        order = json.loads(request.content)["messages"][-1]["content"]
        for _ in range(40 - int(order[-2:]) * 3):  # case 0 waits most
            await asyncio.sleep(0)
        response = await self.inner.handle_async_request(request)
        self.in_flight -= 1
        self.finished.append(order)
        return response


def test_concurrency_is_bounded_and_order_is_by_case() -> None:
    cases = [order_case(n) for n in range(8)]
    model = ScriptedModel(echo)
    gate = Gate(model.transport())
    settings = EvalSettings(base_url=model.base_url, model="m")
    records = run_eval_sync(
        cases, settings, pipelines=["required", "auto"], concurrency=3, transport=gate
    )
    assert gate.peak == 3
    assert gate.finished != sorted(gate.finished)  # completion order differed...
    assert [(r["case_id"], r["pipeline"]) for r in records] == [
        (f"case-{n}", p) for n in range(8) for p in ("auto", "required")
    ]  # ...yet records follow case order, then ladder order
    verdicts = {(r["case_id"], r["pipeline"]): r["verdict"] for r in records}
    assert verdicts[("case-3", "auto")] == "missed_call"
    assert sum(v == "pass" for v in verdicts.values()) == 14


def test_rerun_skips_finished_pairs(tmp_path: Path) -> None:
    cases = [order_case(n) for n in range(4)]
    model = ScriptedModel(echo)
    settings = EvalSettings(base_url=model.base_url, model="m")
    first = run_eval_sync(
        cases, settings, pipelines=["auto"], out_dir=tmp_path, transport=model.transport()
    )
    assert len(model.chat_requests) == 4
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert len(lines) == 4

    # Interrupted run: drop the last result and tear the line before it.
    kept = [*lines[:2], lines[2][:20]]
    (tmp_path / RESULTS_FILE).write_text("\n".join(kept) + "\n")
    again = ScriptedModel(echo)
    second = run_eval_sync(
        cases, settings, pipelines=["auto"], out_dir=tmp_path, transport=again.transport()
    )
    assert sorted(r.messages[-1]["content"] for r in again.chat_requests) == [
        "ORD-00002",
        "ORD-00003",
    ]
    strip = [{k: v for k, v in r.items() if k != "latency_s"} for r in second]
    assert strip == [{k: v for k, v in r.items() if k != "latency_s"} for r in first]

    idle = ScriptedModel([])  # any request would fail: everything is already done
    third = run_eval_sync(
        cases, settings, pipelines=["auto"], out_dir=tmp_path, transport=idle.transport()
    )
    assert idle.chat_requests == []
    assert [r["case_id"] for r in third] == [c.id for c in cases]


def test_unknown_pipeline_and_bad_concurrency() -> None:
    settings = EvalSettings(base_url="http://x/v1", model="m")
    with pytest.raises(ValueError, match="unknown pipeline"):
        asyncio.run(run_eval([order_case(1)], settings, pipelines=["magic"]))
    with pytest.raises(ValueError, match="concurrency"):
        asyncio.run(run_eval([order_case(1)], settings, concurrency=0))


def test_bundled_set_loads_and_is_generated() -> None:
    cases = load_cases(REPO / "evals" / "invoices.jsonl", allow_code=True)
    assert len(cases) >= 150
    assert len({t.name for t in cases[0].tools}) >= 8
    assert sum(not c.expects_call for c in cases) >= 20
    assert any(len(c.messages) > 3 for c in cases)  # multi-turn
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(REPO / "evals" / "make_invoices.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout


def test_case_format_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "a", "messages": "hi", "tools": [TOOL]}) + "\n")
    with pytest.raises(CaseFormatError, match=r"bad.jsonl:1: 'expected' is required"):
        load_cases(bad)
    bad.write_text(
        json.dumps(
            {
                "id": "a",
                "messages": "hi",
                "tools": [TOOL],
                "expected": {"calls": [{"name": "nope"}]},
            }
        )
    )
    with pytest.raises(CaseFormatError, match="expected tool 'nope' is not offered"):
        load_cases(bad)
    bad.write_text(
        json.dumps({"id": "a", "messages": "hi", "tools": "missing.py:TOOLS", "expected": []})
    )
    with pytest.raises(CaseFormatError, match="does not exist"):
        load_cases(bad, allow_code=True)
    with pytest.raises(CaseFormatError, match=r"bad.jsonl:1: .*--allow-code"):
        load_cases(bad)


def test_reports_have_the_ladder_and_the_breakdowns(tmp_path: Path) -> None:
    cases = [order_case(n) for n in range(4)]
    model = ScriptedModel(echo)
    settings = EvalSettings(base_url=model.base_url, model="m")
    records = run_eval_sync(
        cases, settings, pipelines=["auto", "required"], transport=model.transport()
    )
    report = build_report(records, {"model": "m"})
    assert [(row.pipeline, row.passed, row.cases) for row in report.ladder] == [
        ("auto", 3, 4),
        ("required", 3, 4),
    ]
    assert report.ladder[0].classes["missed_call"] == 1
    odd = next(b for b in report.by_category if b.key == "odd" and b.pipeline == "auto")
    assert (odd.cases, odd.failures, odd.top_messages) == (
        2,
        {"missed_call": 1},
        [("missed_call: answered text", 1)],
    )
    paths = write_reports(report, records, tmp_path)
    data = json.loads((tmp_path / "report.json").read_text())
    assert set(data) == {"meta", "cases", "ladder", "by_category", "by_tool", "records"}
    assert len(data["records"]) == 8
    markdown = (tmp_path / "report.md").read_text()
    assert "| auto | 75.0% |" in markdown
    assert "![ladder](ladder.svg)" in markdown
    svg = (tmp_path / "ladder.svg").read_text()
    assert svg.startswith("<svg")
    assert svg.count('class="pass"') == 2
    assert [p.name for p in paths] == ["report.json", "report.md", "ladder.svg"]


def test_sdk_pipelines_leave_transport_failures_unfinished(tmp_path: Path) -> None:
    from toolcall_sdk import RetryPolicy
    from toolcall_sdk.testing import disconnect, http_error

    slept: list[float] = []

    async def no_sleep(seconds: float) -> None:
        slept.append(seconds)

    cases = [order_case(n) for n in range(3)]
    broken = {1: http_error(503), 2: disconnect()}

    def server(request: RecordedRequest) -> Reply:
        for number, reply in broken.items():
            if f"ORD-{number:05d}" in str(request.messages):
                return reply
        return echo(request)

    model = ScriptedModel(server)
    settings = EvalSettings(
        base_url=model.base_url,
        model="m",
        router="always",
        retry=RetryPolicy(attempts=2, async_sleep=no_sleep, jitter=0.0),
    )
    unfinished: list[tuple[str, str, str]] = []

    records = run_eval_sync(
        cases,
        settings,
        pipelines=["full", "required+validate"],
        out_dir=tmp_path,
        transport=model.transport(),
        on_unfinished=lambda case, pipeline, why: unfinished.append((case.id, pipeline, why)),
    )

    assert [(r["case_id"], r["pipeline"]) for r in records] == [
        (cases[0].id, "required+validate"),
        (cases[0].id, "full"),
    ]
    assert sorted((c, p) for c, p, _ in unfinished) == sorted(
        (cases[n].id, p) for n in (1, 2) for p in ("required+validate", "full")
    )
    assert any("ServerUnavailableError" in why for _, _, why in unfinished)
    assert any("ServerConnectionError" in why for _, _, why in unfinished)
    stored = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(stored) == 2
    assert slept == [0.5] * 4


def test_a_missing_case_file_is_a_file_not_found_error_naming_the_bundled_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcall_sdk.evals import CaseFileNotFoundError

    monkeypatch.chdir(tmp_path)  # outside the checkout: the bundled file by its full path
    with pytest.raises(FileNotFoundError) as caught:
        load_cases("missing.jsonl")
    assert isinstance(caught.value, CaseFileNotFoundError)
    assert str(caught.value) == (
        "no case file at missing.jsonl; give a JSONL case file or --bfcl CATEGORY. "
        f"Bundled case files: {REPO / 'evals' / 'invoices.jsonl'}, "
        f"{REPO / 'evals' / 'multistep.jsonl'}, {REPO / 'evals' / 'shop_heldout.jsonl'}"
    )
    with pytest.raises(CaseFileNotFoundError):
        load_cases(tmp_path)  # a folder is not a case file
