"""Several answers to one request: five answers decoded at once, one valid call kept.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \\
        python examples/samples.py

With `samples=5` each stage-2 request asks the server for five answers (`n=5`, one prompt)
at temperature 0.7, and the client keeps the calls most of the valid ones make. With the
grounding check on, an amount the user never stated (12.5 million written as 125000000)
is not valid, so it gets no vote, however many answers wrote it. Only the kept answer's
function runs, once.

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model, whose five answers
are three with the amount ten times over and two with the stated one.
"""

from __future__ import annotations

import os

from toolcall_sdk import ToolCallClient, tool

REQUEST = "Create an invoice for customer CUS-000042, amount 12.5 million VND."


@tool
def create_invoice(customer_id: str, amount_vnd: int) -> str:
    """Create an invoice for a customer; the amount in VND."""
    return f"INV-1 for {customer_id}: {amount_vnd:,} VND"


def main() -> None:
    options = {"tools": [create_invoice], "samples": 5, "grounding": True}
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        client = ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            router=os.environ.get("TOOLCALL_ROUTER", "always"),
            **options,
        )
    else:
        from toolcall_sdk.testing import Reply, ScriptedModel, choices, tool_call

        def answer(amount: int) -> Reply:
            return tool_call("create_invoice", {"customer_id": "CUS-000042", "amount_vnd": amount})

        scripted = ScriptedModel([choices(*(answer(a) for a in [125000000] * 3 + [12500000] * 2))])
        client = ToolCallClient(
            base_url=scripted.base_url,
            model="scripted",
            http_client=scripted.http_client(),
            router="always",
            **options,
        )

    result = client.run(REQUEST)
    for attempt in result.attempts:
        print(f"request {attempt.number}: {attempt.request.samples} answers, kept one")
    result.raise_for_errors()
    for call in result.calls:
        print(f"{call.name}({call.arguments!r}) -> {call.output}")


if __name__ == "__main__":
    main()
