"""`tools=[{"type": "function", ...}]` through both clients: feedback, retries, run()."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    ToolDefinitionError,
    ToolExecutionError,
    tool_from_openai,
)
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory

AsyncFactory = Callable[..., AsyncToolCallClient]

CREATE_INVOICE: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "create_invoice",
        "description": "Create an invoice for a customer.",
        "parameters": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string", "pattern": r"^CUS-\d{6}$"},
                "amount_vnd": {"type": "integer", "exclusiveMinimum": 0},
                "due_date": {"type": "string", "format": "date"},
            },
            "required": ["customer_id", "amount_vnd", "due_date"],
        },
    },
}
GOOD = {"customer_id": "CUS-123456", "amount_vnd": 150000, "due_date": "2026-07-01"}
BAD = {**GOOD, "due_date": "2026-02-30"}
FEEDBACK = (
    "VALIDATION_ERROR in create_invoice (call call_1):\n"
    '- due_date: Input should be a valid date in YYYY-MM-DD form (got "2026-02-30")\n'
    "Call create_invoice again with corrected arguments."
)


def check_exchange(model: ScriptedModel) -> None:
    first, second = model.calls_for("call")
    for request in (first, second):
        assert request.tool_choice == {"type": "function", "function": {"name": "create_invoice"}}
        [sent] = request.tools or []
        assert sent["function"]["strict"] is True
        assert sent["function"]["parameters"]["additionalProperties"] is False
    assert second.messages[-2]["role"] == "assistant"
    assert second.messages[-1] == {"role": "tool", "tool_call_id": "call_1", "content": FEEDBACK}


def test_dict_tool_invalid_argument_gets_feedback_then_passes(make_client: ClientFactory) -> None:
    model = ScriptedModel([tool_call("create_invoice", BAD), tool_call("create_invoice", GOOD)])
    client = make_client(model, [CREATE_INVOICE])

    result = client.call("Invoice CUS-123456 for 150000 VND due Feb 30th")

    assert result.call.name == "create_invoice"
    assert result.call.arguments.model_dump() == GOOD
    assert [a.error_kinds for a in result.attempts] == [["invalid_arguments"], []]
    check_exchange(model)


async def test_async_dict_tool_feedback(make_async_client: AsyncFactory) -> None:
    model = ScriptedModel([tool_call("create_invoice", BAD), tool_call("create_invoice", GOOD)])
    client = make_async_client(model, [CREATE_INVOICE])

    result = await client.call("Invoice CUS-123456 for 150000 VND due Feb 30th")

    assert result.call.arguments.model_dump() == GOOD
    check_exchange(model)


def test_lossless_string_is_repaired_not_rejected(make_client: ClientFactory) -> None:
    model = ScriptedModel([tool_call("create_invoice", {**GOOD, "amount_vnd": "150000"})])
    client = make_client(model, [CREATE_INVOICE])

    result = client.call("Invoice")

    assert result.call.arguments.model_dump()["amount_vnd"] == 150000
    assert result.attempts[0].repairs == ["create_invoice:scalar_from_string:/amount_vnd"]


def test_run_on_a_call_only_dict_tool_records_the_error(make_client: ClientFactory) -> None:
    model = ScriptedModel([tool_call("create_invoice", GOOD)])
    client = make_client(model, [CREATE_INVOICE])

    result = client.run("Invoice")

    # As for a tool made from a Pydantic model: nothing runs, the call carries the error.
    assert isinstance(result.call.error, ToolDefinitionError)
    assert "call-only" in str(result.call.error)
    with pytest.raises(ToolExecutionError, match="call-only"):
        result.raise_for_errors()


def test_run_with_a_handler_gets_the_json_arguments(make_client: ClientFactory) -> None:
    received: list[dict[str, Any]] = []

    def create(arguments: dict[str, Any]) -> str:
        received.append(arguments)
        return "INV-1"

    model = ScriptedModel([tool_call("create_invoice", BAD), tool_call("create_invoice", GOOD)])
    client = make_client(model, [tool_from_openai(CREATE_INVOICE, create)])

    result = client.run("Invoice")

    assert received == [GOOD]  # once, with the valid arguments only
    assert result.call.output == "INV-1"


async def test_async_run_with_an_async_handler(make_async_client: AsyncFactory) -> None:
    received: list[dict[str, Any]] = []

    async def create(arguments: dict[str, Any]) -> str:
        received.append(arguments)
        return "INV-2"

    model = ScriptedModel([tool_call("create_invoice", GOOD)])
    client = make_async_client(model, [tool_from_openai(CREATE_INVOICE, handler=create)])

    result = await client.run("Invoice")

    assert received == [GOOD]
    assert result.call.output == "INV-2"


def test_dict_and_decorated_tools_mix(make_client: ClientFactory, get_weather: Any) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [CREATE_INVOICE, get_weather])

    result = client.call("Weather in Oslo?")

    assert result.call.name == "get_weather"
    assert [t["function"]["name"] for t in model.calls_for("call")[0].tools or []] == [
        "create_invoice",
        "get_weather",
    ]
