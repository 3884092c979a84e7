"""Calls held once they start: the model answers freely, and a call it writes is decoded
under its tool's schema, with the amount held to the ones the user stated.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \\
        python examples/call_tags.py

Under the default router the first request is `tool_choice="auto"`: the model may answer in
text, and vLLM holds its answer to no grammar. `call_tags="grounded"` adds an xgrammar
structural tag to that request: the text stays free until the model writes a call object to
an offered tool (`{"name": "create_invoice"`), and from there its arguments are decoded
under the schema, each number, date and identifier field held to the values the user
stated. The 0.5B demo model writes "12.5 million VND" as 125000000 without it and as
12500000 with it (tests/integration/test_call_tags_live.py).

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model and prints the tag the
request carried.
"""

from __future__ import annotations

import json
import os
from datetime import date

from toolcall_sdk import ToolCallClient, tool

REQUEST = "Invoice customer CUS-000042 for 12.5 million VND, due 2030-12-31."


@tool
def create_invoice(customer_id: str, amount_vnd: int, due_date: date) -> str:
    """Create an invoice for a customer; the amount in VND."""
    return f"INV-1 for {customer_id}: {amount_vnd:,} VND due {due_date}"


def main() -> None:
    options = {"tools": [create_invoice], "call_tags": "grounded"}
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    scripted = None
    if base_url:
        client = ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            **options,
        )
    else:
        from toolcall_sdk.testing import ScriptedModel, tool_call

        arguments = {"customer_id": "CUS-000042", "amount_vnd": 12500000, "due_date": "2030-12-31"}
        scripted = ScriptedModel([tool_call("create_invoice", arguments)])
        client = ToolCallClient(
            base_url=scripted.base_url,
            model="scripted",
            http_client=scripted.http_client(),
            **options,
        )

    result = client.run(REQUEST)
    for attempt in result.attempts:
        held = ", ".join(attempt.request.constrained) or "nothing"
        print(f"request {attempt.number} ({attempt.request.tool_choice}): held {held}")
    if scripted is not None:
        [request] = scripted.calls_for("call")
        tag = (request.json or {}).get("response_format", {})
        print("triggers:", json.dumps(tag.get("triggers", [])[:1]))
    result.raise_for_errors()
    for call in result.calls:
        print(f"{call.name}({call.arguments!r}) -> {call.output}")


if __name__ == "__main__":
    main()
