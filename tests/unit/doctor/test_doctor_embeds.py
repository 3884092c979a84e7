"""`doctor`'s prompt-embeddings check against scripted servers."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolcall_sdk.cli import app
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, http_error, text

from .test_doctor import doctor_on, server

torch = pytest.importorskip("torch", reason="needs the embeds extra (torch)")

NOT_ENABLED = {
    "object": "error",
    "message": "You must set `--enable-prompt-embeds` to input `prompt_embeds`.",
    "type": "BadRequestError",
    "code": 400,
}


def vllm(completions: Reply | None = None) -> Any:
    """The scripted healthy server of test_doctor, answering `/v1/completions` as told."""
    chat = server()

    def handle(request: RecordedRequest) -> Reply:
        if request.is_completion:
            return completions or text("x")
        return chat(request)

    return handle


def finding(report: Any) -> Any:
    return next(f for f in report.findings if f.check == "prompt embeds")


def test_unknown_width_sends_no_tensor() -> None:
    model = ScriptedModel(vllm())

    report = doctor_on(model)

    assert finding(report).status == "info"
    assert "--hidden-size" in finding(report).detail
    assert model.completion_requests == []


def test_accepting_server_with_a_given_width() -> None:
    model = ScriptedModel(vllm())

    report = doctor_on(model, hidden_size=16)

    assert finding(report).status == "ok"
    assert "hidden_size=16" in finding(report).detail
    (probe,) = model.completion_requests
    body = probe.json or {}
    assert body["max_tokens"] == 1
    assert body["prompt"] is None
    sent = torch.load(io.BytesIO(base64.b64decode(body["prompt_embeds"])), weights_only=True)
    assert torch.equal(sent, torch.zeros(1, 16))
    assert report.exit_code == 0


def test_width_read_from_the_served_models_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 24}))
    model = ScriptedModel(vllm(), root=str(tmp_path))

    report = doctor_on(model)

    assert finding(report).status == "ok"
    body = model.completion_requests[0].json or {}
    assert "hidden size 24" in finding(report).detail
    assert body["model"] == "scripted"


def test_server_without_the_flag() -> None:
    model = ScriptedModel(vllm(http_error(400, NOT_ENABLED)))

    report = doctor_on(model, hidden_size=16)

    assert finding(report).status == "info"
    assert finding(report).detail == "not enabled on the server"
    assert "--enable-prompt-embeds" in finding(report).fix
    assert report.exit_code == 0


def test_other_refusals_are_a_warning() -> None:
    model = ScriptedModel(vllm(http_error(400, {"message": "shape mismatch"})))

    report = doctor_on(model, hidden_size=16)

    assert finding(report).status == "warn"
    assert "shape mismatch" in finding(report).detail
    assert "check the hidden size (16)" in finding(report).fix


def test_cli_passes_hidden_size() -> None:
    model = ScriptedModel(vllm())
    with model.serve() as base_url:
        result = CliRunner().invoke(app, ["doctor", "--base-url", base_url, "--hidden-size", "8"])
    assert result.exit_code == 0, result.output
    assert "prompt embeds" in result.output
    assert len(model.completion_requests) == 1
