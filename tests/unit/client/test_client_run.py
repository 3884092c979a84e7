"""`run()`: each validated call's function runs exactly once; ModelRetry and tool errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from toolcall_sdk import ModelRetry, ToolCallFailed, ToolExecutionError, tool
from toolcall_sdk.testing import ScriptedModel, parallel, tool_call

from ..conftest import ClientFactory, Ledger


def test_run_executes_once_and_records_output(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo", "unit": "celsius"})])
    client = make_client(model, [get_weather])

    result = client.run("Weather in Oslo?")

    assert result.call.output == "18 degrees celsius in Oslo"
    assert result.call.executed is True
    assert ledger.calls == [("get_weather", {"city": "Oslo", "unit": "celsius"})]


def test_model_retry_sends_the_message_back(make_client: ClientFactory) -> None:
    ran: list[str] = []

    @tool
    def get_order(order_id: str) -> dict[str, str]:
        """Look up an order."""
        ran.append(order_id)
        if order_id != "ORD-00042":
            raise ModelRetry(f"no order {order_id}; ids look like ORD-00042")
        return {"status": "shipped"}

    model = ScriptedModel(
        [
            tool_call("get_order", {"order_id": "ORD-42"}),
            tool_call("get_order", {"order_id": "ORD-00042"}),
        ]
    )
    client = make_client(model, [get_order])

    result = client.run("Where is order 42?")

    assert ran == ["ORD-42", "ORD-00042"]
    assert result.call.output == {"status": "shipped"}
    assert result.attempts[0].error_kinds == ["tool_retry"]
    feedback = model.calls_for("call")[1].messages[-1]
    assert feedback["role"] == "tool"
    assert "no order ORD-42; ids look like ORD-00042" in feedback["content"]


def test_model_retry_keeps_earlier_outputs_and_never_reruns_them(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    @tool
    def get_order(order_id: str) -> str:
        """Look up an order."""
        ledger.calls.append(("get_order", {"order_id": order_id}))
        if order_id == "bad":
            raise ModelRetry("unknown id")
        return "shipped"

    model = ScriptedModel(
        [
            parallel(
                tool_call("get_weather", {"city": "Oslo", "unit": "celsius"}),
                tool_call("get_order", {"order_id": "bad"}),
            ),
            tool_call("get_order", {"order_id": "good"}),
        ]
    )
    client = make_client(model, [get_weather, get_order])

    result = client.run("weather and order")

    assert ledger.count("get_weather") == 1
    assert [c.name for c in result.calls] == ["get_weather", "get_order"]
    assert result.outputs == ["18 degrees celsius in Oslo", "shipped"]
    second = model.calls_for("call")[1]
    weather_reply = [m for m in second.messages if m.get("tool_call_id") == "call_1"]
    assert weather_reply[0]["content"] == "18 degrees celsius in Oslo"


def test_model_retry_exhaustion_raises(make_client: ClientFactory) -> None:
    @tool
    def get_order(order_id: str) -> str:
        """Look up an order."""
        raise ModelRetry("unknown id")

    model = ScriptedModel(lambda request: tool_call("get_order", {"order_id": "x"}))
    client = make_client(model, [get_order], max_retries=1)

    with pytest.raises(ToolCallFailed) as excinfo:
        client.run("order x")

    assert [a.error_kinds for a in excinfo.value.attempts] == [["tool_retry"], ["tool_retry"]]
    assert excinfo.value.executed == []


def test_failure_after_partial_execution_reports_what_ran(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    @tool
    def get_order(order_id: str) -> str:
        """Look up an order."""
        raise ModelRetry("unknown id")

    model = ScriptedModel(
        [
            parallel(
                tool_call("get_weather", {"city": "Oslo", "unit": "celsius"}),
                tool_call("get_order", {"order_id": "bad"}),
            ),
            tool_call("get_order", {"order_id": "worse"}),
        ]
    )
    client = make_client(model, [get_weather, get_order], max_retries=1)

    with pytest.raises(ToolCallFailed) as excinfo:
        client.run("weather and order")

    [ran] = excinfo.value.executed
    assert ran.name == "get_weather"
    assert ran.output == "18 degrees celsius in Oslo"
    assert ledger.count("get_weather") == 1


def test_tool_exception_is_recorded_not_retried(make_client: ClientFactory) -> None:
    ran: list[int] = []

    @tool
    def charge(amount: int) -> str:
        """Charge a card."""
        ran.append(amount)
        raise RuntimeError("card declined")

    model = ScriptedModel([tool_call("charge", {"amount": 5})])
    client = make_client(model, [charge])

    result = client.run("charge 5")

    assert ran == [5]
    assert isinstance(result.call.error, RuntimeError)
    assert len(model.calls_for("call")) == 1
    assert result.messages[-1]["content"] == "ERROR: RuntimeError: card declined"
    with pytest.raises(ToolExecutionError, match="card declined"):
        result.raise_for_errors()


def test_async_tool_runs_under_the_sync_client(make_client: ClientFactory) -> None:
    @tool
    async def ping(host: str) -> str:
        """Ping a host."""
        await asyncio.sleep(0)
        return f"pong {host}"

    model = ScriptedModel([tool_call("ping", {"host": "db"})])
    client = make_client(model, [ping])

    assert client.run("ping db").call.output == "pong db"


def test_single_model_parameter_receives_the_instance(make_client: ClientFactory) -> None:
    class Order(BaseModel):
        sku: str
        quantity: int = 1

    received: list[Order] = []

    @tool
    def place_order(order: Order) -> str:
        """Place an order."""
        received.append(order)
        return "ok"

    model = ScriptedModel([tool_call("place_order", {"sku": "A-1", "quantity": 3})])
    client = make_client(model, [place_order])

    client.run("3 of A-1")

    assert received == [Order(sku="A-1", quantity=3)]


def test_call_only_model_tool_cannot_run_but_can_call(make_client: ClientFactory) -> None:
    class Refund(BaseModel):
        """Refund an order."""

        order_id: str

    model = ScriptedModel([tool_call("refund", {"order_id": "O1"})])
    client = make_client(model, [Refund])

    result = client.call("refund O1")

    assert isinstance(result.call.arguments, Refund)
    assert result.call.arguments.order_id == "O1"
