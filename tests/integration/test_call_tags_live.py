"""Call tags on the real 0.5B: an `auto` answer's call held, once it starts, to the values
the user stated.

Under the default router the first stage-2 request is `auto`, which vLLM holds to no
grammar; at temperature 0 the demo model writes "12.5 million" as 125000000 there. With
`call_tags="grounded"` the request carries a structural tag triggered by the call object the
model writes, and the amount is decoded from the stated candidates. A call to a tool nobody
offered never triggers the tag, so it still ends as the pipeline's text answer. The tests
assert the requests and the values, never a rate.
"""

from __future__ import annotations

import pytest

from toolcall_sdk import ToolCallClient, ToolCallFailed
from toolcall_sdk._call_tags import CallTagMode
from toolcall_sdk.launcher import Server
from toolcall_sdk_demo.tools import DEMO_TOOLS

from .conftest import MODEL

INVOICE = "Invoice customer CUS-000042 for 12.5 million VND, due 2030-12-31."


def _client(server: Server, mode: CallTagMode) -> ToolCallClient:
    return ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=DEMO_TOOLS,
        max_tokens=200,
        max_retries=0,
        call_tags=mode,
    )


def test_an_auto_call_is_held_to_the_amount_the_user_stated(demo_server: Server) -> None:
    # Free, the ten-times amount is refused as a slip of the stated one (no retry here).
    with pytest.raises(ToolCallFailed) as free:
        _client(demo_server, "off").call(INVOICE)
    held = _client(demo_server, "grounded").call(INVOICE)

    [refused] = free.value.attempts
    [problem] = refused.problems
    assert (problem.kind, [(f.field, f.value) for f in problem.fields]) == (
        "ungrounded",
        [("amount_vnd", 125000000)],
    )
    assert held.call.arguments.model_dump()["amount_vnd"] == 12500000
    [attempt] = held.attempts
    assert attempt.request.tool_choice == "auto"
    assert attempt.request.constrained == (
        "create_invoice:/customer_id",
        "create_invoice:/amount_vnd",
        "create_invoice:/due_date",
    )
    assert refused.request.constrained == ()


def test_a_call_to_a_tool_nobody_offered_is_not_turned_into_an_offered_one(
    demo_server: Server,
) -> None:
    # The 0.5B answers with a call to a made-up `cat joke` tool: no trigger is that name, so
    # nothing holds it, and the pipeline asks again without tools.
    result = _client(demo_server, "grounded").call("Tell me a joke about cats.")

    assert not result.called
    assert result.content
    assert result.attempts[0].request.tool_choice == "auto"
