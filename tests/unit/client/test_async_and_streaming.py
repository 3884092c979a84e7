"""The async twin, and `stream=True` giving the same result as without."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolcall_sdk import AsyncToolCallClient, ModelRetry, ToolCallClient, ToolCallFailed, tool
from toolcall_sdk.testing import ScriptedModel, http_error, parallel, text, tool_call

from ..conftest import SCENARIO_GROUNDING, Ledger

GOOD = {"customer_id": "CUS-123456", "amount_vnd": 150000, "due_date": "2026-07-01"}

AsyncFactory = Callable[..., AsyncToolCallClient]


async def test_async_feedback_loop_and_execution(
    make_async_client: AsyncFactory, create_invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("create_invoice", {**GOOD, "customer_id": "CUS-1"}),
            tool_call("create_invoice", GOOD),
        ]
    )
    async with make_async_client(model, [create_invoice]) as client:
        result = await client.run("Invoice CUS-123456")

    assert len(result.attempts) == 2
    assert "customer_id" in model.calls_for("call")[1].messages[-1]["content"]
    assert result.call.output == {"invoice_id": "INV-1", "customer_id": "CUS-123456"}
    assert ledger.count("create_invoice") == 1


async def test_async_exhaustion_and_transport_retry(
    make_async_client: AsyncFactory, create_invoice: Any, sleeps: list[float]
) -> None:
    model = ScriptedModel([http_error(500)] + [tool_call("create_invoice", {})] * 3)
    client = make_async_client(model, [create_invoice], max_retries=2)

    with pytest.raises(ToolCallFailed) as excinfo:
        await client.call("Invoice")

    assert len(excinfo.value.attempts) == 3
    assert sleeps == [0.5]


async def test_async_tools_and_async_routers(make_async_client: AsyncFactory) -> None:
    order: list[str] = []

    @tool
    async def lookup(order_id: str) -> str:
        """Look up an order."""
        order.append(order_id)
        if order_id == "x":
            raise ModelRetry("bad id")
        return "shipped"

    class Router:
        name = "async-router"

        async def adecide(self, messages: Any, tools: Any) -> bool:
            return True

    model = ScriptedModel(
        [tool_call("lookup", {"order_id": "x"}), tool_call("lookup", {"order_id": "y"})]
    )
    client = make_async_client(model, [lookup], router=Router())

    result = await client.run("order?")

    assert order == ["x", "y"]
    assert result.route.router == "async-router"
    assert result.call.output == "shipped"


async def test_async_plain_answer(make_async_client: AsyncFactory, create_invoice: Any) -> None:
    model = ScriptedModel([text("Hello")])
    client = make_async_client(model, [create_invoice], router="never")

    result = await client.call("Hi")

    assert result.content == "Hello"
    # Asked without the tools: with them in the prompt a small model answers with a call.
    assert (model.requests[0].tools, model.requests[0].tool_choice) == (None, None)


def _script() -> list[Any]:
    return [
        tool_call("create_invoice", {**GOOD, "amount_vnd": 0}),
        parallel(
            text("Creating both."),
            tool_call("create_invoice", GOOD),
            tool_call("create_invoice", {**GOOD, "customer_id": "CUS-654321"}),
        ),
    ]


def _summary(result: Any) -> Any:
    return (
        result.called,
        [(c.id, c.name, c.arguments, c.raw_arguments) for c in result.calls],
        result.content,
        [(a.error_kinds, a.raw_message.get("tool_calls")) for a in result.attempts],
        result.messages,
    )


@pytest.mark.parametrize("chunk_size", [1, 3, 64])
def test_stream_gives_the_same_result(create_invoice: Any, chunk_size: int) -> None:
    plain_model = ScriptedModel(_script())
    plain = ToolCallClient(
        base_url=plain_model.base_url,
        model="m",
        tools=[create_invoice],
        router="always",
        http_client=plain_model.http_client(),
        grounding=SCENARIO_GROUNDING,
    ).call("two invoices")

    streamed_model = ScriptedModel(_script(), chunk_size=chunk_size)
    with streamed_model.serve() as base_url:
        streamed = ToolCallClient(
            base_url=base_url,
            model="m",
            tools=[create_invoice],
            router="always",
            grounding=SCENARIO_GROUNDING,
        ).call("two invoices", stream=True)

    assert _summary(streamed) == _summary(plain)
    assert all(r.json and r.json["stream"] is True for r in streamed_model.calls_for("call"))
    assert streamed.usage.total_tokens > 0


async def test_async_stream(create_invoice: Any) -> None:
    model = ScriptedModel(_script(), chunk_size=2)
    with model.serve() as base_url:
        client = AsyncToolCallClient(
            base_url=base_url,
            model="m",
            tools=[create_invoice],
            router="always",
            grounding=SCENARIO_GROUNDING,
        )
        result = await client.call("two invoices", stream=True)
        await client.close()

    assert [c.arguments.customer_id for c in result.calls] == ["CUS-123456", "CUS-654321"]  # type: ignore[attr-defined]
    assert result.content == "Creating both."
