"""Grounded decoding on the real 0.5B: the amount the user stated, decoded under an enum.

At temperature 0 the demo model, forced to call `create_invoice` (a named choice), writes
the amount ten times too large ("12.5 million" as 125000000). Held to the numbers the
conversation states, it writes the stated one. The tests assert the request and the value,
never a rate.
"""

from __future__ import annotations

import pytest

from toolcall_sdk import ToolCallClient, ToolCallFailed
from toolcall_sdk.grounding._decoding import DecodingMode
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo.tools import create_invoice

from .conftest import MODEL


def _client(server: Server, mode: DecodingMode) -> ToolCallClient:
    return ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=[create_invoice],
        router="always",
        max_tokens=200,
        max_retries=0,
        grounded_decoding=mode,
    )


@pytest.mark.parametrize(
    ("prompt", "stated", "unheld"),
    [
        ("Invoice customer CUS-000042 for 12.5 million VND, due 2030-12-31.", 12500000, 125000000),
        ("Invoice customer CUS-000042 one million VND, due 2030-12-31.", 1000000, 10000000),
    ],
    ids=["12.5-million", "one-million"],
)
def test_a_forced_call_holds_the_amount_to_the_one_the_user_stated(
    demo_server: Server, prompt: str, stated: int, unheld: int
) -> None:
    # Free, the slipped amount is refused (no retry here): the check's slip rule.
    with pytest.raises(ToolCallFailed) as free:
        _client(demo_server, "off").call(prompt)
    held = _client(demo_server, "forced").call(prompt)

    [refused] = free.value.attempts
    assert [(f.field, f.value) for p in refused.problems for f in p.fields] == [
        ("amount_vnd", unheld)
    ]
    assert held.call.arguments.model_dump()["amount_vnd"] == stated
    assert held.attempts[0].request.constrained == (
        "create_invoice:/customer_id",
        "create_invoice:/amount_vnd",
        "create_invoice:/due_date",
    )
    assert refused.request.constrained == ()


def test_the_default_client_refuses_a_slipped_amount_and_holds_the_retry_to_the_stated_one(
    demo_server: Server,
) -> None:
    # Grounding and grounded decoding off, the client's defaults: the ten-times amount is a
    # slip of the stated one, fed back, and the forced retry holds only that field.
    client = ToolCallClient(
        base_url=demo_server.base_url, model=MODEL, tools=[create_invoice], max_tokens=200
    )

    result = client.call("Invoice customer CUS-000042 for 12.5 million VND, due 2030-12-31.")

    first, retry = result.attempts
    assert [(f.field, f.value) for p in first.problems for f in p.fields] == [
        ("amount_vnd", 125000000)
    ]
    assert retry.request.constrained == ("create_invoice:/amount_vnd",)
    assert result.call.arguments.model_dump()["amount_vnd"] == 12500000
