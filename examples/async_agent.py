"""A multi-step async agent: several customers' requests at once on one AsyncToolCallClient.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-7B-Instruct \
        python examples/async_agent.py

Each request is a run of up to six steps (`run(max_steps=6)`): find the customer, list the
overdue invoices, send one reminder per invoice (the calls of one answer run concurrently),
then answer in text. The three runs share one client and run concurrently with
`asyncio.gather`; the tools are async, as ones that query a database or an API would be.

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model, which plays the model:
it reads each request's conversation and answers with the next call, so the interleaved runs
each get their own answers. There a rule decides when a run is done (a router callable);
against a server, the default LLM router asks the model.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field

from toolcall_sdk import AsyncToolCallClient, ToolCallResult, tool

CUSTOMERS = {"acme": "CUS-000042", "globex": "CUS-000107", "initech": "CUS-000311"}
OVERDUE = {"CUS-000042": ["INV-0007", "INV-0011"], "CUS-000107": ["INV-0019"], "CUS-000311": []}
CustomerId = Annotated[str, Field(pattern=r"^CUS-\d{6}$")]
reminders: list[tuple[str, str]] = []


@tool
async def find_customer(name: str) -> str:
    """Find a customer's id by company name.

    Args:
        name: The company name, e.g. Acme.
    """
    await asyncio.sleep(0.01)  # a database round trip
    return CUSTOMERS.get(name.lower(), "no such customer")


@tool
async def overdue_invoices(customer_id: CustomerId) -> list[str]:
    """List the ids of a customer's overdue invoices.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
    """
    await asyncio.sleep(0.01)
    return OVERDUE.get(customer_id, [])


@tool
async def send_reminder(
    customer_id: CustomerId, invoice_id: Annotated[str, Field(pattern=r"^INV-\d{4}$")]
) -> str:
    """Email the customer a payment reminder for one invoice.

    Args:
        customer_id: Customer id, CUS- followed by six digits.
        invoice_id: Invoice id, INV- followed by four digits.
    """
    await asyncio.sleep(0.01)  # the mail API
    reminders.append((customer_id, invoice_id))
    return f"reminder for {invoice_id} sent"


TOOLS = [find_customer, overdue_invoices, send_reminder]


def make_client() -> AsyncToolCallClient:
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        return AsyncToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            tools=TOOLS,
        )
    from toolcall_sdk.testing import ScriptedModel

    scripted = ScriptedModel(lambda request: play(request.messages))
    return AsyncToolCallClient(
        base_url=scripted.base_url,
        model="scripted",
        tools=TOOLS,
        router=workflow_done_rule,
        http_client=scripted.async_http_client(),
    )


def last_calls(messages: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The last assistant message's calls and the tool results that answer them."""
    index = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    calls = [call["function"] for call in messages[index].get("tool_calls") or []]
    return calls, [m["content"] for m in messages[index + 1 :] if m["role"] == "tool"]


def play(messages: Sequence[dict[str, Any]]) -> Any:
    """The scripted model's answer to a conversation: the workflow's next call, or the end."""
    from toolcall_sdk.testing import parallel, text, tool_call

    if messages[-1]["role"] == "user":
        company = re.search(r"Remind (\w+)", messages[-1]["content"])
        return tool_call("find_customer", {"name": company.group(1) if company else ""})
    calls, results = last_calls(messages)
    if calls[0]["name"] == "find_customer":
        return tool_call("overdue_invoices", {"customer_id": results[0]})
    if calls[0]["name"] == "overdue_invoices" and json.loads(results[0]):
        customer = json.loads(calls[0]["arguments"])["customer_id"]
        # Like a small model, it first drops the zeros of Globex's invoice number.
        invoices = [
            i.replace("-00", "-") if customer == "CUS-000107" else i for i in json.loads(results[0])
        ]
        return parallel(
            *(
                tool_call("send_reminder", {"customer_id": customer, "invoice_id": i})
                for i in invoices
            )
        )
    if calls[0]["name"] == "send_reminder" and results[0].startswith("VALIDATION_ERROR"):
        fixed = json.loads(calls[0]["arguments"])
        fixed["invoice_id"] = "INV-" + fixed["invoice_id"].removeprefix("INV-").zfill(4)
        return tool_call("send_reminder", fixed)
    if calls[0]["name"] == "overdue_invoices":
        return text("Nothing is overdue; no reminder sent.")
    return text(f"Sent {len(results)} reminder(s): {'; '.join(results)}.")


def workflow_done_rule(messages: Sequence[dict[str, Any]], tools: Any) -> bool:
    """Offline stand-in for the LLM router: a tool is needed until the reminders are out."""
    if messages[-1]["role"] == "user":
        return True
    calls, results = last_calls(messages)
    if calls[0]["name"] == "send_reminder":
        return False
    return not (calls[0]["name"] == "overdue_invoices" and json.loads(results[0]) == [])


async def handle(client: AsyncToolCallClient, request: str) -> ToolCallResult:
    return await client.run(request, max_steps=6, max_requests=20)


async def main() -> None:
    requests = [
        "Remind Acme about their overdue invoices.",
        "Remind Globex about their overdue invoices.",
        "Remind Initech about their overdue invoices.",
    ]
    async with make_client() as client:
        results = await asyncio.gather(*(handle(client, r) for r in requests))
    for request, result in zip(requests, results, strict=True):
        print(request)
        for step in result.steps:
            if step.called:
                calls = [(c.name, c.output) for c in step.calls]
                print(f"  step {step.number} ({len(step.attempts)} attempt(s)): {calls}")
                for attempt in step.attempts[:-1]:
                    print(f"    rejected: {[p.message for p in attempt.problems]}")
            else:
                print(f"  step {step.number}: answer {step.content!r}")
    print(f"reminders sent: {sorted(reminders)}")


if __name__ == "__main__":
    asyncio.run(main())
