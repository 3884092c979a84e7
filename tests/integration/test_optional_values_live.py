"""Optional values nobody gave, on the real 0.5B: left out where the tool documents the default.

BFCL's `simple_python_280` asks for "an acoustic instrument within my budget of $1000." The
tool's `make` is described "Default to not use if not specified."; at temperature 0 the demo
model adds `make="Fender"` to its `auto` answer. The default client leaves it out before
validation, without another request; `optional_values="any"` keeps it. The tests assert the
requests and the values, never a rate.
"""

from __future__ import annotations

import json
from typing import Any

from toolcall_sdk import ToolCallClient
from toolcall_sdk.grounding._unstated import OptionalValues
from toolcall_sdk.launcher import Server

from .conftest import MODEL

FIND_INSTRUMENT: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "find_instrument",
        "description": "Search for a musical instrument within specified budget and of specific "
        "type.",
        "parameters": {
            "type": "object",
            "properties": {
                "budget": {"type": "integer", "description": "Your budget for the instrument."},
                "type": {"type": "string", "description": "Type of the instrument"},
                "make": {
                    "type": "string",
                    "description": "Maker of the instrument. Default to not use if not specified.",
                },
            },
            "required": ["budget", "type"],
        },
    },
}
ASKED = "Find an acoustic instrument within my budget of $1000."


def _client(server: Server, mode: OptionalValues) -> ToolCallClient:
    return ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=[FIND_INSTRUMENT],
        max_tokens=200,
        optional_values=mode,
    )


def test_the_maker_nobody_named_is_left_out_without_another_request(
    demo_server: Server,
) -> None:
    result = _client(demo_server, "stated").call(ASKED)

    [attempt] = result.attempts
    [written] = attempt.raw_message["tool_calls"]
    assert '"make":"Fender"' in written["function"]["arguments"].replace(" ", "")
    assert attempt.repairs == ["find_instrument:unstated_optional:/make"]
    assert json.loads(result.call.raw_arguments) == {"budget": 1000, "type": "acoustic"}


def test_any_keeps_what_the_model_wrote(demo_server: Server) -> None:
    result = _client(demo_server, "any").call(ASKED)

    assert result.attempts[0].repairs == []
    assert json.loads(result.call.raw_arguments)["make"] == "Fender"
