"""The proxy checks grounding on the request's messages, as the client does."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from toolcall_sdk import RetryPolicy
from toolcall_sdk.proxy import ProxyConfigError, create_app
from toolcall_sdk.testing import ScriptedModel, tool_call

INVOICE: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "create_invoice",
        "description": "Create an invoice.",
        "parameters": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string", "pattern": r"^CUS-\d{6}$"},
                "amount_vnd": {"type": "integer"},
                "due_date": {"type": "string", "format": "date"},
            },
            "required": ["customer_id", "amount_vnd", "due_date"],
        },
    },
}
MESSAGES = [
    {"role": "system", "content": "You are the invoicing assistant."},
    {"role": "user", "content": "Invoice CUS-000042 for 12.5 million VND, due 2028-01-31."},
]
RIGHT = {"customer_id": "CUS-000042", "amount_vnd": 12_500_000, "due_date": "2028-01-31"}


async def no_sleep(seconds: float) -> None:
    """Backoffs are not waited for here."""


def proxy_for(model: ScriptedModel, **options: Any) -> httpx2.AsyncClient:
    app = create_app(
        model.base_url,
        http_client=model.async_http_client(),
        router="always",
        retry=RetryPolicy(async_sleep=no_sleep, jitter=0.0),
        **options,
    )
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://proxy")


async def post(model: ScriptedModel, **options: Any) -> httpx2.Response:
    async with proxy_for(model, **options) as caller:
        body = {"model": "m", "messages": MESSAGES, "tools": [INVOICE]}
        return await caller.post("/v1/chat/completions", json=body)


def arguments(response: httpx2.Response) -> dict[str, Any]:
    [call] = response.json()["choices"][0]["message"]["tool_calls"]
    return dict(json.loads(call["function"]["arguments"]))


async def test_a_wrong_amount_is_sent_back_before_the_caller_sees_it() -> None:
    model = ScriptedModel(
        [
            tool_call("create_invoice", {**RIGHT, "amount_vnd": 125_000_000}),
            tool_call("create_invoice", RIGHT),
        ]
    )

    response = await post(model, grounding="all")

    assert response.status_code == 200
    assert arguments(response) == RIGHT
    assert response.headers["x-toolcall-attempts"] == "2"
    first, second = model.chat_requests
    assert first.messages == MESSAGES
    assert second.messages[-1]["content"] == (
        "UNGROUNDED in create_invoice (call call_1):\n"
        "- amount_vnd: 125000000 is not a number the user gave; the user wrote "
        '"12.5 million VND" (= 12500000)\n'
        "Call create_invoice again with the values exactly as the user gave them."
    )


async def test_default_checks_identifiers_and_dates_off_and_no_option_check_nothing() -> None:
    invented = {**RIGHT, "due_date": "2028-01-13"}
    model = ScriptedModel(
        [tool_call("create_invoice", invented), tool_call("create_invoice", RIGHT)]
    )
    assert arguments(await post(model, grounding="default")) == RIGHT
    assert "2028-01-13 is not a date the user gave" in str(model.chat_requests[1].messages[-1])

    for options in ({"grounding": "off"}, {}):
        unchecked = ScriptedModel([tool_call("create_invoice", invented)])
        assert arguments(await post(unchecked, **options)) == invented
        assert len(unchecked.chat_requests) == 1


def test_an_unknown_grounding_name_is_refused() -> None:
    with pytest.raises(ProxyConfigError, match="--grounding must be one of default, all, off"):
        create_app("http://127.0.0.1:8000/v1", grounding="numbers")
