"""Public methods raise `ToolCallError` subclasses, never an interpreter or pydantic error."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from toolcall_sdk import (
    ApprovalRequired,
    ResumeError,
    ToolCallClient,
    ToolDefinitionError,
    tool,
)
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory, Ledger


def _deep_schema(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {"type": "object", "properties": {}}
    node = root
    for _ in range(levels):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    return root


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "object", "properties": [{"a": {"type": "string"}}]},
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": 5},
        {"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0}}},
        _deep_schema(900),
    ],
    ids=["properties-list", "required-int", "multipleof-zero", "900-deep"],
)
def test_a_tool_schema_that_cannot_be_read_is_a_tool_definition_error(
    parameters: dict[str, Any],
) -> None:
    definition = {"type": "function", "function": {"name": "f", "parameters": parameters}}
    with pytest.raises(ToolDefinitionError, match=r"tool 'f': function\.parameters is not"):
        ToolCallClient(base_url="http://127.0.0.1:9/v1", model="m", tools=[definition])


class _Opaque:
    def __str__(self) -> str:
        return "opaque value"


class _Report(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    value: _Opaque


def test_a_tool_output_that_cannot_be_serialised_is_answered_with_its_text(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool
    def report(name: str) -> _Report:
        """Build a report."""
        ledger.calls.append(("report", {"name": name}))
        return _Report(value=_Opaque())

    model = ScriptedModel([tool_call("report", {"name": "q1"}), text("Report built.")])
    client = make_client(model, [report])

    result = client.run("report q1", max_steps=2)

    assert ledger.count("report") == 1
    assert result.calls[0].executed
    assert isinstance(result.calls[0].output, _Report)
    tool_message = model.chat_requests[-1].messages[-1]
    assert tool_message["role"] == "tool"
    # pydantic cannot serialise the field: the model is answered with the output's text.
    assert tool_message["content"] == str(result.calls[0].output)


@pytest.fixture
def refund(ledger: Ledger) -> Any:
    @tool(requires_approval=True)
    def refund(amount: int) -> str:
        """Refund an amount."""
        ledger.calls.append(("refund", {"amount": amount}))
        return "refunded"

    return refund


def _paused_state(make_client: ClientFactory, refund: Any) -> tuple[Any, str]:
    model = ScriptedModel([tool_call("refund", {"amount": 5}), text("ok")])
    client = make_client(model, [refund])
    with pytest.raises(ApprovalRequired) as paused:
        client.run("refund 5", max_steps=2)
    return client, paused.value.state


def _rechecksummed(state: str, edit: Any) -> str:
    payload = json.loads(state)
    payload.pop("checksum")
    edit(payload)
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    payload["checksum"] = hashlib.sha256(canonical.encode()).hexdigest()
    return json.dumps(payload)


def _set(path: str, value: Any) -> Any:
    def edit(payload: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = payload
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return edit


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("requests", "3"),
        ("usage.prompt_tokens", "many"),
        ("usage.completion_tokens", -5),
        ("limits.max_steps", "2"),
        ("limits.max_tokens_total", [1]),
        ("seen", [{"name": 1}]),
        ("route.tools", "refund"),
        ("attempt.request.temperature", "hot"),
        ("attempt.usage", None),
        ("message.tool_calls", [{"id": 1, "function": None}]),
        ("messages", [{"content": "no role"}]),
        ("step", True),
    ],
)
def test_a_state_edited_and_checksummed_again_is_refused_before_anything_runs(
    make_client: ClientFactory, refund: Any, ledger: Ledger, path: str, value: Any
) -> None:
    client, state = _paused_state(make_client, refund)
    forged = _rechecksummed(state, _set(path, value))

    with pytest.raises(ResumeError, match="fields of the wrong type or value"):
        client.resume(forged, approvals={"call_1": True})

    assert ledger.calls == []
    # The real state was not used up by the refused one.
    result = client.resume(state, approvals={"call_1": True})
    assert ledger.calls == [("refund", {"amount": 5})]
    assert result.content == "ok"


def test_a_state_nested_past_the_parsers_stack_is_a_resume_error(
    make_client: ClientFactory, refund: Any
) -> None:
    client, _ = _paused_state(make_client, refund)
    with pytest.raises(ResumeError, match="nested too deep"):
        client.resume("[" * 100_000, approvals={})
