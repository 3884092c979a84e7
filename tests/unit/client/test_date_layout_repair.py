"""A year-first date is written in the layout its parameter's description asks for, before
the function runs and with no re-ask (BFCL `multiple_64` on the 0.5B demo model)."""

from __future__ import annotations

from typing import Any

from toolcall_sdk import tool_from_openai
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory

UV_INDEX: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "uv_index_get_future",
        "description": "Retrieve UV index data for a specified location and date.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The location."},
                "date": {
                    "type": "string",
                    "description": "The date for the UV index, in the format mm-dd-yyyy.",
                },
            },
            "required": ["location", "date"],
        },
    },
}
ASKED = "Give me the UV index for Tokyo for tomorrow, June01 2023."


def _run(make_client: ClientFactory, date: str, **options: Any) -> tuple[Any, list[Any], Any]:
    ran: list[Any] = []

    def uv_index(arguments: dict[str, Any]) -> str:
        ran.append(arguments)
        return "UV 7"

    model = ScriptedModel([tool_call("uv_index_get_future", {"location": "Tokyo", "date": date})])
    client = make_client(model, [tool_from_openai(UV_INDEX, uv_index)], **options)
    return client.run(ASKED), ran, model


def test_an_iso_date_is_written_as_the_description_asks(make_client: ClientFactory) -> None:
    result, ran, model = _run(make_client, "2023-06-01")

    assert ran == [{"location": "Tokyo", "date": "06-01-2023"}]
    assert len(model.chat_requests) == 1
    assert result.attempts[0].repairs == ["uv_index_get_future:date_layout:/date"]
    assert result.attempts[0].problems == []


def test_a_date_already_in_the_layout_or_of_uncertain_order_is_left_alone(
    make_client: ClientFactory,
) -> None:
    for written in ("06-01-2023", "01/06/2023"):
        result, ran, _ = _run(make_client, written)

        assert ran == [{"location": "Tokyo", "date": written}]
        assert result.attempts[0].repairs == []
