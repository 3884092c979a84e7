"""Grounded arguments: a wrong amount that every schema accepts is caught and corrected.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-7B-Instruct \
        python examples/grounded_amounts.py

The user asks for 12.5 million VND. A small model answers 125000000: a positive integer, so
the schema and Pydantic accept it. `grounding=True` looks for each identifier, number and
date of the call in the conversation, finds no number that means 125000000, and sends the
model what the user wrote instead; nothing runs until the call is right. The VAT is marked
`Derived()`: the model computes it, so it is never looked for.

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model, which answers first
with the amount a real Qwen2.5-Coder-0.5B sent (125000000), then with the right one.
"""

from __future__ import annotations

import os
from datetime import date
from typing import Annotated, Any

from pydantic import Field

from toolcall_sdk import Derived, ToolCallClient, tool


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    vat_vnd: Annotated[int, Field(ge=0), Derived()],
    due_date: date,
) -> dict[str, Any]:
    """Create an invoice for a customer.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
        amount_vnd: Amount in Vietnamese dong, before VAT.
        vat_vnd: The VAT: 8% of the amount.
        due_date: Payment due date (YYYY-MM-DD).
    """
    return {"invoice_id": "INV-0001", "total_vnd": amount_vnd + vat_vnd}


def main() -> None:
    request = "Invoice customer CUS-000042 for 12.5 million VND plus VAT, due 2030-12-31."
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        client = ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            tools=[create_invoice],
            router=os.environ.get("TOOLCALL_ROUTER", "llm"),
            grounding=True,  # numbers too: the default checks identifiers and dates
        )
    else:
        from toolcall_sdk.testing import ScriptedModel, tool_call

        call = {"customer_id": "CUS-000042", "due_date": "2030-12-31"}
        scripted = ScriptedModel(
            [
                tool_call("create_invoice", {**call, "amount_vnd": 125000000, "vat_vnd": 10000000}),
                tool_call("create_invoice", {**call, "amount_vnd": 12500000, "vat_vnd": 1000000}),
            ]
        )
        client = ToolCallClient(
            base_url=scripted.base_url,
            model="scripted",
            tools=[create_invoice],
            http_client=scripted.http_client(),
            grounding=True,
        )

    result = client.run(request)
    for attempt in result.attempts:
        if attempt.ok:
            print(f"attempt {attempt.number}: ok")
            continue
        print(f"attempt {attempt.number} rejected ({', '.join(attempt.error_kinds)}); told:")
        for message in attempt.feedback:
            print("    " + str(message["content"]).replace("\n", "\n    "))
    result.raise_for_errors()
    call = result.calls[0]
    print(f"{call.name}({call.arguments!r}) -> {call.output}")


if __name__ == "__main__":
    main()
