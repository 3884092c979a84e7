"""`toolcall-sdk cases review`: recorded traffic in, eval cases out, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.unit.evals._recorded import (
    ORDER,
    WEATHER,
    answer,
    bad_order,
    entry,
    order_call,
    read_cases,
    weather_call,
    write_traffic,
)
from toolcall_sdk.cli import app
from toolcall_sdk.evals import load_cases
from toolcall_sdk.testing import ScriptedModel


def review(folder: Path, out: Path, *extra: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["cases", "review", str(folder), "--out", str(out), *extra], input=input
    )
    return result.exit_code, result.output


def mixed_traffic(folder: Path) -> None:
    """Two files as the recorder rotates them; the current one ends in a torn line."""
    write_traffic(
        folder,
        [
            entry(1, "Weather in Paris?", "called", calls=[weather_call("Paris")]),
            entry(2, "Where is order ORD-12345?", "called", calls=[order_call("ORD-12345")]),
        ],
        name="traffic-20261201T100500Z-1.jsonl",
    )
    path = write_traffic(
        folder,
        [
            entry(3, "Weather in Hanoi for 3 days", "called", calls=[weather_call("Hanoi", 3)]),
            entry(
                4,
                "Where is order ORD-1234?",
                "failed",
                problems=[bad_order("ORD-1234")],
                failure_class="validation",
            ),
            entry(5, "Thanks, that's all!", "answered", content="You're welcome!"),
        ],
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"version": 1, "id": "ff')  # the recorder was stopped mid-write


def test_accept_validated_writes_cases_that_eval_runs_without_allow_code(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    mixed_traffic(traffic)

    code, output = review(traffic, cases, "--accept", "validated")

    assert code == 0, output
    assert "read 5 entries from 2 file(s)" in output
    assert "1 torn last line(s) left out" in output
    assert "wrote 3 case(s)" in output
    assert "1 failed or errored" in output
    assert "1 answered (--accept answered takes them)" in output
    written = {case["id"]: case for case in read_cases(cases)}
    assert sorted(written) == ["rec-015e1f0c", "rec-025e1f0c", "rec-035e1f0c"]
    paris = written["rec-015e1f0c"]
    assert paris["category"] == "get_weather"
    assert paris["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    assert paris["tools"] == [WEATHER, ORDER]  # inline JSON, as offered
    # The recorder dumps the validated call whole: the optional `days` it never sent is null,
    # and may be left out as well.
    assert paris["expected"] == {
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Paris"}, "accept": {"days": [None, ""]}}
        ]
    }
    assert written["rec-035e1f0c"]["expected"]["calls"][0]["arguments"] == {
        "city": "Hanoi",
        "days": 3,
    }
    assert paris["recorded"] == {
        "entry": "015e1f0c9a2b7d4e8f6a3c1b0d9e",
        "time": "2026-12-01T10:01:00.000000+00:00",
        "source": "client",
        "operation": "call",
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "status": "called",
        "failure_class": None,
        "count": 1,
        "decision": "validated",
    }
    assert [c.id for c in load_cases(cases)] == sorted(written)  # no --allow-code needed

    model = ScriptedModel(answer)
    out = tmp_path / "run"
    with model.serve() as base_url:
        result = CliRunner().invoke(
            app,
            ["eval", str(cases), "--base-url", base_url, "--out", str(out), "--no-progress"],
        )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    full = {r["case_id"]: r["verdict"] for r in report["records"] if r["pipeline"] == "full"}
    assert full == {"rec-015e1f0c": "pass", "rec-025e1f0c": "pass", "rec-035e1f0c": "wrong_args"}
    assert report["by_category"][0]["key"] == "get_order_status"


def test_answered_requests_become_no_call_cases_only_when_asked(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    mixed_traffic(traffic)

    code, output = review(traffic, cases, "--accept", "answered")

    assert code == 0, output
    (case,) = read_cases(cases)
    assert case["id"] == "rec-055e1f0c"
    assert case["category"] == "no_call"
    assert case["expected"] == {"calls": []}
    assert case["recorded"]["decision"] == "answered"
    assert "3 called (--accept validated takes them)" in output

    code, output = review(traffic, cases, "--accept", "validated,answered")
    assert code == 0, output
    assert "1 already in" in output
    assert "wrote 3 case(s)" in output
    assert len(read_cases(cases)) == 4
    code, output = review(traffic, cases, "--accept", "validated", "--accept", "answered")
    assert "wrote 0 case(s)" in output  # a second run adds nothing
    assert len(read_cases(cases)) == 4


def test_near_duplicates_fold_into_one_case_with_a_count(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    write_traffic(
        traffic,
        [
            entry(1, "Where is order ORD-12345?", "called", calls=[order_call("ORD-12345")]),
            entry(2, "where is   ORDER ord-67890", "called", calls=[order_call("ORD-67890")]),
            entry(3, "Where is order ORD-1?", "called", calls=[order_call("ORD-00001")]),
            # Another outcome, other tools, another question: three groups of their own.
            entry(
                4,
                "Where is order ORD-123?",
                "failed",
                problems=[bad_order("ORD-123")],
                failure_class="validation",
            ),
            entry(
                5,
                "Where is order ORD-55555?",
                "called",
                calls=[order_call("ORD-55555")],
                tools=[ORDER],
            ),
            entry(6, "Where is my parcel ORD-12345?", "called", calls=[order_call("ORD-12345")]),
        ],
    )

    code, output = review(traffic, cases, "--accept", "validated")

    assert code == 0, output
    assert "read 6 entries from 1 file(s): 4 request(s) once near-duplicates are folded" in output
    by_id = {case["id"]: case for case in read_cases(cases)}
    assert sorted(by_id) == ["rec-015e1f0c", "rec-055e1f0c", "rec-065e1f0c"]
    first = by_id["rec-015e1f0c"]
    assert first["recorded"]["count"] == 3
    # The oldest entry stands for the group: its own question and its own call.
    assert first["messages"][0]["content"] == "Where is order ORD-12345?"
    assert first["expected"]["calls"][0]["arguments"] == {"order_id": "ORD-12345"}


def test_failures_and_multi_step_runs_are_left_for_a_person(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": []},
    ]
    write_traffic(
        traffic,
        [
            entry(1, "Weather in Oslo?", "error", failure_class="ServerTimeoutError"),
            entry(
                2,
                "Weather in Paris, then Oslo",
                "called",
                calls=[weather_call("Paris"), weather_call("Oslo")],
                operation="run",
            ),
            entry(3, "Weather in Rome?", "called", calls=[weather_call("Rome")], operation="run"),
            entry(
                4, "", "called", calls=[weather_call("Oslo")], operation="resume", messages=history
            ),
        ],
    )

    code, output = review(traffic, cases, "--accept", "validated")

    assert code == 0, output
    assert [case["id"] for case in read_cases(cases)] == ["rec-035e1f0c"]  # one call: one step
    assert "3 request(s) left for a person" in output
    assert "1 failed or errored; 2 runs whose calls may span steps, or resumed" in output


def test_sample_spreads_over_tools_and_outcomes_failures_first(tmp_path: Path) -> None:
    traffic = tmp_path / "traffic"
    cities = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Baku"]
    entries = [
        entry(n, f"Weather in {city} please", "called", calls=[weather_call(city)])
        for n, city in enumerate(cities, start=1)
    ]
    entries += [
        entry(
            10 + n,
            f"Status of order ORD-1234{n} {'x' * n}",
            "called",
            calls=[order_call(f"ORD-1234{n}")],
        )
        for n in range(1, 4)
    ]
    entries += [
        entry(
            20,
            "Status of ORD-9?",
            "failed",
            problems=[bad_order("ORD-9")],
            failure_class="validation",
        ),
        entry(21, "Tell me a joke", "answered", content="Why did the parser..."),
    ]
    write_traffic(traffic, entries)

    def shown(seed: str) -> list[str]:
        code, output = review(
            traffic,
            tmp_path / f"none-{seed}.jsonl",
            "--sample",
            "4",
            "--seed",
            seed,
            input="s\n" * 4,
        )
        assert code == 0, output
        return [
            line.split()[1]
            for line in output.splitlines()
            if line.startswith(("1/4", "2/4", "3/4", "4/4"))
        ]

    first = shown("7")
    assert first == shown("7")  # the seed fixes the draw
    # One of each stratum: the failure first, then by tool: an order call, a weather call,
    # the answer.
    assert first[0] == "145e1f0c"
    assert first[1] in {f"{n:02x}5e1f0c" for n in range(11, 14)}
    assert first[2] in {f"{n:02x}5e1f0c" for n in range(1, 7)}
    assert first[3] == "155e1f0c"
    assert {shown(str(seed))[1] for seed in range(8)} != {first[1]}  # the seed does choose

    cases = tmp_path / "cases.jsonl"
    code, output = review(traffic, cases, "--accept", "validated", "--sample", "2")
    assert code == 0, output
    assert sorted(c["category"] for c in read_cases(cases)) == ["get_order_status", "get_weather"]


def interactive_traffic(folder: Path) -> None:
    write_traffic(
        folder,
        [
            entry(1, "Weather in Paris?", "called", calls=[weather_call("Paris")]),
            entry(2, "weather in paris", "called", calls=[weather_call("paris")]),
            entry(3, "Where is order ORD-12345?", "called", calls=[order_call("ORD-12345")]),
            entry(
                4,
                "Where is order ORD-1234?",
                "failed",
                problems=[bad_order("ORD-1234")],
                failure_class="validation",
            ),
            entry(5, "Weather in Hanoi for 3 days", "called", calls=[weather_call("Hanoi")]),
            entry(6, "Thanks, that's all!", "answered", content="You're welcome!"),
            entry(7, "Tell me a joke", "answered", content="Why did the parser..."),
        ],
    )


# The session of docs/traffic-evals.md: fix the failure, accept a call, skip one, fix a
# missed argument, say the thanks needs no call, and quit before the last.
SESSION_INPUT = "f\n\norder_id=ORD-01234\n\na\ns\nf\ndays=3\n\nn\nq\n"


def review_session(folder: Path, out: Path) -> str:
    result = CliRunner().invoke(
        app, ["cases", "review", str(folder), "--out", str(out)], input=SESSION_INPUT
    )
    assert result.exit_code == 0, result.output
    return "\n".join(line.rstrip() for line in result.output.splitlines())


def test_interactive_review_decides_each_request_and_keeps_what_was_decided(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    interactive_traffic(traffic)

    output = review_session(traffic, cases)

    # Failures first, with the problem; then by tool; the two Paris requests folded.
    assert output.index("1/6  045e1f0c  failed (validation)") < output.index("2/6  035e1f0c")
    assert "problem   get_order_status: order_id: String should match pattern" in output
    assert "user      Where is order ORD-1234?" in output
    assert "3/6  015e1f0c  called  x2" in output
    assert 'call   get_weather(city="Hanoi", days=null)' in output
    assert "wrote 4 case(s)" in output
    assert "1 accepted, 2 fixed, 1 no call; 1 skipped" in output
    assert "1 not reviewed: run the same command to go on" in output
    written = {case["id"]: case for case in read_cases(cases)}
    assert written["rec-045e1f0c"]["expected"]["calls"] == [
        {"name": "get_order_status", "arguments": {"order_id": "ORD-01234"}}
    ]
    assert written["rec-045e1f0c"]["recorded"]["decision"] == "fixed"
    assert written["rec-035e1f0c"]["recorded"]["decision"] == "accepted"
    # `days=3` is JSON: the number 3, not the text "3".
    assert written["rec-055e1f0c"]["expected"]["calls"][0]["arguments"] == {
        "city": "Hanoi",
        "days": 3,
    }
    assert written["rec-065e1f0c"]["expected"] == {"calls": []}
    assert written["rec-065e1f0c"]["category"] == "no_call"
    assert "rec-015e1f0c" not in written  # skipped

    # The next session asks only about what is left: the skipped Paris group, the joke.
    result = CliRunner().invoke(
        app, ["cases", "review", str(traffic), "--out", str(cases)], input="a\nn\n"
    )
    assert result.exit_code == 0, result.output
    assert "4 already in" in result.output
    assert "1/2  015e1f0c" in result.output
    assert "2/2  075e1f0c" in result.output
    assert len(read_cases(cases)) == 6


def test_fix_warns_about_a_call_that_does_not_validate_and_writes_it(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    write_traffic(
        traffic, [entry(1, "Where is ORD-12345?", "called", calls=[order_call("ORD-12345")])]
    )

    code, output = review(
        traffic, cases, input="f\nnote='x'\n-note\n-nothing\nbad line\norder_id=\"ORD-1\"\n\n"
    )

    assert code == 0, output
    assert "no field 'nothing'" in output
    assert "write field=value" in output
    assert "warning: get_order_status does not validate (order_id: String should match" in output
    (case,) = read_cases(cases)
    assert case["expected"]["calls"] == [
        {"name": "get_order_status", "arguments": {"order_id": "ORD-1"}}
    ]


def test_end_of_input_quits_and_nothing_is_lost(tmp_path: Path) -> None:
    traffic, cases = tmp_path / "traffic", tmp_path / "cases.jsonl"
    interactive_traffic(traffic)

    code, output = review(traffic, cases, input="a\n")  # a failure has no call to accept

    assert code == 0, output
    assert "no call to accept: n if no call is right, f to write the call" in output
    assert "6 not reviewed: run the same command to go on" in output
    assert not cases.exists()


def test_what_cannot_be_read_is_refused_in_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    wrong = tmp_path / "wrong"
    write_traffic(wrong, [{**entry(1, "hi", "answered"), "version": 2}])
    middle = tmp_path / "middle"
    write_traffic(middle, [entry(1, "hi", "answered")])
    (middle / "traffic.jsonl").write_text(
        '{"torn\n' + json.dumps(entry(2, "hi", "answered")) + "\n"
    )
    not_cases = tmp_path / "notes.txt"
    not_cases.write_text("not a case file\n")
    out = tmp_path / "cases.jsonl"

    for folder, argv, message in [
        (tmp_path / "nowhere", [], "no traffic folder at"),
        (empty, [], "holds no traffic.jsonl or traffic-*.jsonl"),
        (wrong, [], "traffic.jsonl:1: traffic entry version 2; this toolcall-sdk reads version 1"),
        (middle, [], "traffic.jsonl:1: not JSON"),
        (wrong, ["--accept", "everything"], "unknown --accept value(s) ['everything']"),
    ]:
        code, output = review(folder, out, *argv)
        assert code == 2, output
        assert message in output
        assert output.startswith("error: ")
        assert len(output.strip().splitlines()) == 1
    code, output = review(empty, not_cases)
    assert code == 2
    assert "notes.txt:1: not JSON" in output
    assert not out.exists()
