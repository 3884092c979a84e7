"""MCP tools against a real MCP server process over stdio (tests/unit/mcp/ledger_server.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'toolcall-sdk[mcp]'")

from toolcall_sdk import ToolCallError, ToolDefinitionError
from toolcall_sdk.mcp import McpServer, McpTool, McpToolError
from toolcall_sdk.testing import RecordedRequest, ScriptedModel, text, tool_call

from ..conftest import ClientFactory

SERVER = Path(__file__).with_name("ledger_server.py")


def verdicts(*answers: bool) -> Callable[[RecordedRequest], bool]:
    queue = list(answers)
    return lambda request: queue.pop(0)


@pytest.fixture(scope="module")
def ledger() -> Iterator[McpServer]:
    """One server process for the module; `count_entries` stays off the model's list."""
    with McpServer(
        sys.executable, [str(SERVER)], include=["add_entry", "close_books"], timeout=30
    ) as server:
        yield server


def test_listed_tools_become_sdk_tools(ledger: McpServer) -> None:
    add_entry, close_books = ledger.tools

    assert isinstance(add_entry, McpTool)
    assert (add_entry.name, add_entry.remote_name) == ("add_entry", "add_entry")
    assert add_entry.description == "Add an entry to an account's ledger."
    assert add_entry.openai_schema() == {
        "type": "function",
        "function": {
            "name": "add_entry",
            "description": "Add an entry to an account's ledger.",
            "parameters": {
                "type": "object",
                "properties": {"account": {"type": "string"}, "amount_vnd": {"type": "integer"}},
                "required": ["account", "amount_vnd"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }
    assert close_books.timeout == 30


def test_an_mcp_tool_is_validated_called_on_the_server_and_fed_back(
    make_client: ClientFactory, ledger: McpServer, twin: str
) -> None:
    account = f"A-{twin}"
    before = ledger.call("count_entries", {"account": account})
    model = ScriptedModel(
        [
            tool_call("add_entry", {"account": account, "amount_vnd": "lots"}),
            tool_call("add_entry", {"account": account, "amount_vnd": 500}),
            text("Booked 500 VND."),
        ],
        route_answer=verdicts(True, False),
    )
    client = make_client(model, ledger.tools, router="probe")

    result = client.run(f"Book 500 VND to {account}", max_steps=3)

    feedback = model.calls_for("call")[1].messages[-1]["content"]
    assert feedback.startswith("VALIDATION_ERROR in add_entry (call call_1):")
    assert "amount_vnd" in feedback
    [call] = result.calls
    assert call.output == f"entry {int(before) + 1} for {account}: 500 VND"
    assert model.calls_for("answer")[0].messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": call.output,
    }
    assert result.content == "Booked 500 VND."
    assert ledger.call("count_entries", {"account": account}) == str(int(before) + 1)


def test_a_server_side_failure_is_the_calls_error_and_goes_to_the_model(
    make_client: ClientFactory, ledger: McpServer
) -> None:
    model = ScriptedModel(
        [tool_call("close_books", {"year": 2025}), text("The books were already closed.")],
        route_answer=verdicts(True, False),
    )
    client = make_client(model, ledger.tools, router="probe")

    result = client.run("Close 2025", max_steps=2)

    error = result.steps[0].calls[0].error
    assert isinstance(error, McpToolError)
    assert "the books of 2025 are already closed" in str(error)
    tool_message = model.calls_for("answer")[0].messages[-1]["content"]
    assert tool_message.startswith("ERROR: McpToolError:")
    assert "already closed" in tool_message


def test_include_must_name_listed_tools() -> None:
    server = McpServer(sys.executable, [str(SERVER)], include=["add_entry", "drop_tables"])

    with pytest.raises(ToolDefinitionError, match=r"\['drop_tables'\]"):
        server.open()


def test_tools_need_an_open_connection() -> None:
    server = McpServer(sys.executable, [str(SERVER)])

    with pytest.raises(ToolCallError, match="not connected"):
        _ = server.tools


def test_prefix_and_approval_are_per_server(ledger: McpServer) -> None:
    with McpServer(
        sys.executable, [str(SERVER)], prefix="books.", requires_approval=["close_books"]
    ) as server:
        tools: dict[str, Any] = {t.name: t for t in server.tools}

    assert sorted(tools) == ["books_add_entry", "books_close_books", "books_count_entries"]
    assert tools["books_close_books"].remote_name == "close_books"
    assert tools["books_close_books"].requires_approval is True
    assert tools["books_add_entry"].requires_approval is False
