"""Every error of a run carries the run so far: `.steps` and the calls that ran, `.executed`."""

from __future__ import annotations

import itertools
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator

from toolcall_sdk import (
    ApprovalRequired,
    MaxStepsExceeded,
    RouterError,
    ServerUnavailableError,
    ToolCallFailed,
    ToolValidatorError,
    UsageLimitExceeded,
    tool,
)
from toolcall_sdk.testing import ScriptedModel, http_error, parallel, text, tool_call

from ..conftest import ClientFactory, Ledger

GOOD = {"customer_id": "CUS-000042", "amount_vnd": 10, "due_date": "2030-12-31"}
BAD = {**GOOD, "customer_id": "CUS-42"}


def test_tool_call_failed_in_step_two_carries_step_one_and_its_executed_call(
    make_client: ClientFactory, get_weather: Any, create_invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), *[tool_call("create_invoice", BAD)] * 3]
    )
    client = make_client(model, [get_weather, create_invoice], max_retries=2)

    with pytest.raises(ToolCallFailed) as failed:
        client.run("weather, then an invoice", max_steps=4)

    error = failed.value
    assert [s.number for s in error.steps] == [1]
    [first] = error.steps[0].calls
    assert (first.name, first.executed, first.output) == (
        "get_weather",
        True,
        "18 degrees celsius in Oslo",
    )
    assert [c.id for c in error.executed] == [first.id]
    assert [c.name for c in error.executed] == ["get_weather"]
    # `.attempts` are the failed step's: its three rejected answers.
    assert [a.error_kinds for a in error.attempts] == [["invalid_arguments"]] * 3
    assert ledger.count("create_invoice") == 0
    assert len(model.chat_requests) == 4


def test_a_model_retry_in_the_failed_step_adds_its_own_executed_calls(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    from toolcall_sdk import ModelRetry

    @tool
    def check_stock(sku: str) -> int:
        """Units in stock."""
        ledger.calls.append(("check_stock", {"sku": sku}))
        raise ModelRetry("unknown sku; ask the user")

    model = ScriptedModel(
        [
            tool_call("get_weather", {"city": "Oslo"}),
            parallel(
                tool_call("get_weather", {"city": "Hue"}), tool_call("check_stock", {"sku": "x"})
            ),
            tool_call("check_stock", {"sku": "y"}),
        ]
    )
    client = make_client(model, [get_weather, check_stock], max_retries=1)

    with pytest.raises(ToolCallFailed) as failed:
        client.run("go", max_steps=3)

    assert [c.arguments.model_dump()["city"] for c in failed.value.executed] == ["Oslo", "Hue"]
    assert [s.number for s in failed.value.steps] == [1]


def test_a_transport_error_in_step_two_carries_step_one(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"}), *[http_error(503)] * 4])
    client = make_client(model, [get_weather])

    with pytest.raises(ServerUnavailableError) as raised:
        client.run("weather", max_steps=3)

    assert [s.number for s in raised.value.steps] == [1]
    assert [c.name for c in raised.value.executed] == ["get_weather"]
    assert ledger.count("get_weather") == 1


def test_a_router_error_in_step_two_carries_step_one(
    make_client: ClientFactory, get_weather: Any
) -> None:
    asked = itertools.count()

    def router(messages: Any, tools: Any) -> bool:
        if next(asked):
            raise KeyError("router state")
        return True

    model = ScriptedModel([tool_call("get_weather", {"city": "Oslo"})])
    client = make_client(model, [get_weather], router=router)

    with pytest.raises(RouterError) as raised:
        client.run("weather", max_steps=3)

    assert [s.number for s in raised.value.steps] == [1]
    assert [c.name for c in raised.value.executed] == ["get_weather"]


def test_a_validator_bug_in_step_two_carries_step_one(
    make_client: ClientFactory, get_weather: Any
) -> None:
    def crash(value: str) -> str:
        raise ZeroDivisionError("a bug in the tool")

    @tool
    def lookup(code: Annotated[str, AfterValidator(crash)]) -> str:
        """Look a code up."""
        return code

    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), tool_call("lookup", {"code": "a"})]
    )
    client = make_client(model, [get_weather, lookup])

    with pytest.raises(ToolValidatorError) as raised:
        client.run("go", max_steps=3)

    assert [s.number for s in raised.value.steps] == [1]
    assert [c.name for c in raised.value.executed] == ["get_weather"]


def test_the_run_bounds_say_what_ran(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    cities = itertools.count(1)
    model = ScriptedModel(
        lambda request: tool_call("get_weather", {"city": f"C{next(cities)}"}, usage=(100, 20))
    )
    client = make_client(model, [get_weather])

    with pytest.raises(MaxStepsExceeded) as stopped:
        client.run("weather", max_steps=2)
    with pytest.raises(UsageLimitExceeded) as limited:
        client.run("weather", max_steps=5, max_requests=2)

    assert [c.arguments.model_dump()["city"] for c in stopped.value.executed] == ["C1", "C2"]
    assert [c.arguments.model_dump()["city"] for c in limited.value.executed] == ["C3", "C4"]
    assert [s.number for s in limited.value.steps] == [1, 2]


def test_an_approval_pause_says_what_ran_before_it(
    make_client: ClientFactory, get_weather: Any, ledger: Ledger
) -> None:
    @tool(requires_approval=True)
    def send_payment(account: str) -> str:
        """Send a payment."""
        return "PAY-1"

    model = ScriptedModel(
        [tool_call("get_weather", {"city": "Oslo"}), tool_call("send_payment", {"account": "A"})]
    )
    client = make_client(model, [get_weather, send_payment])

    with pytest.raises(ApprovalRequired) as paused:
        client.run("weather, then pay", max_steps=3)

    assert [c.name for c in paused.value.executed] == ["get_weather"]
    assert [s.number for s in paused.value.steps] == [1, 2]


def test_errors_outside_a_run_have_no_steps(
    make_client: ClientFactory, create_invoice: Any
) -> None:
    model = ScriptedModel([tool_call("create_invoice", BAD)] * 3)
    client = make_client(model, [create_invoice])

    with pytest.raises(ToolCallFailed) as failed:
        client.call("invoice")

    assert (failed.value.steps, failed.value.executed) == ([], [])
    assert (RouterError("x").steps, RouterError("x").executed) == ([], [])


def test_a_text_answer_after_a_failed_retry_is_not_an_error(
    make_client: ClientFactory, create_invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("create_invoice", GOOD), tool_call("create_invoice", BAD), text("Done.")]
    )
    client = make_client(model, [create_invoice], max_retries=1)

    assert client.run("invoice", max_steps=3).content == "Done."
