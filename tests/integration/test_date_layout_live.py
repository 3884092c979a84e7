"""A date in the layout its description asks for, on the real 0.5B: written year first by the
model, rewritten before validation.

BFCL's `multiple_64` asks for "the UV index for Tokyo for tomorrow, June01 2023." with three
tools whose `date` is a plain string described "in the format mm-dd-yyyy" (or mm/dd/yyyy). At
temperature 0 the demo model writes `date="2023-06-01"`; the client rewrites it as
`06-01-2023` before validation, without another request. The test asserts the request, the
answer and the call, never a rate.
"""

from __future__ import annotations

import json
from typing import Any

from toolcall_sdk import ToolCallClient
from toolcall_sdk.launcher import Server

from .conftest import MODEL


def _forecast(name: str, data: str, what: str, layout: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"Retrieve {data} data for a specified location and date.",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {
                        "type": "string",
                        "description": f"The location to retrieve the {what} for.",
                    },
                    "date": {
                        "type": "string",
                        "description": f"The date for the {what}, in the format {layout}",
                    },
                },
                "required": ["location", "date"],
            },
        },
    }


# As BFCL writes them, the stray quote of the second included.
TOOLS = [
    _forecast("uv_index_get_future", "UV index", "UV index", "mm-dd-yyyy."),
    _forecast("rainfall_prediction", "rainfall", "rainfall prediction", "mm/dd/yyyy.'"),
    _forecast("snowfall_prediction", "snowfall", "snowfall prediction", "mm-dd-yyyy."),
]
ASKED = "Give me the UV index for Tokyo for tomorrow, June01 2023."


def test_an_iso_date_is_written_in_the_described_layout_without_another_request(
    demo_server: Server,
) -> None:
    client = ToolCallClient(base_url=demo_server.base_url, model=MODEL, tools=TOOLS, max_tokens=200)

    result = client.call(ASKED)

    [attempt] = result.attempts
    [written] = attempt.raw_message["tool_calls"]
    assert written["function"]["name"] == "uv_index_get_future"
    assert json.loads(written["function"]["arguments"])["date"] == "2023-06-01"
    assert attempt.repairs == ["uv_index_get_future:date_layout:/date"]
    arguments = result.call.arguments.model_dump(by_alias=True)
    assert arguments == {"location": "Tokyo", "date": "06-01-2023"}
