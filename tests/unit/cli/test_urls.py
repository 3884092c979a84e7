"""A server URL typed as an argument: doctor takes it; the other commands say, in one line,
which option it belongs to."""

from __future__ import annotations

from typer.testing import CliRunner, Result

from toolcall_sdk.cli import app
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

URL = "http://127.0.0.1:8000/v1"


def _healthy(request: RecordedRequest) -> Reply:
    if request.tools and request.tool_choice != "none":
        return tool_call(request.tools[0]["function"]["name"], {"city": "Paris"})
    return text("I")


def invoke(*argv: str, **env: str) -> Result:
    return CliRunner().invoke(app, list(argv), env={"TOOLCALL_BASE_URL": None, **env})


def one_line(result: Result) -> str:
    assert "Traceback" not in result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_doctor_takes_the_url_as_an_argument() -> None:
    model = ScriptedModel(_healthy)

    with model.serve() as base_url:
        result = invoke("doctor", base_url)

    assert result.exit_code == 0, result.output
    assert f"toolcall-sdk doctor: {base_url} (scripted)" in result.output
    assert model.chat_requests


def test_doctor_argument_wins_over_the_environment() -> None:
    model = ScriptedModel(_healthy)

    with model.serve() as base_url:
        result = invoke("doctor", base_url, TOOLCALL_BASE_URL="http://127.0.0.1:1/v1")

    assert result.exit_code == 0, result.output
    assert model.chat_requests


def test_doctor_with_the_same_url_twice_runs() -> None:
    model = ScriptedModel(_healthy)

    with model.serve() as base_url:
        result = invoke("doctor", base_url + "/", "--base-url", base_url)

    assert result.exit_code == 0, result.output


def test_doctor_with_two_different_urls_says_so() -> None:
    result = invoke("doctor", URL, "--base-url", "http://127.0.0.1:9000/v1")

    assert result.exit_code == 2
    assert one_line(result) == (
        "error: two server URLs: http://127.0.0.1:8000/v1 and --base-url "
        "http://127.0.0.1:9000/v1; give one of them"
    )


def test_eval_names_the_base_url_option() -> None:
    result = invoke("eval", URL, "evals/invoices.jsonl")

    assert result.exit_code == 2
    assert one_line(result) == (
        f"error: {URL} is a server URL: give it as --base-url {URL} "
        "(the arguments of eval are case files)"
    )


def test_proxy_names_the_upstream_option() -> None:
    result = invoke("proxy", URL)

    assert result.exit_code == 2
    assert one_line(result) == (
        f"error: {URL} is a server URL: give it as --upstream {URL} (proxy takes no arguments)"
    )


def test_proxy_without_an_upstream_says_what_to_give() -> None:
    result = invoke("proxy")

    assert result.exit_code == 2
    assert one_line(result) == (
        f"error: give the server to stand in front of: --upstream URL (e.g. {URL})"
    )


def test_launch_points_a_url_to_doctor() -> None:
    result = invoke("launch", URL)

    assert result.exit_code == 2
    assert one_line(result) == (
        f"error: {URL} is a server URL, but launch starts a server for a MODEL (an id or a "
        f"folder); to check a running server: toolcall-sdk doctor {URL}"
    )
