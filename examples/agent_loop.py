"""Agent loop: validated steps until the model answers in text, with an approval on the way.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-7B-Instruct \
        python examples/agent_loop.py

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model: step 1 looks the
customer up (the tool reads the CRM from the run's deps), step 2 sends the invoice (the
run pauses until a person approves it; the pause is a JSON state), step 3 answers in text.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from toolcall_sdk import ApprovalRequired, RunContext, ToolCallClient, tool


@dataclass
class Crm:
    """What the tools need at run time; never shown to the model."""

    customers: dict[str, str]


@tool(timeout=5.0)
def find_customer(ctx: RunContext[Crm], name: str) -> str:
    """Find a customer's id by company name.

    Args:
        name: The company name, e.g. Acme.
    """
    return ctx.deps.customers.get(name.lower(), "no such customer")


@tool(requires_approval=True)
def send_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
) -> dict[str, Any]:
    """Send an invoice to a customer.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
        amount_vnd: Amount in Vietnamese dong.
    """
    return {"invoice_id": "INV-0007", "customer_id": customer_id, "amount_vnd": amount_vnd}


def make_client() -> ToolCallClient:
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        return ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            tools=[find_customer, send_invoice],
            # The loop ends when the router says "no tool", or when a later step (which may
            # answer: tool_choice="auto") answers in text; "always" forces the first step only.
            router=os.environ.get("TOOLCALL_ROUTER", "llm"),
        )
    from toolcall_sdk.testing import ScriptedModel, text, tool_call

    route_answers = iter([True, True, False])  # step 1 and 2 call a tool, step 3 answers
    scripted = ScriptedModel(
        [
            tool_call("find_customer", {"name": "Acme"}),
            tool_call("send_invoice", {"customer_id": "CUS-000042", "amount_vnd": 1500000}),
            text("Invoice INV-0007 for 1,500,000 VND is on its way to Acme."),
        ],
        route_answer=lambda request: next(route_answers),
    )
    return ToolCallClient(
        base_url=scripted.base_url,
        model="scripted",
        tools=[find_customer, send_invoice],
        http_client=scripted.http_client(),
    )


def main() -> None:
    client = make_client()
    crm = Crm(customers={"acme": "CUS-000042"})
    request = "Send Acme an invoice for 1500000 VND."
    try:
        result = client.run(request, max_steps=5, max_requests=12, deps=crm)
    except ApprovalRequired as paused:
        for step in paused.steps[:-1]:
            print(f"step {step.number}: {[(c.name, c.output) for c in step.calls]}")
        waiting = paused.steps[-1].number
        for call in paused.pending:
            print(f"step {waiting} waits: {call.name}({json.dumps(call.arguments)})")
        stored = paused.state  # plain JSON: keep it in a database until a person decides
        decisions = {call.id: True for call in paused.pending}
        print(f"approved: {sorted(decisions)}")
        # The resumed result's steps start at the paused one; its usage counts the whole run.
        result = client.resume(stored, approvals=decisions, deps=crm)
    for step in result.steps:
        if step.called:
            print(f"step {step.number}: {[(c.name, c.output) for c in step.calls]}")
        else:
            print(f"step {step.number}: answer {step.content!r}")
    print(f"{result.usage.total_tokens} tokens over the whole run")


if __name__ == "__main__":
    main()
