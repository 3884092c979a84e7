"""Each taxonomy class, driven through the real pipelines against the scripted server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_sdk.evals import EvalCase, EvalSettings, parse_case, run_eval_sync
from toolcall_sdk.testing import Reply, ScriptedModel, http_error, text, tool_call

INVOICE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "create_invoice",
        "description": "Create an invoice for a customer.",
        "parameters": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string", "pattern": r"^CUS-\d{6}$"},
                "amount_vnd": {"type": "integer", "exclusiveMinimum": 0},
                "due_date": {"type": "string"},
            },
            "required": ["customer_id", "amount_vnd", "due_date"],
        },
    },
}
STATUS_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_order_status",
        "description": "Look up the status of an order.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
}
GOOD = {"customer_id": "CUS-000123", "amount_vnd": 1500000, "due_date": "2027-01-15"}


def invoice_case(case_id: str = "c1", **overrides: Any) -> EvalCase:
    raw: dict[str, Any] = {
        "id": case_id,
        "category": "create",
        "messages": [
            {"role": "user", "content": f"[{case_id}] bill CUS-000123 1500000 VND, due 2027-01-15"}
        ],
        "tools": [INVOICE_TOOL, STATUS_TOOL],
        "expected": {"calls": [{"name": "create_invoice", "arguments": GOOD}]},
    }
    raw.update(overrides)
    return parse_case(raw, allow_code=True)  # one test names the bundled tools module


def run(
    case: EvalCase,
    pipeline: str,
    *replies: Reply,
    router: str = "always",
    grounding: str = "default",
) -> dict[str, Any]:
    model = ScriptedModel(list(replies))
    settings = EvalSettings(base_url=model.base_url, model="m", router=router, grounding=grounding)
    [record] = run_eval_sync([case], settings, pipelines=[pipeline], transport=model.transport())
    record["_model"] = model
    return record


def test_pass_in_auto_sends_the_raw_request() -> None:
    record = run(invoice_case(), "auto", tool_call("create_invoice", GOOD, usage=(30, 12)))
    assert record["verdict"] == "pass"
    assert (record["requests"], record["prompt_tokens"], record["completion_tokens"]) == (1, 30, 12)
    [request] = record["_model"].chat_requests
    assert request.tool_choice == "auto"
    assert request.temperature == 0.0
    # The raw pipelines send the case's definitions untouched (no strict rewrite).
    assert request.tools == [INVOICE_TOOL, STATUS_TOOL]


def test_required_pipeline_forces_a_call() -> None:
    record = run(invoice_case(), "required", tool_call("create_invoice", GOOD))
    assert record["verdict"] == "pass"
    assert record["_model"].chat_requests[0].tool_choice == "required"


def test_wrong_tool() -> None:
    record = run(invoice_case(), "auto", tool_call("get_order_status", {"order_id": "ORD-1"}))
    assert record["verdict"] == "wrong_tool"
    assert record["message"] == "called get_order_status instead of create_invoice"
    assert record["tool"] == "create_invoice"


def test_wrong_args_names_the_field() -> None:
    record = run(invoice_case(), "auto", tool_call("create_invoice", {**GOOD, "amount_vnd": 15}))
    assert record["verdict"] == "wrong_args"
    assert record["field"] == "amount_vnd"
    assert record["message"] == "amount_vnd: value not accepted"
    assert record["detail"] == "amount_vnd=15; accepted: [1500000]"


def test_missing_and_unexpected_arguments_are_wrong_args() -> None:
    short = {k: v for k, v in GOOD.items() if k != "due_date"}
    assert run(invoice_case(), "auto", tool_call("create_invoice", short))["message"] == (
        "due_date: missing"
    )
    extra = {**GOOD, "note": "x"}
    assert run(invoice_case(), "auto", tool_call("create_invoice", extra))["field"] == "note"


def test_alternatives_and_optional_parameters() -> None:
    case = invoice_case(
        expected={
            "calls": [
                {
                    "name": "create_invoice",
                    "arguments": GOOD,
                    "accept": {"amount_vnd": [1500000, 1500001], "note": [""]},
                }
            ]
        }
    )
    assert run(case, "auto", tool_call("create_invoice", {**GOOD, "amount_vnd": 1500001}))[
        "verdict"
    ] == ("pass")
    assert run(case, "auto", tool_call("create_invoice", {**GOOD, "note": None}))["verdict"] == (
        "pass"
    )


def test_missed_call_and_parser_miss_in_auto() -> None:
    record = run(invoice_case(), "auto", text("I will not do that."))
    assert (record["verdict"], record["message"], record["parser_miss"]) == (
        "missed_call",
        "answered text",
        False,
    )
    leaked = (
        "<tool_call>" + json.dumps({"name": "create_invoice", "arguments": GOOD}) + "</tool_call>"
    )
    record = run(invoice_case(), "auto", text(leaked))
    assert record["verdict"] == "missed_call"
    assert record["parser_miss"] is True
    assert record["message"] == "call left in the text (parser miss)"


def test_full_recovers_the_parser_miss_and_required_validate_does_not() -> None:
    leaked = (
        "<tool_call>" + json.dumps({"name": "create_invoice", "arguments": GOOD}) + "</tool_call>"
    )
    record = run(invoice_case(), "full", text(leaked))
    assert record["verdict"] == "pass"
    assert record["parser_miss"] is True
    record = run(invoice_case(), "required+validate", text(leaked))
    assert (record["verdict"], record["message"]) == (
        "hard_fail",
        "no_tool_call: the answer has no tool call",
    )
    assert record["parser_miss"] is True  # flagged, though not recovered


def test_spurious_call() -> None:
    case = invoice_case(expected={"calls": []})
    record = run(case, "auto", tool_call("create_invoice", GOOD))
    assert record["verdict"] == "spurious_call"
    assert record["message"] == "called create_invoice when no call was needed"
    assert run(case, "auto", text("Hello!"))["verdict"] == "pass"


def test_hard_fail_unparseable_arguments() -> None:
    record = run(invoice_case(), "required", tool_call("create_invoice", '{"customer_id": '))
    assert record["verdict"] == "hard_fail"
    # Named as the SDK's pipelines name it (the problem kind, then its message).
    assert record["message"] == "invalid_json: Expecting value at character 16"
    assert record["hard_kind"] == "unparseable"


def test_hard_fail_server_error() -> None:
    record = run(invoice_case(), "auto", http_error(400, "bad request"))
    assert record["verdict"] == "hard_fail"
    assert record["message"].startswith("server error: HTTP 400")
    record = run(invoice_case(), "full", http_error(400, "bad request"))
    assert record["verdict"] == "hard_fail"
    assert record["message"].startswith("server error: RequestRejectedError")


def test_required_validate_fails_hard_on_invalid_arguments_without_retry() -> None:
    bad = {**GOOD, "customer_id": "123"}
    record = run(invoice_case(), "required+validate", tool_call("create_invoice", bad))
    assert record["verdict"] == "hard_fail"
    assert record["field"] == "customer_id"
    assert record["message"].startswith("invalid_arguments: customer_id")
    assert (record["attempts"], record["requests"]) == (1, 1)
    assert record["_model"].chat_requests[0].tool_choice == "required"


def test_full_retries_with_feedback_and_counts_requests() -> None:
    bad = {**GOOD, "customer_id": "123"}
    record = run(
        invoice_case(),
        "full",
        tool_call("create_invoice", bad),
        tool_call("create_invoice", GOOD),
        router="probe",
    )
    assert record["verdict"] == "pass"
    assert record["attempts"] == 2
    model: ScriptedModel = record["_model"]
    # The router probe, the first answer, the retry.
    assert record["requests"] == 3
    assert [r.stage for r in model.chat_requests] == ["route", "call", "call"]
    feedback = model.chat_requests[2].messages[-1]
    assert feedback["role"] == "tool"
    assert "customer_id" in feedback["content"]


def test_full_checks_grounding_as_told_the_lower_rungs_never() -> None:
    # An amount nobody gave (not a slip of the stated one, which is checked regardless):
    # every schema accepts it.
    wrong = {**GOOD, "amount_vnd": 1_600_000}
    record = run(
        invoice_case(),
        "full",
        tool_call("create_invoice", wrong),
        tool_call("create_invoice", GOOD),
        grounding="all",
    )
    assert (record["verdict"], record["attempts"]) == ("pass", 2)
    feedback = record["_model"].chat_requests[1].messages[-1]["content"]
    assert "amount_vnd: 1600000 is not a number the user gave" in feedback

    for pipeline, grounding in (("full", "off"), ("full", "default"), ("required+validate", "all")):
        record = run(
            invoice_case(), pipeline, tool_call("create_invoice", wrong), grounding=grounding
        )
        assert (record["verdict"], record["attempts"]) == ("wrong_args", 1), (pipeline, grounding)


def test_full_router_says_no_gives_missed_call() -> None:
    model = ScriptedModel([text("Sure.")], route_answer=False)
    settings = EvalSettings(base_url=model.base_url, model="m", router="probe")
    [record] = run_eval_sync(
        [invoice_case()], settings, pipelines=["full"], transport=model.transport()
    )
    assert record["verdict"] == "missed_call"
    assert [r.stage for r in model.chat_requests] == ["route", "answer"]


def test_repaired_flag() -> None:
    repairable = json.dumps({**GOOD, "amount_vnd": "1500000"})
    record = run(invoice_case(), "full", tool_call("create_invoice", repairable))
    assert record["verdict"] == "pass"
    assert record["repaired"] is True


def test_parallel_calls_match_in_any_order() -> None:
    from toolcall_sdk.testing import parallel

    second = {**GOOD, "customer_id": "CUS-000999"}
    case = invoice_case(
        expected={
            "calls": [
                {"name": "create_invoice", "arguments": GOOD},
                {"name": "create_invoice", "arguments": second},
            ]
        }
    )
    reply = parallel(tool_call("create_invoice", second), tool_call("create_invoice", GOOD))
    assert run(case, "auto", reply)["verdict"] == "pass"
    one = run(case, "auto", tool_call("create_invoice", GOOD))
    assert (one["verdict"], one["message"]) == ("wrong_tool", "1 call(s) instead of 2")


@pytest.mark.parametrize("pipeline", ["auto", "required", "required+validate", "full"])
def test_every_pipeline_passes_a_right_answer(pipeline: str) -> None:
    assert run(invoice_case(), pipeline, tool_call("create_invoice", GOOD))["verdict"] == "pass"


def test_raw_pipelines_send_plain_auto_and_strict_required() -> None:
    from pathlib import Path

    from toolcall_sdk.evals import resolve_tools

    toolbox = Path(__file__).resolve().parents[3] / "evals" / "invoices_tools.py"
    case = invoice_case(tools=[f"{toolbox}:CORE_TOOLS"])
    assert [t.name for t in case.tools] == ["create_invoice", "get_order_status"]
    assert case.tools == resolve_tools(f"{toolbox}:CORE_TOOLS", allow_code=True)  # imported once
    auto = run(case, "auto", tool_call("create_invoice", GOOD))["_model"].chat_requests[0]
    forced = run(case, "required", tool_call("create_invoice", GOOD))["_model"].chat_requests[0]
    assert all("strict" not in t["function"] for t in auto.tools or [])
    assert all(t["function"]["strict"] is True for t in forced.tools or [])
