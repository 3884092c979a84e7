"""Agent loop: validated steps until the model answers in text, with an approval on the way.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-7B-Instruct \
        python examples/agent_loop.py

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model: step 1 looks the
customer up (the tool reads the CRM from the run's deps), step 2 sends the invoice (the
run pauses until a person approves it; the pause is a JSON state), step 3 answers in text.

The integration tier runs it on the real demo model (`toolcall-sdk launch --demo`,
Qwen2.5-Coder-0.5B) at temperature 0: the model looks Acme up, asks to send the invoice
(approved), and the run ends with a plain answer. What got the 0.5B that far, worth copying
for small models: the request names the steps; `send_invoice` accepts only a customer id
the CRM knows (a made-up one goes back to the model as feedback); and the router is a
function that knows when the task is done (`until_sent`), so the last step is asked without
the tools (with them the 0.5B sends the invoice again, and the loop guard stops the run).
The 0.5B's last answer is still the call written out as JSON text, not a sentence: the
loop ends as it should, the model cannot yet say so in words.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, Field, ValidationInfo

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


def known_customer(value: str, info: ValidationInfo) -> str:
    """Accept only an id the CRM has: a made-up id goes back to the model as feedback."""
    if info.context is not None and value not in info.context.deps.customers.values():
        raise ValueError("unknown customer id: look the customer up with find_customer first")
    return value


@tool(requires_approval=True)
def send_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$"), AfterValidator(known_customer)],
    amount_vnd: Annotated[int, Field(gt=0)],
) -> str:
    """Send an invoice to a customer.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
        amount_vnd: Amount in Vietnamese dong.
    """
    # A sentence the model can pass on to the user as it is.
    return f"Sent invoice INV-0007 for {amount_vnd} VND to {customer_id}."


def until_sent(messages: list[dict[str, Any]], tools: list[Any]) -> bool:
    """A router that knows the task: call tools until the invoice is sent, then answer.

    Its "no tool" ends the run with a plain answer, asked without the tools: a small model
    that sees the tools after a result tends to call again; without them it writes text.
    """
    return not any(
        m.get("role") == "tool" and "Sent invoice" in str(m.get("content")) for m in messages
    )


def make_client() -> ToolCallClient:
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        return ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            tools=[find_customer, send_invoice],
            # The router knows the task, so its "call" holds at every step: each step forces a
            # call until the invoice is sent, and its "no tool" ends the run with a plain
            # answer. Left to answer under auto after the look-up (the default), the 0.5B demo
            # model wrote the id as its answer in about half of the runs on vLLM's CPU build.
            # TOOLCALL_ROUTER=llm asks the model instead (for models trained on it).
            router=os.environ.get("TOOLCALL_ROUTER") or until_sent,
            force="every_step",
            # A loaded CPU server answers slowly; the client's default suits a GPU.
            timeout=float(os.environ.get("TOOLCALL_TIMEOUT", "600")),
            # A bound on every answer: a small model's reply can otherwise run on to the
            # context limit, minutes on a CPU.
            max_tokens=256,
        )
    from toolcall_sdk.testing import ScriptedModel, text, tool_call

    scripted = ScriptedModel(
        [
            tool_call("find_customer", {"name": "Acme"}),
            tool_call("send_invoice", {"customer_id": "CUS-000042", "amount_vnd": 1500000}),
            text("Invoice INV-0007 for 1,500,000 VND is on its way to Acme."),
        ]
    )
    return ToolCallClient(
        base_url=scripted.base_url,
        model="scripted",
        tools=[find_customer, send_invoice],
        router=until_sent,
        force="every_step",
        http_client=scripted.http_client(),
    )


def main() -> None:
    client = make_client()
    crm = Crm(customers={"acme": "CUS-000042"})
    request = "Look up the customer id of Acme, then send Acme an invoice for 1500000 VND."
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
