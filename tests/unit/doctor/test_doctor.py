"""`toolcall-sdk doctor` against scripted servers: healthy, misconfigured, unreachable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.doctor import detect_markup, run_doctor
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, http_error, text, tool_call

CALL = tool_call("get_weather", {"city": "Paris"})


def server(
    auto: Callable[[RecordedRequest], Reply] | None = None, **options: Any
) -> Callable[[RecordedRequest], Reply]:
    """A scripted vLLM: each probe answered by what the request asks for."""
    renders_tools = options.get("renders_tools", True)

    def handle(request: RecordedRequest) -> Reply:
        body = request.json or {}
        if body.get("max_tokens") == 1:  # the template check
            tokens = 40 + (60 if request.tools and renders_tools else 0)
            return text("I", usage=(tokens, 1))
        if request.tool_choice == "auto":
            return auto(request) if auto else CALL
        name = request.tools[0]["function"]["name"] if request.tools else "x"
        return tool_call(name, {"city": "Paris"})

    return handle


def doctor_on(scripted: ScriptedModel, **kwargs: Any) -> Any:
    return run_doctor(scripted.base_url, http_client=scripted.http_client(), **kwargs)


def test_healthy_server_passes_every_check() -> None:
    model = ScriptedModel(server())

    report = doctor_on(model)

    statuses = {f.check: f.status for f in report.findings}
    assert statuses == {
        "server reachable": "ok",
        "model": "info",
        "vLLM version": "info",
        "auto tool choice": "ok",
        "tool-call parser": "ok",
        "required tool_choice": "ok",
        "named tool_choice": "ok",
        "chat template renders tools": "ok",
        "grammar compile": "info",
        "prompt embeds": "info",
    }
    assert report.exit_code == 0
    assert report.model == "scripted"
    required = [r for r in model.chat_requests if r.tool_choice == "required"]
    assert required[0].tools is not None
    assert required[0].tools[0]["function"]["strict"] is True
    assert all(r.temperature == 0 for r in model.chat_requests)


def test_wrong_parser_is_found_and_the_flag_named() -> None:
    leaked = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    model = ScriptedModel(server(auto=lambda request: text(leaked)))

    report = doctor_on(model)

    assert report.status_of("tool-call parser") == "fail"
    finding = next(f for f in report.findings if f.check == "tool-call parser")
    assert "--tool-call-parser hermes" in finding.fix
    assert report.exit_code == 1


@pytest.mark.parametrize(
    "leaked",
    [
        '```json\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n```',
        '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}',
    ],
)
def test_qwen25_coder_behind_a_vllm_parser_is_told_to_load_the_plugin(leaked: str) -> None:
    # Qwen2.5-Coder writes call objects, fenced or bare; only the SDK's plugin reads them.
    from toolcall_sdk.vllm_plugin import plugin_path

    model = ScriptedModel(
        server(auto=lambda request: text(leaked)), model="Qwen/Qwen2.5-Coder-0.5B-Instruct"
    )

    report = doctor_on(model)

    finding = next(f for f in report.findings if f.check == "tool-call parser")
    assert finding.status == "fail"
    assert "qwen25_coder call objects" in finding.detail
    assert finding.fix.startswith("restart with `toolcall-sdk launch MODEL`, or add ")
    assert f"--tool-parser-plugin {plugin_path()} --tool-call-parser toolcall_qwen25_coder" in (
        finding.fix
    )
    assert report.exit_code == 1


def test_auto_tool_choice_disabled() -> None:
    message = (
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    )
    model = ScriptedModel(
        server(
            auto=lambda request: http_error(
                400, {"object": "error", "message": message, "type": "BadRequestError", "code": 400}
            )
        )
    )

    report = doctor_on(model, model="scripted")

    finding = next(f for f in report.findings if f.check == "auto tool choice")
    assert finding.status == "fail"
    assert "--enable-auto-tool-choice" in finding.fix
    assert report.status_of("model") == "ok"


def test_template_that_ignores_tools() -> None:
    model = ScriptedModel(server(renders_tools=False))

    report = doctor_on(model)

    finding = next(f for f in report.findings if f.check == "chat template renders tools")
    assert finding.status == "fail"
    assert "--chat-template" in finding.fix


def test_forced_call_cut_by_max_tokens() -> None:
    def handle(request: RecordedRequest) -> Reply:
        if request.tool_choice in ("auto", None):
            return text("hello")
        return text('<tool_call>{"name": "get_weather", "arguments": "', finish_reason="length")

    report = doctor_on(ScriptedModel(handle))

    finding = next(f for f in report.findings if f.check == "required tool_choice")
    assert finding.status == "fail"
    assert "--tool-strict-level parameter" in finding.fix


@pytest.mark.parametrize("named", [False, True])
def test_whitespace_runaway_under_a_grammar_suggests_compact_json(named: bool) -> None:
    padding = "\n" + " " * 40 + "\n" * 40

    def handle(request: RecordedRequest) -> Reply:
        if request.tool_choice in ("auto", None):
            return text("hello")
        if request.tool_choice == "required":
            return text('[{"name": "get_weather", "parameters": {"city": "Paris",' + padding,
                        finish_reason="length")  # fmt: skip
        # A named call: vLLM hands the cut arguments back as a call.
        return tool_call("get_weather", '{"city": "Paris",' + padding, finish_reason="length")

    report = doctor_on(ScriptedModel(handle))

    check = "named tool_choice" if named else "required tool_choice"
    finding = next(f for f in report.findings if f.check == check)
    assert finding.status == "fail"
    assert "whitespace" in finding.detail
    assert (
        '--structured-outputs-config \'{"backend": "xgrammar", "disable_any_whitespace": true}\''
        in (finding.fix)
    )
    assert "xgrammar:disable-any-whitespace" in finding.fix
    assert report.exit_code == 1


def test_an_answer_cut_mid_value_is_not_a_whitespace_runaway() -> None:
    def handle(request: RecordedRequest) -> Reply:
        if request.tool_choice in ("auto", None):
            return text("hello")
        return tool_call(
            "get_weather", '{"city": "Paris Paris Paris Paris  ', finish_reason="length"
        )

    report = doctor_on(ScriptedModel(handle))

    finding = next(f for f in report.findings if f.check == "named tool_choice")
    assert "whitespace" not in finding.detail
    assert "--structured-outputs-config" not in finding.fix


def test_unknown_model_and_unreachable_server() -> None:
    report = doctor_on(ScriptedModel(server()), model="other")
    assert report.status_of("model") == "fail"
    assert report.exit_code == 1

    unreachable = run_doctor("http://127.0.0.1:9/v1", timeout=2)
    assert unreachable.status_of("server reachable") == "fail"
    assert "toolcall-sdk launch" in unreachable.findings[0].fix


def test_cli_exit_code_and_table() -> None:
    model = ScriptedModel(
        server(auto=lambda request: text('[TOOL_CALLS][{"name": "get_weather", "arguments": {}}]'))
    )
    with model.serve() as base_url:
        result = CliRunner().invoke(app, ["doctor", "--base-url", base_url])
    assert result.exit_code == 1
    assert "tool-call parser" in result.output
    assert "mistral" in result.output


@pytest.mark.parametrize(
    ("content", "parser"),
    [
        ('<tool_call>{"name": "f", "arguments": {}}</tool_call>', "hermes"),
        ('[TOOL_CALLS][{"name": "f", "arguments": {}}]', "mistral"),
        ("<function=f><parameter=x>1</parameter></function>", "qwen3_xml"),
        ('<|python_tag|>{"name": "f", "parameters": {}}', "llama3_json"),
        ('{"name": "f", "parameters": {"x": 1}}', "llama3_json"),
        ('[get_weather(city="Oslo")]', "pythonic"),
    ],
)
def test_markup_detection(content: str, parser: str) -> None:
    found = detect_markup(content)
    assert found is not None
    assert found[1] == parser


def test_plain_text_is_not_markup() -> None:
    assert detect_markup("It is 10:00 in UTC.") is None
    assert detect_markup(None) is None


def test_scripted_model_without_scripted_usage_passes_the_template_check() -> None:
    # The scripted model's own token estimate counts the tools a request renders, as vLLM's
    # prompt does; no usage is scripted here.
    def handle(request: RecordedRequest) -> Reply:
        if request.tools and request.tool_choice != "none":
            name = request.tools[0]["function"]["name"]
            return tool_call(name, {"city": "Paris", "unit": "celsius"})
        return text("I")

    report = doctor_on(ScriptedModel(handle))

    assert report.status_of("chat template renders tools") == "ok"
