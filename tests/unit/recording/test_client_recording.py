"""`record=`: one traffic entry per call, run, resume or stream, through both twins."""

from __future__ import annotations

import json
import logging
import re
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import (
    ApprovalRequired,
    AsyncToolCallClient,
    InvalidArgumentError,
    RouterError,
    ServerConnectionError,
    ServerUnavailableError,
    ToolCallClient,
    ToolCallFailed,
    ToolCallResult,
    TrafficRecorder,
    tool,
)
from toolcall_sdk.events import StreamCompleted
from toolcall_sdk.testing import ScriptedModel, http_error, text, tool_call

from ..conftest import ClientFactory

OSLO = {"city": "Oslo", "unit": "celsius"}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "additionalProperties": False,
            "properties": {
                "city": {"type": "string"},
                "unit": {"default": "celsius", "type": "string"},
            },
            "required": ["city"],
            "type": "object",
        },
    },
}
SETTINGS = {
    "router": "always",
    "max_retries": 2,
    "temperature": 0.0,
    "max_tokens": None,
    "parallel_tool_calls": None,
    "tool_choice": "required",
}
USER = [{"role": "user", "content": "Weather in Oslo?"}]


def entries(folder: Path) -> list[dict[str, Any]]:
    """Every entry in the folder, checked for the fields that differ from call to call."""
    files = [*sorted(folder.glob("traffic-*.jsonl")), folder / "traffic.jsonl"]
    found = [
        json.loads(line)
        for path in files
        if path.exists()
        for line in path.read_text().splitlines()
    ]
    for item in found:
        assert re.fullmatch(r"[0-9a-f]{32}", item.pop("id"))
        offset = datetime.fromisoformat(item.pop("time")).utcoffset()
        assert offset is not None
        assert offset.total_seconds() == 0
        assert isinstance(item.pop("latency_s"), float)
    return found


def expected(
    outcome: dict[str, Any],
    *,
    operation: str = "call",
    messages: list[dict[str, Any]] = USER,
    failure_class: str | None = None,
    usage: tuple[int, int] = (10, 5),
    settings: dict[str, Any] = SETTINGS,
) -> dict[str, Any]:
    """An entry as written, less its id, time and latency."""
    return {
        "version": 1,
        "source": "client",
        "operation": operation,
        "model": "test-model",
        "messages": messages,
        "tools": [WEATHER_TOOL],
        "settings": settings,
        "outcome": {
            "status": "called",
            "calls": [],
            "content": None,
            "error": None,
            "problems": [],
            "attempts": 1,
            **outcome,
        },
        "failure_class": failure_class,
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
    }


def test_a_validated_call_is_recorded_called(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}, usage=(10, 5))])
    client = make_client(model, [get_weather], record=tmp_path)

    client.call("Weather in Oslo?")

    assert entries(tmp_path) == [
        expected({"calls": [{"name": "get_weather", "arguments": OSLO}]}),
    ]


def test_a_text_answer_is_recorded_answered(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    model = ScriptedModel([text("Hello!", usage=(7, 2))])
    client = make_client(model, [get_weather], router="never", record=str(tmp_path))
    conversation = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]

    client.call(conversation)

    settings = {**SETTINGS, "router": "never"}
    assert entries(tmp_path) == [
        expected(
            {"status": "answered", "content": "Hello!", "attempts": 0},
            messages=conversation,
            usage=(7, 2),
            settings=settings,
        ),
    ]


def test_an_escalation_is_recorded_failed_with_the_last_attempts_problems(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"town": "Oslo"}, usage=(10, 5)),
            tool_call("get_wether", {"city": "Oslo"}, usage=(20, 5)),
            tool_call("get_weather", {"city": 7}, usage=(30, 5)),
        ]
    )
    client = make_client(model, [get_weather], record=tmp_path)

    with pytest.raises(ToolCallFailed) as failed:
        client.call("Weather in Oslo?")

    [entry] = entries(tmp_path)
    last = failed.value.attempts[-1].problems
    assert [p.kind for p in last] == ["invalid_arguments"]
    assert entry == expected(
        {
            "status": "failed",
            "error": f"ToolCallFailed: {failed.value}",
            "problems": [
                {
                    "kind": "invalid_arguments",
                    "message": last[0].message,
                    "tool_name": "get_weather",
                }
            ],
            "attempts": 3,
        },
        failure_class="invalid_arguments",
        usage=(60, 15),
    )


def test_a_server_that_stays_down_is_recorded_error(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path, sleeps: list[float]
) -> None:
    model = ScriptedModel([http_error(503)] * 4)
    client = make_client(model, [get_weather], record=tmp_path)

    with pytest.raises(ServerUnavailableError) as down:
        client.call("Weather in Oslo?")

    assert len(sleeps) == 3  # the transport retried before giving up
    assert entries(tmp_path) == [
        expected(
            {"status": "error", "error": f"ServerUnavailableError: {down.value}", "attempts": 0},
            failure_class="ServerUnavailableError",
            usage=(0, 0),
        ),
    ]


def test_an_on_escalate_result_is_recorded_as_the_outcome(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"town": "Oslo"}, usage=(10, 5))])
    client = make_client(
        model,
        [get_weather],
        max_retries=0,
        on_escalate=lambda failed: ToolCallResult(called=False, content="Try later."),
        record=tmp_path,
    )

    client.call("Weather in Oslo?")

    [entry] = entries(tmp_path)
    assert entry["outcome"]["status"] == "answered"
    assert entry["outcome"]["content"] == "Try later."
    assert entry["failure_class"] is None


def test_a_multi_step_run_is_one_entry_with_its_final_outcome(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}, usage=(10, 5)),
            text("18 degrees in Oslo.", usage=(30, 6)),
        ]
    )
    client = make_client(model, [get_weather], record=tmp_path)

    result = client.run("Weather in Oslo?", max_steps=3)

    assert len(result.steps) == 2
    assert entries(tmp_path) == [
        expected(
            {
                "calls": [{"name": "get_weather", "arguments": OSLO}],
                "content": "18 degrees in Oslo.",
                "attempts": 2,
            },
            operation="run",
            usage=(40, 11),
        ),
    ]


@pytest.mark.parametrize("method", ["stream", "stream_run"])
def test_a_stream_is_recorded_once_its_last_event_is_out(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path, method: str
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}, usage=(10, 5))])
    client = make_client(model, [get_weather], record=tmp_path)

    events = list(getattr(client, method)("Weather in Oslo?"))

    assert isinstance(events[-1], StreamCompleted)
    assert entries(tmp_path) == [
        expected(
            {"calls": [{"name": "get_weather", "arguments": OSLO}]},
            operation="stream" if method == "stream" else "run",
        ),
    ]


def test_a_pause_and_its_resume_are_two_entries(make_client: ClientFactory, tmp_path: Path) -> None:
    @tool(requires_approval=True)
    def send_payment(account: str, amount_vnd: int) -> str:
        """Send a payment from an account."""
        return "PAY-1"

    payment = {"account": "A-1", "amount_vnd": 500}
    model = ScriptedModel(
        [tool_call("send_payment", payment, usage=(10, 5)), text("Paid.", usage=(20, 2))]
    )
    client = make_client(model, [send_payment], record=tmp_path)

    with pytest.raises(ApprovalRequired) as paused:
        client.run("Pay 500 VND from A-1", max_steps=3)
    client.resume(paused.value.state, {paused.value.pending[0].id: True})

    first, second = entries(tmp_path)
    conversation = [{"role": "user", "content": "Pay 500 VND from A-1"}]
    assert first["operation"] == "run"
    assert first["outcome"]["status"] == "error"
    assert first["failure_class"] == "ApprovalRequired"
    assert first["outcome"]["error"].startswith("ApprovalRequired: ")
    assert first["messages"] == conversation
    assert second["operation"] == "resume"
    assert second["messages"] == conversation  # the conversation the paused run began with
    assert second["outcome"]["status"] == "called"
    assert second["outcome"]["calls"] == [{"name": "send_payment", "arguments": payment}]
    assert second["outcome"]["content"] == "Paid."
    assert second["failure_class"] is None


def test_redact_edits_or_drops_entries_and_a_redact_that_raises_is_logged(
    make_client: ClientFactory,
    get_weather: Any,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def redact(entry: dict[str, Any]) -> dict[str, Any] | None:
        content = entry["messages"][-1]["content"]
        if content == "private":
            return None
        if content == "broken":
            raise RuntimeError("redact bug")
        entry["messages"] = [{"role": "user", "content": "[redacted]"}]
        entry["tools"][0]["function"]["description"] = "[redacted]"
        return entry

    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})] * 4)
    recorder = TrafficRecorder(tmp_path, redact=redact)
    client = make_client(model, [get_weather], record=recorder)

    with caplog.at_level(logging.WARNING, logger="toolcall_sdk"):
        for prompt in ("Weather in Oslo?", "private", "broken", "Weather in Oslo?"):
            assert client.call(prompt).call.name == "get_weather"

    written = entries(tmp_path)
    assert [e["messages"] for e in written] == [[{"role": "user", "content": "[redacted]"}]] * 2
    # Each entry has its own copy: editing one entry's tools leaves the next one's as declared.
    assert all(e["tools"][0]["function"]["description"] == "[redacted]" for e in written)
    assert client.tools[0].description == "Current weather for a city."
    [warning] = [r for r in caplog.records if r.message.startswith("traffic:")]
    assert warning.levelno == logging.WARNING
    assert warning.message.endswith("; the call goes on")
    assert warning.exc_info is not None
    assert str(warning.exc_info[1]) == "redact bug"


class Broken:
    """A recorder whose every write fails."""

    def __init__(self) -> None:
        self.tried = 0

    def record(self, entry: dict[str, Any]) -> None:
        self.tried += 1
        raise OSError(28, "No space left on device")


def test_a_failing_writer_never_changes_the_calls_outcome(
    make_client: ClientFactory,
    get_weather: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = Broken()
    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}),
            *[tool_call("get_weather", {"town": "Oslo"})] * 3,
            *[http_error(503)] * 4,
        ]
    )
    client = make_client(model, [get_weather], record=broken)

    with caplog.at_level(logging.WARNING, logger="toolcall_sdk"):
        assert client.call("Weather in Oslo?").call.arguments.model_dump() == OSLO
        with pytest.raises(ToolCallFailed):
            client.call("Weather in Oslo?")
        with pytest.raises(ServerUnavailableError):
            client.call("Weather in Oslo?")

    assert broken.tried == 3
    warnings = [r for r in caplog.records if r.message.startswith("traffic:")]
    assert len(warnings) == 3
    assert all("No space left on device" in str(r.exc_info[1]) for r in warnings if r.exc_info)


def test_a_folder_removed_under_the_client_is_logged_and_the_call_goes_on(
    make_client: ClientFactory,
    get_weather: Any,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    folder = tmp_path / "traffic"
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [get_weather], record=folder)
    folder.rmdir()

    with caplog.at_level(logging.WARNING, logger="toolcall_sdk"):
        assert client.call("Weather in Oslo?").call.name == "get_weather"

    assert [r.levelno for r in caplog.records if r.message.startswith("traffic:")] == [
        logging.WARNING
    ]


def test_no_header_key_or_url_credential_is_written(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    key = "sk-live-0123456789abcdef"
    model = ScriptedModel([http_error(503)] * 4)
    client = make_client(
        model,
        [get_weather],
        api_key=key,
        default_headers={"X-Tenant-Secret": "tenant-hunter2"},
        record=tmp_path,
    )

    with pytest.raises(ServerUnavailableError) as down:
        client.call("Weather in Oslo?")

    written = (tmp_path / "traffic.jsonl").read_text()
    assert key not in written
    assert "tenant-hunter2" not in written
    assert "X-Tenant-Secret" not in written
    assert "Authorization" not in written
    assert "Bearer" not in written
    assert json.loads(written)["outcome"]["error"] == f"ServerUnavailableError: {down.value}"


def test_a_credential_in_an_error_message_is_masked(
    make_client: ClientFactory, get_weather: Any, tmp_path: Path
) -> None:
    # The transport's messages name the server's URL; one with user:password@ in it, or
    # the key itself, never reaches the file.
    key = "sk-live-0123456789abcdef"
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])

    def refuse(messages: Any, tools: Any) -> bool:
        raise ServerConnectionError(f"cannot reach http://admin:{key}@gpu-1:8000/v1 ({key})")

    client = make_client(model, [get_weather], api_key=key, router=refuse, record=tmp_path)

    with pytest.raises(RouterError, match="cannot reach"):
        client.call("Weather in Oslo?")

    [entry] = entries(tmp_path)
    assert key not in json.dumps(entry)
    assert "admin" not in json.dumps(entry)
    assert "http://***@gpu-1:8000/v1 (***)" in entry["outcome"]["error"]


def test_nothing_is_written_unless_asked(
    make_client: ClientFactory,
    get_weather: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [get_weather])

    client.call("Weather in Oslo?")

    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("client_class", [ToolCallClient, AsyncToolCallClient])
@pytest.mark.parametrize("record", [42, "", object()])
def test_record_takes_a_folder_or_a_recorder(client_class: type[Any], record: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="record must"):
        client_class(base_url="http://localhost:8000/v1", model="m", record=record)


def test_one_client_in_many_threads_writes_one_whole_entry_per_call(
    make_sync_client: Any, get_weather: Any, tmp_path: Path
) -> None:
    model = ScriptedModel(lambda request: tool_call("get_weather", {"city": "Oslo"}))
    client = make_sync_client(
        model, [get_weather], record=TrafficRecorder(tmp_path, max_bytes=8 * 1024)
    )

    def calls() -> None:
        for _ in range(20):
            client.call("Weather in Oslo?")

    threads = [threading.Thread(target=calls) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    written = entries(tmp_path)
    assert len(written) == 160
    assert len(list(tmp_path.glob("traffic-*.jsonl"))) > 1
    assert all(
        e["outcome"]["calls"] == [{"name": "get_weather", "arguments": OSLO}] for e in written
    )
