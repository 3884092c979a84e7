"""`toolcall-sdk eval` end to end against the scripted model served over real HTTP."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.evals import LADDER
from toolcall_sdk.testing import (
    RecordedRequest,
    Reply,
    ScriptedModel,
    http_error,
    text,
    tool_call,
)

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
        argv.append("--allow-code")  # the bundled set's tools are Python: invoices_tools.py
        result = CliRunner().invoke(app, [*argv, "--concurrency", "3"])
        assert result.exit_code == 0, result.output
        requests_first = len(model.chat_requests)
        rerun = CliRunner().invoke(app, argv)
        assert rerun.exit_code == 0, rerun.output

    assert "Tool-calling ladder (5 cases)" in result.output
    for pipeline in LADDER:
        assert pipeline in result.output
    assert "resuming: 30 of 30" in rerun.output
    assert len(model.chat_requests) == requests_first  # nothing ran again

    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["model"] == "scripted"  # from GET /v1/models
    ladder = {row["pipeline"]: row for row in report["ladder"]}
    # The forced pipelines call a tool on the irrelevant cases; the routed one does not.
    assert ladder["required"]["classes"]["spurious_call"] == 2
    assert ladder["required+validate"]["classes"]["spurious_call"] == 2
    assert ladder["auto"]["passed"] == 5
    assert ladder["auto+parser"]["passed"] == 5
    assert ladder["auto+recover"]["passed"] == 5  # text on the irrelevant cases is right
    assert ladder["full"]["classes"]["spurious_call"] == 0
    order_ids = [c["expected"][0]["accept"]["order_id"][0] for c in report["records"][:18:6]]
    assert all(i.startswith("ORD-") for i in order_ids)
    by_case = {(r["case_id"], r["pipeline"]): r["verdict"] for r in report["records"]}
    assert by_case[(picked[3]["id"], "auto")] == "pass"
    assert (out / "report.md").read_text().count("| full |") == 1
    assert (out / "ladder.svg").exists()


def test_eval_rejects_bad_options(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "m", "--pipeline", "magic"])
    assert result.exit_code == 2
    assert "unknown pipeline" in result.output
    result = CliRunner().invoke(app, ["eval", "--model", "m", "-p", "full,magic"])
    assert result.exit_code == 2
    assert "unknown pipeline(s) ['magic']" in result.output
    result = CliRunner().invoke(app, ["eval", "--model", "m"])
    assert result.exit_code == 2
    assert "give a case file" in result.output
    result = CliRunner().invoke(app, ["eval", "--model", "m", "--grounding", "numbers"])
    assert result.exit_code == 2
    assert "--grounding must be one of default, all, off" in result.output


# -- trust boundary, preflight, resuming -------------------------------------------------

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def json_cases(folder: Path, count: int = 2) -> Path:
    """Cases whose tools are OpenAI JSON: no code named, no --allow-code needed."""
    path = folder / "cases.jsonl"
    cases = [
        {
            "id": f"w{n}",
            "messages": f"Weather in city {n}?",
            "tools": [WEATHER],
            "expected": {"calls": [{"name": "get_weather", "arguments": {"city": f"c{n}"}}]},
        }
        for n in range(count)
    ]
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def weather(request: RecordedRequest) -> Reply:
    number = str(request.messages[-1]["content"]).split()[-1].rstrip("?")
    return tool_call("get_weather", {"city": f"c{number}"})


def eval_argv(cases: Path, base_url: str, out: Path, *extra: str) -> list[str]:
    return ["eval", str(cases), "--base-url", base_url, "--out", str(out), "--no-progress", *extra]


def test_case_files_naming_code_need_allow_code(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    (tmp_path / "tools.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\nTOOLS = []\n"
    )
    cases = tmp_path / "cases.jsonl"
    case = {"id": "a", "messages": "hi", "tools": "tools.py:TOOLS", "expected": []}
    cases.write_text(json.dumps(case) + "\n")
    module_case = {**case, "tools": "os.path:join"}
    (tmp_path / "module.jsonl").write_text(json.dumps(module_case) + "\n")

    out = str(tmp_path / "out")  # never the default ./eval-out, whatever happens
    for path in (cases, tmp_path / "module.jsonl"):
        result = CliRunner().invoke(app, ["eval", str(path), "--model", "m", "--out", out])
        assert result.exit_code == 2
        assert "--allow-code" in result.output
        assert "Traceback" not in result.output
    assert not marker.exists()  # refused before anything was imported

    allowed = CliRunner().invoke(
        app,
        ["eval", str(cases), "--allow-code", "--base-url", "http://127.0.0.1:9/v1", "--out", out],
    )
    assert marker.exists()  # with the flag the module ran (then the server was unreachable)
    assert allowed.exit_code == 2
    assert not (tmp_path / "out").exists()


def test_unreachable_server_stops_before_any_case_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"

    result = CliRunner().invoke(
        app, eval_argv(json_cases(tmp_path), "http://127.0.0.1:9/v1", out, "--model", "m")
    )

    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "cannot reach http://127.0.0.1:9/v1/models" in lines[0]
    assert "toolcall-sdk launch" in lines[0]
    assert not out.exists()


def test_preflight_names_the_served_models(tmp_path: Path) -> None:
    model = ScriptedModel(weather, model="served-7b")
    out = tmp_path / "out"

    with model.serve() as base_url:
        wrong = CliRunner().invoke(
            app, eval_argv(json_cases(tmp_path), base_url, out, "--model", "other")
        )
        no_v1 = CliRunner().invoke(
            app, eval_argv(json_cases(tmp_path), base_url.removesuffix("/v1"), out)
        )

    assert wrong.exit_code == 2
    assert "does not serve 'other'" in wrong.output
    assert "served-7b" in wrong.output
    assert no_v1.exit_code == 2
    assert "ends in /v1" in no_v1.output
    assert model.chat_requests == []
    assert not out.exists()


def test_transport_failures_are_not_stored_and_a_rerun_retries_them(tmp_path: Path) -> None:
    cases = json_cases(tmp_path, count=2)
    out = tmp_path / "out"
    failing = {"on": True}

    def flaky(request: RecordedRequest) -> Reply:
        if failing["on"] and "city 1" in str(request.messages[0]["content"]):
            return http_error(503)
        return weather(request)

    model = ScriptedModel(flaky)
    # The raw pipeline sends each request once, so the 503 needs no backoff to surface.
    argv = eval_argv(cases, "", out, "-p", "auto")

    with model.serve() as base_url:
        argv[3] = base_url
        first = CliRunner().invoke(app, argv)
        stored = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
        failing["on"] = False
        second = CliRunner().invoke(app, argv)

    assert first.exit_code == 1
    assert "1 of 2 pair(s) not finished" in first.output
    assert "rerun the same command" in first.output
    assert [(r["case_id"], r["pipeline"]) for r in stored] == [("w0", "auto")]
    assert second.exit_code == 0, second.output
    assert "resuming: 1 of 2" in second.output
    report = json.loads((out / "report.json").read_text())
    assert [r["verdict"] for r in report["records"]] == ["pass", "pass"]


def test_nothing_answered_exits_non_zero(tmp_path: Path) -> None:
    model = ScriptedModel(lambda request: http_error(400, "tool_choice not supported"))
    out = tmp_path / "out"

    with model.serve() as base_url:
        result = CliRunner().invoke(app, eval_argv(json_cases(tmp_path), base_url, out))

    assert result.exit_code == 1
    assert "no pair got an answer from the server" in result.output


def test_out_dir_refuses_to_resume_across_a_server_or_model_change(tmp_path: Path) -> None:
    cases = json_cases(tmp_path, count=1)
    out = tmp_path / "out"
    first = ScriptedModel(weather, model="model-a")
    second = ScriptedModel(weather, model="model-b")

    with first.serve() as url_a, second.serve() as url_b:
        done = CliRunner().invoke(app, eval_argv(cases, url_a, out, "-p", "auto"))
        moved = CliRunner().invoke(app, eval_argv(cases, url_b, out, "-p", "auto"))
        fresh = CliRunner().invoke(app, eval_argv(cases, url_b, out, "-p", "auto", "--fresh"))

    assert done.exit_code == 0, done.output
    assert moved.exit_code == 2
    lines = [line for line in moved.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "model-a" in lines[0]
    assert "model-b" in lines[0]
    assert "--fresh" in lines[0]
    assert "new --out" in lines[0]
    assert len(second.chat_requests) == 1  # only the --fresh run asked it anything
    assert fresh.exit_code == 0, fresh.output
    assert "resuming" not in fresh.output
    run = json.loads((out / "run.json").read_text())
    assert (run["base_url"], run["model"]) == (url_b, "model-b")


# -- the six rungs over HTTP, defaults, progress, a missing file --------------------------


def in_text(request: RecordedRequest) -> Reply:
    """A server whose parser misses every call: the Hermes block stays in the content."""
    number = str(request.messages[-1]["content"]).split()[-1].rstrip("?")
    call = {"name": "get_weather", "arguments": {"city": f"c{number}"}}
    return text(f"<tool_call>\n{json.dumps(call)}\n</tool_call>")


def test_the_auto_rung_asks_the_wrong_parser_server(tmp_path: Path) -> None:
    main = ScriptedModel(weather)
    wrong = ScriptedModel(in_text)
    out = tmp_path / "out"

    with main.serve() as main_url, wrong.serve() as wrong_url:
        argv = eval_argv(json_cases(tmp_path), main_url, out, "--router", "always")
        result = CliRunner().invoke(app, [*argv, "--wrong-parser-base-url", wrong_url])

    assert result.exit_code == 0, result.output
    assert len(wrong.chat_requests) == 2  # the auto rung's two cases, nothing else
    assert [r.tool_choice for r in wrong.chat_requests] == ["auto", "auto"]
    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["wrong_parser_base_url"] == wrong_url
    assert report["meta"]["auto_server"] == f"{wrong_url} (the wrong-parser server)"
    assert report["meta"]["pipelines"] == ",".join(LADDER)
    ladder = {row["pipeline"]: row for row in report["ladder"]}
    assert [row["pipeline"] for row in report["ladder"]] == list(LADDER)
    assert ladder["auto"]["classes"]["missed_call"] == 2
    assert ladder["auto"]["parser_miss"] == 2
    assert all(ladder[p]["passed"] == 2 for p in LADDER[1:])
    assert ladder["auto"]["seed_pass_rate"] == 0.70
    assert "~97.5%" in result.output  # the seed column of the terminal table
    run = json.loads((out / "run.json").read_text())
    assert run["wrong_parser_base_url"] == wrong_url


def test_an_unreachable_wrong_parser_server_stops_the_eval_before_any_case(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(weather)
    out = tmp_path / "out"

    with model.serve() as base_url:
        argv = eval_argv(json_cases(tmp_path), base_url, out)
        result = CliRunner().invoke(
            app, [*argv, "--wrong-parser-base-url", "http://127.0.0.1:9/v1"]
        )

    assert result.exit_code == 2
    assert "cannot reach http://127.0.0.1:9/v1/models" in result.output
    assert model.chat_requests == []
    assert not out.exists()


def test_max_tokens_defaults_to_256_in_every_request_and_the_report(tmp_path: Path) -> None:
    model = ScriptedModel(weather)
    cases = json_cases(tmp_path, count=1)

    with model.serve() as base_url:
        default = CliRunner().invoke(app, eval_argv(cases, base_url, tmp_path / "a"))
        sent_default = list(model.chat_requests)
        unset = CliRunner().invoke(
            app, eval_argv(cases, base_url, tmp_path / "b", "--max-tokens", "0")
        )
        sent_unset = model.chat_requests[len(sent_default) :]

    assert default.exit_code == 0, default.output
    assert unset.exit_code == 0, unset.output
    assert len(sent_default) >= len(LADDER)
    # Every answer is bounded (the default router asks no question of its own).
    answers = [r.json or {} for r in sent_default]
    assert len(answers) == len(LADDER)
    assert [body.get("max_tokens") for body in answers] == [256] * len(LADDER)
    assert all("max_tokens" not in (r.json or {}) for r in sent_unset)
    meta = json.loads((tmp_path / "a" / "report.json").read_text())["meta"]
    assert meta["max_tokens"] == 256
    assert "- max_tokens: `256`" in (tmp_path / "a" / "report.md").read_text()
    assert json.loads((tmp_path / "b" / "report.json").read_text())["meta"]["max_tokens"] is None


def test_a_routing_questions_budget_stays_its_own_and_smaller(tmp_path: Path) -> None:
    model = ScriptedModel(weather, route_answer=True)
    cases = json_cases(tmp_path, count=1)

    with model.serve() as base_url:
        result = CliRunner().invoke(
            app, eval_argv(cases, base_url, tmp_path / "a", "--router", "both")
        )

    assert result.exit_code == 0, result.output
    routes = [r.json or {} for r in model.chat_requests if r.stage == "route"]
    assert len(routes) == 1  # the full rung's question
    assert 0 < routes[0]["max_tokens"] < 256
    answers = [r.json or {} for r in model.chat_requests if r.stage != "route"]
    assert [body.get("max_tokens") for body in answers] == [256] * len(LADDER)


PROGRESS_LINE = re.compile(r"^eval: (\d+)/12 done, \d+:\d\d:\d\d elapsed, (\d+) failed$")


def test_progress_off_a_terminal_is_plain_lines(tmp_path: Path) -> None:
    def one_wrong(request: RecordedRequest) -> Reply:
        if "city 1" in str(request.messages[-1]["content"]):
            return tool_call("get_weather", {"city": "elsewhere"})
        return weather(request)

    model = ScriptedModel(one_wrong)
    argv = ["eval", str(json_cases(tmp_path)), "--out", str(tmp_path / "out")]

    with model.serve() as base_url:  # CliRunner's stdout is not a terminal
        result = CliRunner().invoke(app, [*argv, "--base-url", base_url, "-c", "1"])
        quiet = CliRunner().invoke(app, [*argv, "--base-url", base_url, "--no-progress", "--fresh"])

    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    lines = [m for m in map(PROGRESS_LINE.match, result.output.splitlines()) if m]
    done = [int(m.group(1)) for m in lines]
    # A line per tenth of the run (12 pairs: every 2nd), the last at 12 of 12.
    assert done == [2, 4, 6, 8, 10, 12]
    assert lines[-1].group(2) == "6"  # case 1 fails in each of the six rungs
    assert quiet.exit_code == 0, quiet.output
    assert "eval: " not in quiet.output


def test_the_cli_default_max_tokens_is_the_harness_default() -> None:
    from toolcall_sdk.cli import DEFAULT_EVAL_MAX_TOKENS
    from toolcall_sdk.evals import DEFAULT_MAX_TOKENS, EvalSettings

    assert DEFAULT_EVAL_MAX_TOKENS == DEFAULT_MAX_TOKENS == 256
    assert EvalSettings(base_url="u", model="m").max_tokens == 256


def test_a_missing_case_file_names_the_bundled_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)

    result = CliRunner().invoke(app, ["eval", "nonexistent.jsonl", "--model", "m"])

    assert result.exit_code == 2
    assert result.output.splitlines() == [
        "error: no case file at nonexistent.jsonl; give a JSONL case file or --bfcl CATEGORY. "
        "Bundled case files: evals/invoices.jsonl, evals/multistep.jsonl, evals/shop_heldout.jsonl"
    ]


def test_pipelines_given_comma_separated_run_exactly_those(tmp_path: Path) -> None:
    model = ScriptedModel(weather)
    out = tmp_path / "out"

    with model.serve() as base_url:
        argv = eval_argv(json_cases(tmp_path), base_url, out, "-p", "required, full")
        result = CliRunner().invoke(app, argv)

    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert [row["pipeline"] for row in report["ladder"]] == ["required", "full"]


def test_parallel_calls_are_sent_only_when_asked_for(tmp_path: Path) -> None:
    asked, plain = ScriptedModel(weather), ScriptedModel(weather)

    for model, extra in ((asked, ["--parallel-calls"]), (plain, [])):
        with model.serve() as base_url:
            argv = eval_argv(json_cases(tmp_path), base_url, tmp_path / str(id(model)), *extra)
            result = CliRunner().invoke(app, [*argv, "-p", "required,full"])
        assert result.exit_code == 0, result.output

    assert {r.json["parallel_tool_calls"] for r in asked.chat_requests} == {True}  # type: ignore[index]
    assert all("parallel_tool_calls" not in (r.json or {}) for r in plain.chat_requests)
    report = json.loads((tmp_path / str(id(asked)) / "report.json").read_text())
    assert report["meta"]["parallel_tool_calls"] is True


def test_call_tags_reach_the_full_pipelines_auto_request_only(tmp_path: Path) -> None:
    model = ScriptedModel(weather)

    with model.serve() as base_url:
        argv = eval_argv(json_cases(tmp_path), base_url, tmp_path / "out", "--call-tags", "schema")
        result = CliRunner().invoke(app, [*argv, "-p", "required,full"])

    assert result.exit_code == 0, result.output
    tagged = [r.json for r in model.chat_requests if r.json and "response_format" in r.json]
    assert tagged
    assert all(body["tool_choice"] == "auto" for body in tagged)
    assert {body["response_format"]["type"] for body in tagged} == {"structural_tag"}
    # The raw `required` rung sends what a plain client sends.
    assert any(r.json and r.json.get("tool_choice") == "required" for r in model.chat_requests)
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["meta"]["call_tags"] == "schema"


def test_an_unknown_call_tags_mode_is_refused() -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "m", "--call-tags", "on"])

    assert result.exit_code == 2
    assert "--call-tags must be one of off, schema, grounded" in result.output


def test_listed_values_reach_the_full_pipeline_and_the_report(tmp_path: Path) -> None:
    model = ScriptedModel(weather)

    with model.serve() as base_url:
        argv = eval_argv(
            json_cases(tmp_path), base_url, tmp_path / "out", "--listed-values", "continue"
        )
        result = CliRunner().invoke(app, [*argv, "-p", "full"])

    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["meta"]["listed_values"] == "continue"


def test_an_unknown_listed_values_mode_is_refused() -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "m", "--listed-values", "all"])

    assert result.exit_code == 2
    assert "--listed-values must be one of off, ask, complete, continue" in result.output
