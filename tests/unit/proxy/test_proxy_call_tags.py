"""The proxy holds an `auto` answer's call with a tag, as the client does (`call_tags=`)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from toolcall_sdk.proxy import ProxyConfigError, create_app
from toolcall_sdk.testing import ScriptedModel, tool_call

from ._post import post_through_proxy

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
            },
            "required": ["customer_id", "amount_vnd"],
        },
    },
}
MESSAGES = [{"role": "user", "content": "Invoice CUS-000042 for 12.5 million VND."}]
RIGHT = {"customer_id": "CUS-000042", "amount_vnd": 12_500_000}


async def post(model: ScriptedModel, **options: Any) -> httpx2.Response:
    body = {"model": "m", "messages": MESSAGES, "tools": [INVOICE]}
    return await post_through_proxy(model, body, **options)


async def test_a_grounded_tag_holds_the_stated_values_of_the_callers_messages() -> None:
    model = ScriptedModel([tool_call("create_invoice", RIGHT)])

    response = await post(model, call_tags="grounded")

    assert response.status_code == 200
    [request] = model.calls_for("call")
    assert request.json is not None
    assert request.json["tool_choice"] == "auto"
    [compact, *_] = request.json["response_format"]["structures"]
    assert compact["begin"] == '{"name": "create_invoice", "arguments": '
    assert compact["schema"]["properties"]["customer_id"]["enum"] == ["CUS-000042"]
    assert 12_500_000 in compact["schema"]["properties"]["amount_vnd"]["enum"]


async def test_no_tag_unless_asked() -> None:
    model = ScriptedModel([tool_call("create_invoice", RIGHT)])

    await post(model)

    [request] = model.calls_for("call")
    assert request.json is not None
    assert "response_format" not in request.json


def test_an_unknown_mode_is_refused_at_start() -> None:
    with pytest.raises(ProxyConfigError, match="--call-tags must be one of off, schema, grounded"):
        create_app("http://127.0.0.1:1/v1", call_tags="on")
