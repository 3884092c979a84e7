"""Tools inside the agent loop: timeouts, concurrent calls (async), injected dependencies."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator, ValidationInfo

from toolcall_sdk import (
    AsyncToolCallClient,
    ModelRetry,
    RunContext,
    ToolDefinitionError,
    ToolExecutionError,
    ToolTimeoutError,
    tool,
)
from toolcall_sdk.testing import RecordedRequest, ScriptedModel, parallel, text, tool_call

from ..conftest import ClientFactory


def verdicts(*answers: bool) -> Callable[[RecordedRequest], bool]:
    queue = list(answers)
    return lambda request: queue.pop(0)


# --- timeouts -------------------------------------------------------------------------


def test_a_sync_tool_over_its_timeout_is_recorded_reported_and_never_rerun(
    make_client: ClientFactory,
) -> None:
    release = threading.Event()
    started: list[str] = []

    @tool(timeout=0.05)
    def monthly_report(month: str) -> str:
        """Build the monthly report."""
        started.append(month)
        release.wait(5)  # held until the test ends: only the timeout lets the run go on
        return "late"

    model = ScriptedModel(
        [tool_call("monthly_report", {"month": "2026-05"}), text("The report timed out.")],
        route_answer=verdicts(True, False),
    )
    client = make_client(model, [monthly_report], router="probe")
    try:
        result = client.run("May report", max_steps=3)
    finally:
        release.set()

    assert started == ["2026-05"]
    call = result.steps[0].calls[0]
    assert call.executed is True
    assert isinstance(call.error, ToolTimeoutError)
    assert (call.error.timeout, call.error.tool_name, call.error.call_id) == (
        0.05,
        "monthly_report",
        "call_1",
    )
    assert model.calls_for("answer")[0].messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "ERROR: ToolTimeoutError: tool 'monthly_report' did not finish within its "
        "timeout of 0.05 s; it was not run again",
    }
    assert result.content == "The report timed out."
    assert len(model.calls_for("call")) == 1
    with pytest.raises(ToolExecutionError, match="did not finish"):
        result.raise_for_errors()


def test_an_async_tool_over_its_timeout_is_cancelled_and_the_run_goes_on(
    make_client: ClientFactory,
) -> None:
    started: list[str] = []

    @tool(timeout=0.05)
    async def fetch_rates(currency: str) -> str:
        """Fetch exchange rates."""
        started.append(currency)
        await asyncio.Event().wait()  # never set: only cancellation ends it
        return "never"

    model = ScriptedModel(
        [tool_call("fetch_rates", {"currency": "VND"}), text("Rates are unavailable.")],
        route_answer=verdicts(True, False),
    )
    client = make_client(model, [fetch_rates], router="probe")

    result = client.run("VND rates?", max_steps=2)

    assert started == ["VND"]
    assert isinstance(result.steps[0].calls[0].error, ToolTimeoutError)
    assert result.content == "Rates are unavailable."


def test_a_tools_own_timeout_error_is_not_taken_for_the_deadline(
    make_client: ClientFactory,
) -> None:
    @tool(timeout=5)
    def upstream(query: str) -> str:
        """Ask the upstream service."""
        raise TimeoutError("upstream did not answer")

    model = ScriptedModel([tool_call("upstream", {"query": "x"})])
    client = make_client(model, [upstream])

    result = client.run("x")

    assert type(result.call.error) is TimeoutError
    assert result.messages[-1]["content"] == "ERROR: TimeoutError: upstream did not answer"


@pytest.mark.parametrize("timeout", [0, -1.0, True, "5"])
def test_a_timeout_must_be_positive_seconds(timeout: Any) -> None:
    with pytest.raises(ToolDefinitionError, match="timeout must be a number of seconds above 0"):

        @tool(timeout=timeout)
        def anything(x: int) -> int:
            """Anything."""
            return x


# --- concurrency --------------------------------------------------------------------


async def test_async_runs_the_calls_of_one_answer_concurrently_in_call_order(
    make_async_client: Callable[..., AsyncToolCallClient],
) -> None:
    left_started, right_started, right_done = asyncio.Event(), asyncio.Event(), asyncio.Event()
    finished: list[str] = []

    # Each waits for the other to start: run one after the other, the first would wait
    # until its timeout; only concurrent execution finishes both.
    @tool(timeout=5)
    async def left(x: int) -> str:
        """Left."""
        left_started.set()
        await right_started.wait()
        await right_done.wait()
        finished.append("left")
        return "left done"

    @tool(timeout=5)
    async def right(x: int) -> str:
        """Right."""
        right_started.set()
        await left_started.wait()
        finished.append("right")
        right_done.set()
        return "right done"

    model = ScriptedModel(
        [parallel(tool_call("left", {"x": 1}), tool_call("right", {"x": 2})), text("Both done.")],
        route_answer=verdicts(True, False),
    )
    client = make_async_client(model, [left, right], router="probe")

    result = await client.run("both", max_steps=2)
    await client.close()

    assert finished == ["right", "left"]
    assert [c.output for c in result.steps[0].calls] == ["left done", "right done"]
    assert [c.error for c in result.calls] == [None, None]
    assert model.calls_for("answer")[0].messages[-2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "left done"},
        {"role": "tool", "tool_call_id": "call_2", "content": "right done"},
    ]


async def test_async_concurrent_calls_keep_exactly_once_under_model_retry(
    make_async_client: Callable[..., AsyncToolCallClient],
) -> None:
    ran: list[str] = []

    @tool
    async def get_order(order_id: str) -> str:
        """Look up an order."""
        ran.append(f"order {order_id}")
        if order_id == "bad":
            raise ModelRetry("no order 'bad'; ids look like ORD-1")
        return "shipped"

    @tool
    async def get_stock(sku: str) -> int:
        """Stock of a product."""
        ran.append(f"stock {sku}")
        return 7

    model = ScriptedModel(
        [
            parallel(
                tool_call("get_order", {"order_id": "bad"}), tool_call("get_stock", {"sku": "A"})
            ),
            tool_call("get_order", {"order_id": "ORD-1"}),
        ]
    )
    client = make_async_client(model, [get_order, get_stock])

    result = await client.run("order and stock")
    await client.close()

    # Concurrent: the stock call ran beside the retried one, once, and kept its output.
    assert sorted(ran) == ["order ORD-1", "order bad", "stock A"]
    assert [(c.name, c.output) for c in result.calls] == [
        ("get_stock", 7),
        ("get_order", "shipped"),
    ]
    retry = model.calls_for("call")[1].messages[-2:]
    assert retry[0]["tool_call_id"] == "call_1"
    assert "no order 'bad'" in retry[0]["content"]
    assert retry[1] == {"role": "tool", "tool_call_id": "call_2", "content": "7"}


# --- injected dependencies ---------------------------------------------------------------


@dataclass
class Shop:
    user_id: str
    orders: dict[str, str]


def owned_order(value: str, info: ValidationInfo) -> str:
    context = info.context
    assert isinstance(context, RunContext)
    if value not in context.deps.orders:
        raise ValueError(f"user {context.deps.user_id} has no order {value}")
    return value


def test_deps_reach_the_tool_and_its_validators_but_not_the_schema(
    make_client: ClientFactory,
) -> None:
    seen: list[tuple[Any, ...]] = []

    @tool
    def cancel_order(
        ctx: RunContext[Shop], order_id: Annotated[str, AfterValidator(owned_order)]
    ) -> str:
        """Cancel one of the user's orders."""
        seen.append((ctx.deps.user_id, ctx.tool_name, ctx.call_id, ctx.step))
        seen.append(ctx.validation_context)
        return f"cancelled {order_id} ({ctx.deps.orders[order_id]})"

    model = ScriptedModel(
        [
            tool_call("cancel_order", {"order_id": "O-9"}),
            tool_call("cancel_order", {"order_id": "O-1"}),
        ]
    )
    client = make_client(model, [cancel_order], validation_context={"today": "2026-06-01"})
    shop = Shop(user_id="u-7", orders={"O-1": "2 books"})

    result = client.run("cancel my order", deps=shop)

    parameters = client.tool_schemas[0]["function"]["parameters"]
    assert list(parameters["properties"]) == ["order_id"]
    assert model.calls_for("call")[0].tools == [client.tool_schemas[0]]
    feedback = model.calls_for("call")[1].messages[-1]["content"]
    assert "user u-7 has no order O-9" in feedback
    assert seen == [("u-7", "cancel_order", "call_2", 1), {"today": "2026-06-01"}]
    assert result.call.output == "cancelled O-1 (2 books)"


def test_a_tool_asking_for_the_context_gets_an_empty_one_without_deps(
    make_client: ClientFactory,
) -> None:
    got: list[Any] = []

    @tool
    def whoami(ctx: RunContext[None], verbose: bool = False) -> str:
        """Who is asking."""
        got.append(ctx.deps)
        return "anonymous"

    model = ScriptedModel([tool_call("whoami", {})])
    client = make_client(model, [whoami])

    assert client.run("who am I?").call.output == "anonymous"
    assert got == [None]


def test_a_context_parameter_next_to_a_single_model_parameter() -> None:
    from pydantic import BaseModel

    class Order(BaseModel):
        sku: str

    @tool
    def place(ctx: RunContext[str], order: Order) -> str:
        """Place an order."""
        return f"{ctx.deps}:{order.sku}"

    assert place.args_model is Order
    assert place.invoke(Order(sku="A"), RunContext(deps="u-1")) == "u-1:A"


def test_two_context_parameters_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="RunContext"):

        @tool
        def twice(a: RunContext[int], b: RunContext[int], x: int) -> int:
            """Twice."""
            return x


def test_a_sibling_error_is_reported_as_such_when_another_call_retries(
    make_client: ClientFactory,
) -> None:
    @tool
    def charge(amount: int) -> str:
        """Charge a card."""
        raise RuntimeError("card declined")

    @tool
    def get_order(order_id: str) -> str:
        """Look up an order."""
        if order_id == "bad":
            raise ModelRetry("no order 'bad'")
        return "shipped"

    model = ScriptedModel(
        [
            parallel(
                tool_call("charge", {"amount": 5}), tool_call("get_order", {"order_id": "bad"})
            ),
            tool_call("get_order", {"order_id": "ORD-1"}),
        ]
    )
    client = make_client(model, [charge, get_order])

    result = client.run("charge and order")

    assert model.calls_for("call")[1].messages[-2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "ERROR: RuntimeError: card declined",
    }
    assert [c.name for c in result.calls] == ["charge", "get_order"]
