"""`benchmarks/demonstrations.py` against a scripted server that calls right only when shown
demonstrations: the halves, the requests of each run, and the table it prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.demonstrations import CASES, halves, main
from toolcall_sdk import ExampleBank
from toolcall_sdk.evals._runner import run_eval_sync
from toolcall_sdk.evals._settings import EvalSettings, describe_settings
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

RAW = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]


def asked(messages: list[dict[str, Any]]) -> str:
    return str(next(m["content"] for m in reversed(messages) if m["role"] == "user"))


EXPECTED = {asked(case["messages"]): case["expected"]["calls"] for case in RAW}


def shown(request: RecordedRequest) -> list[str]:
    """The user turns of the demonstrations in a request."""
    demo_ids = {
        m["tool_call_id"]
        for m in request.messages
        if str(m.get("tool_call_id")).startswith("demo_")
    }
    return [
        m["content"]
        for m, after in zip(request.messages, request.messages[1:], strict=False)
        if m["role"] == "user" and any(c["id"] in demo_ids for c in after.get("tool_calls") or ())
    ]


def right_when_shown(request: RecordedRequest) -> Reply:
    """The expected call when the request holds demonstrations; otherwise an evasive text."""
    calls = EXPECTED[asked(request.messages)]
    if not calls:
        return text("I can only help with invoices.")
    if not shown(request):
        return text("Could you say that again?")
    [call] = calls
    arguments = dict(call.get("arguments") or {})
    for key, values in (call.get("accept") or {}).items():
        if key not in arguments and "" not in values:
            arguments[key] = values[0]
    return tool_call(call["name"], arguments)


def test_the_halves_alternate_and_never_share_a_case() -> None:
    examples, scored = halves(CASES)
    swapped_examples, swapped_scored = halves(CASES, swap=True)

    assert [c["id"] for c in examples] == [c["id"] for c in RAW[0::2]]
    assert [c.id for c in scored] == [c["id"] for c in RAW[1::2]]
    assert [c["id"] for c in swapped_examples] == [c.id for c in scored]
    assert [c.id for c in swapped_scored] == [c["id"] for c in examples]


def test_the_benchmark_runs_full_without_then_with_demonstrations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel(right_when_shown)
    out = tmp_path / "demonstrations.json"

    with model.serve() as base_url:
        argv = ["--base-url", base_url, "--model", "m", "--cases", "60", "--similarity", "tfidf"]
        assert main([*argv, "--out", str(out)]) == 0

    requests = model.calls_for("call")
    scored = [c["messages"] for c in RAW[:60][1::2]]
    assert len(requests) == 2 * len(scored)  # one request per case and run
    without, with_ = requests[: len(scored)], requests[len(scored) :]
    assert not any(shown(r) for r in without)
    for request in with_:
        demonstrations = shown(request)
        assert 1 <= len(demonstrations) <= 3
        # Drawn from the other half only: never the scored case itself.
        assert asked(request.messages) not in demonstrations
        assert set(demonstrations) <= {asked(c["messages"]) for c in RAW[:60][0::2]}
    written = json.loads(out.read_text())
    rows = written["table"]
    assert rows["without/all"]["pass"] == 0
    assert rows["with/all"]["pass"] == rows["with/all"]["cases"] == len(scored)
    assert (
        rows["with/all"]["prompt_tokens_per_case"] > rows["without/all"]["prompt_tokens_per_case"]
    )
    assert set(rows) >= {"with/create/basic", "without/order/status"}
    printed = capsys.readouterr().out
    assert "| category | without | with | diff | prompt tokens/case without | with |" in printed
    assert (
        f"| **all** | 0/{len(scored)} | {len(scored)}/{len(scored)} | +{len(scored)} |" in printed
    )
    assert "prompt tokens added per case: +" in printed
    assert "latency with: p50" in printed


def test_only_the_full_rung_gets_the_settings_examples_and_the_report_says_so() -> None:
    examples, scored = halves(CASES, limit=8)
    bank = ExampleBank(examples, similarity="tfidf")
    model = ScriptedModel(right_when_shown)
    settings = EvalSettings(base_url="http://scripted/v1", model="m", examples=bank)

    records = run_eval_sync(
        scored, settings, pipelines=["required+validate", "full"], transport=model.transport()
    )

    verdicts = {(r["case_id"], r["pipeline"]): r["verdict"] for r in records}
    assert {v for (_, p), v in verdicts.items() if p == "full"} == {"pass"}
    assert "pass" not in {v for (_, p), v in verdicts.items() if p == "required+validate"}
    assert sum(bool(shown(r)) for r in model.calls_for("call")) == len(scored)
    assert describe_settings(settings)["examples"] == repr(bank)
    assert describe_settings(EvalSettings(base_url="http://x/v1", model="m"))["examples"] is None
