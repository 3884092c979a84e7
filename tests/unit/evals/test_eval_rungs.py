"""The six rungs: which server each asks, what it sends, and how each reads the answer."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from toolcall_sdk.evals import LADDER, EvalSettings, build_report, parse_case, run_eval_sync
from toolcall_sdk.evals._cli import report_meta
from toolcall_sdk.evals._raw_rungs import RAW_RUNGS
from toolcall_sdk.evals._sdk_rungs import SDK_RUNGS
from toolcall_sdk.evals._seed import SEED_PASS_RATES
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

WRONG_URL = "http://wrong-parser.test/v1"
MAIN_URL = "http://scripted.test/v1"
TOOL = {
    "type": "function",
    "function": {
        "name": "get_order_status",
        "description": "Status of an order.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string", "pattern": "^ORD-\\d{5}$"}},
            "required": ["order_id"],
        },
    },
}


def case(case_id: str, content: str, order: str | None) -> Any:
    calls = [{"name": "get_order_status", "arguments": {"order_id": order}}] if order else []
    return parse_case(
        {
            "id": case_id,
            "messages": content,
            "tools": [TOOL],
            "expected": {"calls": calls},
        }
    )


CASES = [
    case("right", "ORD-00001", "ORD-00001"),  # the right parser reads this call
    case("in-text", "ORD-00002", "ORD-00002"),  # even the right parser leaves it in the text
    case("chat", "hello", None),  # no call is right
]


def in_text(order: str) -> Reply:
    """A Hermes-format call left in the content, as a parser that missed it returns it."""
    call = {"name": "get_order_status", "arguments": {"order_id": order}}
    return text(f"<tool_call>\n{json.dumps(call)}\n</tool_call>")


def main_server(request: RecordedRequest) -> Reply:
    said = str(request.messages[-1]["content"])
    if not said.startswith("ORD-"):
        if request.tool_choice == "auto":
            return text("Hello! How can I help?")
        return tool_call("get_order_status", {"order_id": "ORD-00000"})  # forced
    if said == "ORD-00002" and request.tool_choice == "auto":
        return in_text(said)
    return tool_call("get_order_status", {"order_id": said})


def wrong_parser_server(request: RecordedRequest) -> Reply:
    said = str(request.messages[-1]["content"])
    return in_text(said) if said.startswith("ORD-") else text("Hello! How can I help?")


class ByHost(httpx2.AsyncBaseTransport):
    """Sends each request to the scripted server of its URL's host."""

    def __init__(self, hosts: dict[str, httpx2.AsyncBaseTransport]) -> None:
        self.hosts = hosts

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return await self.hosts[request.url.host].handle_async_request(request)


def run(settings: EvalSettings) -> tuple[ScriptedModel, ScriptedModel, list[dict[str, Any]]]:
    main = ScriptedModel(main_server, route_answer=lambda r: "ORD-" in str(r.messages))
    wrong = ScriptedModel(wrong_parser_server)
    transport = ByHost({"scripted.test": main.transport(), "wrong-parser.test": wrong.transport()})
    records = run_eval_sync(CASES, settings, transport=transport)
    return main, wrong, records


def test_the_ladder_has_six_rungs_in_order() -> None:
    assert LADDER == (
        "auto",
        "auto+parser",
        "auto+recover",
        "required",
        "required+validate",
        "full",
    )
    assert set(LADDER) == RAW_RUNGS | SDK_RUNGS
    assert not RAW_RUNGS & SDK_RUNGS


def test_each_rung_reads_the_answers_its_own_way() -> None:
    settings = EvalSettings(base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL)
    _, _, records = run(settings)

    verdicts = {(r["case_id"], r["pipeline"]): r["verdict"] for r in records}
    assert {p: [verdicts[(c.id, p)] for c in CASES] for p in LADDER} == {
        # The wrong parser leaves every call in the text.
        "auto": ["missed_call", "missed_call", "pass"],
        # The right parser reads the first; the second stays in the text.
        "auto+parser": ["pass", "missed_call", "pass"],
        # Recovery reads it back; a text answer to a chat is still right under auto.
        "auto+recover": ["pass", "pass", "pass"],
        # Forcing a call makes one for the chat too.
        "required": ["pass", "pass", "spurious_call"],
        "required+validate": ["pass", "pass", "spurious_call"],
        # The default router lets the answer decide: the chat's text answer stands.
        "full": ["pass", "pass", "pass"],
    }
    flagged = {(r["case_id"], r["pipeline"]) for r in records if r["parser_miss"]}
    assert flagged == {
        ("right", "auto"),
        ("in-text", "auto"),
        ("in-text", "auto+parser"),
        ("in-text", "auto+recover"),
        ("in-text", "full"),
    }


def test_auto_asks_the_wrong_parser_server_and_the_others_the_main_one() -> None:
    settings = EvalSettings(base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL)
    main, wrong, _ = run(settings)

    # auto: one plain request per case, raw (no stage header), non-strict tools.
    assert len(wrong.chat_requests) == len(CASES)
    for request in wrong.chat_requests:
        assert request.stage is None
        assert request.tool_choice == "auto"
        assert "strict" not in request.json["tools"][0]["function"]  # type: ignore[index]
    auto_on_main = [r for r in main.chat_requests if r.tool_choice == "auto"]
    # auto+parser: raw; auto+recover: the SDK's call stage, plain schemas, no router; full:
    # the call stage too, the default router leaving the decision to the answer.
    assert sorted(str(r.stage) for r in auto_on_main) == ["None"] * 3 + ["call"] * 6
    for request in auto_on_main:
        assert "strict" not in request.json["tools"][0]["function"]  # type: ignore[index]
    by_case = [r.messages[-1]["content"] for r in auto_on_main if r.stage == "call"]
    assert sorted(by_case) == sorted(2 * [str(c.messages[-1]["content"]) for c in CASES])


def test_without_a_wrong_parser_server_auto_asks_the_main_one_and_the_meta_says_so() -> None:
    settings = EvalSettings(base_url=MAIN_URL, model="m")
    main, wrong, records = run(settings)

    assert wrong.chat_requests == []
    raw_auto = [r for r in main.chat_requests if r.tool_choice == "auto" and r.stage is None]
    assert len(raw_auto) == 2 * len(CASES)  # auto and auto+parser, same server
    meta = report_meta(settings, "cases.jsonl", LADDER)
    assert meta["wrong_parser_base_url"] is None
    assert meta["auto_server"] == (
        f"{MAIN_URL} (no --wrong-parser-base-url given: the same server as auto+parser, "
        "so the two rows measure the same thing)"
    )
    with_server = EvalSettings(base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL)
    assert report_meta(with_server, "x", LADDER)["auto_server"] == (
        f"{WRONG_URL} (the wrong-parser server)"
    )
    verdicts = {(r["case_id"], r["pipeline"]): r["verdict"] for r in records}
    assert [verdicts[(c.id, "auto")] for c in CASES] == ["pass", "missed_call", "pass"]


def test_an_invalid_call_recovered_under_auto_is_a_hard_fail_not_a_text_answer() -> None:
    bad = ScriptedModel(lambda request: in_text("order 2"))  # breaks the ORD-NNNNN pattern
    settings = EvalSettings(base_url=MAIN_URL, model="m")
    records = run_eval_sync(
        CASES[1:2], settings, pipelines=["auto+recover"], transport=bad.transport()
    )

    assert len(bad.chat_requests) == 1  # max_retries=0: no feedback retry
    (record,) = records
    assert record["verdict"] == "hard_fail"
    assert record["hard_kind"] == "exhausted_retries"
    assert record["field"] == "order_id"
    assert record["parser_miss"] is True


def test_every_rung_sends_the_default_token_limit() -> None:
    settings = EvalSettings(base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL)
    main, wrong, _ = run(settings)

    sent = [*main.chat_requests, *wrong.chat_requests]
    assert len(sent) >= 6 * len(CASES)  # every rung, the router's requests too
    calls = [r for r in sent if r.stage != "route"]
    assert {r.json["max_tokens"] for r in calls} == {256}  # type: ignore[index]


def test_parallel_tool_calls_reach_every_rung_and_keep_the_forced_single_tool_unnamed() -> None:
    settings = EvalSettings(
        base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL, parallel_tool_calls=True
    )
    main, wrong, _ = run(settings)

    calls = [r for r in [*main.chat_requests, *wrong.chat_requests] if r.stage != "route"]
    assert {r.json["parallel_tool_calls"] for r in calls} == {True}  # type: ignore[index]
    # One tool is offered: forced requests stay `required` rather than naming it.
    assert {str(r.tool_choice) for r in calls} == {"auto", "required"}


def test_without_parallel_tool_calls_nothing_is_sent_and_a_single_tool_is_named() -> None:
    settings = EvalSettings(base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL)
    main, wrong, _ = run(settings)

    calls = [r for r in [*main.chat_requests, *wrong.chat_requests] if r.stage != "route"]
    assert all("parallel_tool_calls" not in (r.json or {}) for r in calls)
    named = {"type": "function", "function": {"name": "get_order_status"}}
    assert named in [r.tool_choice for r in calls]


def test_the_report_puts_the_seed_figures_beside_the_matching_rungs() -> None:
    settings = EvalSettings(base_url=MAIN_URL, model="m", wrong_parser_base_url=WRONG_URL)
    _, _, records = run(settings)

    report = build_report(records)
    seeds = {row.pipeline: row.seed_pass_rate for row in report.ladder}
    assert seeds == {
        "auto": 0.70,
        "auto+parser": 0.86,
        "auto+recover": None,
        "required": None,
        "required+validate": 0.93,
        "full": 0.975,
    }
    assert dict(SEED_PASS_RATES) == {k: v for k, v in seeds.items() if v is not None}
    row = {r.pipeline: r for r in report.ladder}["full"]
    assert row.requests_per_case == 1  # the default router asks nothing of its own
    assert row.tokens_per_case > 0
    assert row.latency_p50_s >= 0
