"""Quickstart: one validated tool call from a running vLLM (or any OpenAI-compatible) server.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-7B-Instruct \
        python examples/quickstart.py

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model, which answers first
with an invalid customer id and then with a valid one, so the feedback loop shows offline.
"""

from __future__ import annotations

import os
from datetime import date
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from toolcall_sdk import ToolCallClient, tool


def not_in_past(value: date) -> date:
    if value < date.today():
        raise ValueError("must not be in the past")
    return value


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: Annotated[date, AfterValidator(not_in_past)],
) -> dict[str, Any]:
    """Create an invoice for a customer.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
        amount_vnd: Amount in Vietnamese dong.
        due_date: Payment due date (YYYY-MM-DD).
    """
    return {"invoice_id": "INV-0001", "customer_id": customer_id, "due": due_date.isoformat()}


def main() -> None:
    request = "Invoice customer CUS-000042 for 1500000 VND, due 2030-12-31."
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        client = ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            tools=[create_invoice],
            max_retries=2,
            # The default lets the model's own answer decide whether a tool is needed.
            router=os.environ.get("TOOLCALL_ROUTER", "llm"),
        )
    else:
        from toolcall_sdk.testing import ScriptedModel, tool_call

        scripted = ScriptedModel(
            [
                tool_call(
                    "create_invoice",
                    {"customer_id": "CUS-42", "amount_vnd": 1500000, "due_date": "2030-12-31"},
                ),
                tool_call(
                    "create_invoice",
                    {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"},
                ),
            ]
        )
        client = ToolCallClient(
            base_url=scripted.base_url,
            model="scripted",
            tools=[create_invoice],
            http_client=scripted.http_client(),
        )

    result = client.run(request)
    for attempt in result.attempts:
        if attempt.ok:
            print(f"attempt {attempt.number}: ok")
            continue
        # What the SDK sent back to the model: the field, what was wrong, the value it sent.
        print(f"attempt {attempt.number} rejected; the model was told:")
        for message in attempt.feedback:
            print("    " + str(message["content"]).replace("\n", "\n    "))
    result.raise_for_errors()  # a business function that raised surfaces here, typed
    call = result.calls[0]
    print(f"{call.name}({call.arguments!r}) -> {call.output}")


if __name__ == "__main__":
    main()
