"""Multi-step tasks: the case format, the scorer, the agent-loop pipelines, the bundled set."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk.evals import (
    CaseFormatError,
    EvalSettings,
    MadeCall,
    PipelineOutcome,
    build_report,
    load_cases,
    parse_case,
    run_eval_sync,
)
from toolcall_sdk.evals._agent_score import answer_holds, chain_progress, score_agent
from toolcall_sdk.evals._runner import check_kinds, default_pipelines
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

REPO = Path(__file__).resolve().parents[3]
MULTISTEP = REPO / "evals" / "multistep.jsonl"


def _tool(name: str, parameter: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} by {parameter}",
            "parameters": {
                "type": "object",
                "properties": {parameter: {"type": "string"}},
                "required": [parameter],
            },
        },
    }


def email_task(**agent: Any) -> Any:
    return parse_case(
        {
            "id": "email",
            "messages": "What is Acme's email?",
            "tools": [_tool("find_customer", "name"), _tool("get_customer", "customer_id")],
            "expected": {
                "calls": [
                    {"name": "find_customer", "arguments": {"name": "Acme"}},
                    {"name": "get_customer", "arguments": {"customer_id": "CUS-104201"}},
                ]
            },
            "agent": {"max_steps": 4, "answer": ["billing@acme.example"], **agent},
        }
    )


FIND = MadeCall("find_customer", {"name": "Acme"})
GET = MadeCall("get_customer", {"customer_id": "CUS-104201"})


def outcome(*calls: MadeCall, content: str | None = None, **fields: Any) -> PipelineOutcome:
    return PipelineOutcome(calls=list(calls), content=content, **fields)


# The case format


def test_an_agent_object_makes_a_multi_step_task() -> None:
    case = email_task(answer=["billing@acme.example", ["4800000", "4.8 million"]])

    assert case.agent is not None
    assert case.agent.max_steps == 4
    assert case.agent.answer == (("billing@acme.example",), ("4800000", "4.8 million"))
    assert "agent" not in case.extra
    assert parse_case({**_raw_single(), "id": "plain"}).agent is None


def _raw_single() -> dict[str, Any]:
    return {
        "id": "x",
        "messages": "hi",
        "tools": [_tool("find_customer", "name")],
        "expected": {"calls": []},
    }


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("five", "'agent' must be an object"),
        ({"max_steps": 1}, "'agent.max_steps' must be an integer of 2 or more"),
        ({"max_steps": True}, "'agent.max_steps' must be an integer of 2 or more"),
        ({"answer": "x"}, "'agent.answer' must be a list of facts"),
        ({"answer": [[]]}, "each 'agent.answer' fact is a non-empty string or a list of them"),
        ({"answer": [" "]}, "each 'agent.answer' fact is a non-empty string or a list of them"),
        ({"steps": 3}, "unknown 'agent' key(s) ['steps']"),
    ],
)
def test_a_bad_agent_object_is_refused(agent: Any, message: str) -> None:
    raw = {**_raw_single(), "expected": {"calls": [{"name": "find_customer"}]}, "agent": agent}
    with pytest.raises(CaseFormatError, match="^src: " + re.escape(message)):
        parse_case(raw, source="src")


def test_a_multi_step_task_needs_expected_calls() -> None:
    with pytest.raises(CaseFormatError, match="needs expected calls"):
        parse_case({**_raw_single(), "agent": {}})


# The scorer


@pytest.mark.parametrize(
    ("answer", "fact", "holds"),
    [
        ("It is 4,800,000 VND.", "4800000", True),
        ("It is 4.800.000 đồng", "4800000", True),
        ("It is 4 800 000 VND", "4800000", True),
        ("It is 14800000 VND", "4800000", False),
        ("It is 48000000 VND", "4800000", False),
        ("That is 100.00 USD", "100", True),
        ("That is 1000 USD", "100", False),
        ("Write to BILLING@acme.example.", "billing@acme.example", True),
        ("Write to billing@acme", "billing@acme.example", False),
    ],
)
def test_a_fact_is_found_however_the_number_is_grouped(answer: str, fact: str, holds: bool) -> None:
    assert answer_holds(answer, [fact]) is holds


def test_the_chain_counts_calls_in_order_only() -> None:
    case = email_task()

    assert chain_progress(case.expected, [FIND, GET]) == 2
    assert chain_progress(case.expected, [GET, FIND]) == 1
    assert (
        chain_progress(case.expected, [FIND, MadeCall("get_customer", {"customer_id": "x"})]) == 1
    )
    # Other calls between the links do not break the chain.
    assert chain_progress(case.expected, [FIND, FIND, MadeCall("other", {}), GET]) == 2


def test_a_run_passes_with_the_chain_in_order_and_the_fact_in_the_answer() -> None:
    verdict = score_agent(email_task(), outcome(FIND, GET, content="billing@acme.example"))
    assert verdict.verdict == "pass"


@pytest.mark.parametrize(
    ("made", "content", "verdict", "message"),
    [
        ([FIND], "I don't know", "missed_call", "get_customer never ran"),
        ([], "Hello", "missed_call", "find_customer never ran"),
        (
            [FIND, MadeCall("get_customer", {"customer_id": "CUS-000001"})],
            "x",
            "wrong_args",
            "customer_id: value not accepted",
        ),
        ([GET, FIND], "billing@acme.example", "wrong_tool", "get_customer ran before the call"),
        ([FIND, GET], "It is acme@example.com", "wrong_answer", "the answer lacks a fact"),
        ([FIND, GET], None, "wrong_answer", "no text answer"),
    ],
)
def test_what_is_missing_first_names_the_class(
    made: list[MadeCall], content: str | None, verdict: str, message: str
) -> None:
    got = score_agent(email_task(), outcome(*made, content=content))
    assert got.verdict == verdict
    assert got.message.startswith(message)


def test_a_run_that_stopped_is_a_hard_fail_naming_the_next_link() -> None:
    stopped = outcome(FIND, hard_error="MaxStepsExceeded: ...", hard_kind="max_steps")
    got = score_agent(email_task(), stopped)
    assert (got.verdict, got.message, got.tool) == (
        "hard_fail",
        "MaxStepsExceeded: ...",
        "get_customer",
    )


# The pipelines, against the scripted model


def back_office(request: RecordedRequest) -> Reply:
    """A model that does the task right: look up, look up again, answer."""
    last = request.messages[-1]
    if last["role"] != "tool":
        return tool_call("find_customer", {"name": "Acme"})
    if "customer_id" in last["content"] and "email" not in last["content"]:
        return tool_call("get_customer", {"customer_id": "CUS-104201"})
    return text("Acme's email is billing@acme.example.")


class Route:
    """A router probe's answer: call while no email address has come back."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, request: RecordedRequest) -> bool:
        self.asked += 1
        return "@acme" not in json.dumps(request.messages)


def toolbox_task() -> Any:
    """The email task with Python tools that answer as the bundled toolbox does."""
    return parse_case(
        {
            "id": "ms-001",
            "messages": "What is Acme's email?",
            "tools": "multistep_tools.py:TOOLS",
            "expected": {
                "calls": [
                    {"name": "find_customer", "arguments": {"name": "Acme"}},
                    {"name": "get_customer", "arguments": {"customer_id": "CUS-104201"}},
                ]
            },
            "agent": {"max_steps": 4, "answer": ["billing@acme.example"]},
        },
        base_dir=REPO / "evals",
        allow_code=True,
    )


@pytest.mark.parametrize(
    ("pipeline", "router", "requests", "routes"),
    [
        # A hand-written loop: one request per step, no router.
        ("raw-loop", "llm", 3, [None, None, None]),
        # The SDK's loop, a routing question at every step: it says "call", "call", then
        # "no tool" (a plain answer, asked without tools).
        ("agent", "probe", 6, [True, True, False]),
        # The question at the first step only: the later steps' stage 2 decides.
        ("agent-route-first", "probe", 4, [True, None, None]),
        # The default router asks no question: each step's answer under auto decides (the
        # trace leaves `route` empty, as for a step no router decided).
        ("agent", "llm", 3, [None, None, None]),
        # No router at all: the first step forced, the later ones under auto.
        ("agent", "always", 3, [None, None, None]),
    ],
)
def test_each_agent_pipeline_runs_the_task_to_its_answer(
    pipeline: str, router: str, requests: int, routes: list[bool | None]
) -> None:
    route = Route()
    model = ScriptedModel(back_office, route_answer=route)
    settings = EvalSettings(base_url="http://scripted/v1", model="scripted", router=router)

    [record] = run_eval_sync(
        [toolbox_task()], settings, pipelines=[pipeline], transport=model.transport()
    )

    assert (record["verdict"], record["steps"], record["requests"]) == ("pass", 3, requests)
    assert [step["route"] for step in record["trace"]] == routes
    assert [step["needed"] for step in record["trace"]] == [True, True, False]
    assert [[c["name"] for c in step["calls"]] for step in record["trace"]] == [
        ["find_customer"],
        ["get_customer"],
        [],
    ]
    assert record["calls"] == [
        {"name": "find_customer", "arguments": {"name": "Acme"}},
        {"name": "get_customer", "arguments": {"customer_id": "CUS-104201"}},
    ]
    chats = [r for r in model.chat_requests if r.stage != "route"]
    assert all(r.json is not None and r.json["temperature"] == 0 for r in chats)
    if pipeline == "raw-loop":
        assert [r.tool_choice for r in chats] == ["auto", "auto", "auto"]
        # The tool results went back as the functions returned them.
        assert chats[1].messages[-1]["content"] == '{"customer_id": "CUS-104201"}'


def test_the_raw_loop_reports_a_failing_tool_to_the_model_and_goes_on() -> None:
    replies = iter(
        [
            tool_call("find_customer", {"nom": "Acme"}),  # not the function's parameter
            tool_call("find_customer", {"name": "Acme"}),
            tool_call("get_customer", {"customer_id": "CUS-104201"}),
            text("billing@acme.example"),
        ]
    )
    model = ScriptedModel(lambda request: next(replies))
    settings = EvalSettings(base_url="http://scripted/v1", model="scripted")

    [record] = run_eval_sync(
        [toolbox_task()], settings, pipelines=["raw-loop"], transport=model.transport()
    )

    assert (record["verdict"], record["steps"]) == ("pass", 4)
    assert model.chat_requests[1].messages[-1]["content"].startswith("error: TypeError: ")


def test_a_raw_loop_still_calling_at_max_steps_is_a_hard_fail() -> None:
    model = ScriptedModel(lambda request: tool_call("find_customer", {"name": "Acme"}))
    settings = EvalSettings(base_url="http://scripted/v1", model="scripted")

    [record] = run_eval_sync(
        [toolbox_task()], settings, pipelines=["raw-loop"], transport=model.transport()
    )

    assert (record["verdict"], record["hard_kind"], record["steps"]) == (
        "hard_fail",
        "max_steps",
        4,
    )
    assert len(model.chat_requests) == 4


def test_the_sdk_loop_does_not_run_a_repeated_call_again_and_stops_an_endless_repeat() -> None:
    model = ScriptedModel(lambda request: tool_call("find_customer", {"name": "Acme"}))
    settings = EvalSettings(base_url="http://scripted/v1", model="scripted", router="always")

    [record] = run_eval_sync(
        [toolbox_task()], settings, pipelines=["agent"], transport=model.transport()
    )

    # Step 2 repeats step 1's call: it is not run again, the model is asked to answer
    # without tools, answers with the call once more, and the run stops: a loop, not a
    # success with no answer.
    assert record["verdict"] == "hard_fail"
    assert record["hard_kind"] == "loop"
    assert record["detail"].startswith("LoopDetected: the model called find_customer")
    assert record["steps"] == 1
    assert record["calls"] == [{"name": "find_customer", "arguments": {"name": "Acme"}}]


def test_the_report_counts_steps_per_case() -> None:
    model = ScriptedModel(back_office, route_answer=Route())
    settings = EvalSettings(base_url="http://scripted/v1", model="scripted", router="always")

    records = run_eval_sync(
        [toolbox_task()], settings, pipelines=["raw-loop", "agent"], transport=model.transport()
    )
    report = build_report(records)

    assert [(row.pipeline, row.steps_per_case, row.pass_rate) for row in report.ladder] == [
        ("raw-loop", 3.0, 1.0),
        ("agent", 3.0, 1.0),
    ]
    assert report.ladder[0].classes["wrong_answer"] == 0


def test_pipelines_and_cases_of_the_other_kind_are_refused() -> None:
    task, single = toolbox_task(), parse_case(_raw_single())

    with pytest.raises(ValueError, match="'ms-001' is a multi-step task, and full judges one step"):
        check_kinds([task], ["full"])
    with pytest.raises(ValueError, match="'x' is a single-step case, and agent runs multi-step"):
        check_kinds([single], ["agent"])
    assert default_pipelines([task]) == ["raw-loop", "agent", "agent-route-first"]
    assert default_pipelines([task, single])[0] == "auto"


# The bundled set


def test_the_bundled_set_is_what_its_generator_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "evals" / "make_multistep.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_bundled_task_is_a_chain_the_fakes_answer() -> None:
    """Replaying each task's expected calls through its toolbox: after the first call, every
    id or amount a call takes is in the result before it and not in the prompt (so the model
    must read that result), and the last result holds each fact."""
    cases = load_cases(MULTISTEP, allow_code=True)
    assert len(cases) >= 30
    for case in cases:
        assert case.agent is not None
        assert 2 <= len(case.expected) <= 3, case.id
        tools = {t.name: t for t in case.tools}
        prompt = json.dumps(list(case.messages))
        seen = ""
        for number, link in enumerate(case.expected):
            arguments = {k: v[0] for k, v in link.accept.items() if v[0] != ""}
            for value in arguments.values():
                dependent = isinstance(value, int) or str(value).startswith(("CUS-", "INV-"))
                if number and dependent:
                    assert str(value) not in prompt, (case.id, value)
                    assert str(value) in seen, (case.id, value)
            output = tools[link.name](**arguments)
            seen = json.dumps(output)
        for spellings in case.agent.answer:
            assert answer_holds(seen, spellings), (case.id, spellings, seen)
