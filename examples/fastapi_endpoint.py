"""A FastAPI endpoint exposing the agent: `POST /invoices` runs it and answers JSON.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
        uvicorn --app-dir examples fastapi_endpoint:app --port 8200
    curl -s http://127.0.0.1:8200/invoices -H 'content-type: application/json' \
        -d '{"request": "Invoice Acme 1500000 VND, due 2030-12-31"}'

`python examples/fastapi_endpoint.py` sends two requests through FastAPI's `TestClient`
instead (against the server in TOOLCALL_BASE_URL, or without it the SDK's scripted model).
Needs FastAPI (`pip install fastapi`; the dev extra has it); without it the program says so
in one line and exits 2.

One `AsyncToolCallClient` serves every request: made in the app's lifespan, closed at
shutdown. Each request is a run of up to four steps (find the customer, create the invoice,
answer). Replies: 200 with the answer, the calls with their outputs and the attempts; 422
with every attempt's problems when the model never produced a valid call (no business
function ran) or the run stopped at a bound; 503 when the model server cannot be used.

Offline, the scripted model plays the model from each request's conversation: it first
writes the due date day before month (rejected, with feedback), then right; a request for
0 VND never validates.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import date
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from toolcall_sdk import (
    AsyncToolCallClient,
    RunStopped,
    ToolCallFailed,
    TransportError,
    tool,
)

try:
    from fastapi import FastAPI, HTTPException, Request
    from fastapi.testclient import TestClient
except ImportError as exc:  # one line naming the install, not a traceback
    print(
        f"examples/fastapi_endpoint.py needs {exc.name or 'fastapi'!r}, which is not "
        "installed: run `pip install fastapi`",
        file=sys.stderr,
    )
    raise SystemExit(2) from None

CUSTOMERS = {"acme": "CUS-000042", "globex": "CUS-000107"}


def not_in_past(value: date) -> date:
    if value < date.today():
        raise ValueError("must not be in the past")
    return value


@tool
async def find_customer(name: str) -> str:
    """Find a customer's id by company name.

    Args:
        name: The company name, e.g. Acme.
    """
    return CUSTOMERS.get(name.lower(), "no such customer")


@tool
async def create_invoice(
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


class InvoiceRequest(BaseModel):
    request: str = Field(max_length=2000)


class CallOut(BaseModel):
    name: str
    arguments: dict[str, Any]
    output: Any


class AgentReply(BaseModel):
    answer: str | None
    calls: list[CallOut]
    attempts: int


def make_client() -> AsyncToolCallClient:
    tools = [find_customer, create_invoice]
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        model = os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct")
        return AsyncToolCallClient(base_url=base_url, model=model, tools=tools)
    from toolcall_sdk.testing import ScriptedModel

    scripted = ScriptedModel(lambda request: play(request.messages))
    return AsyncToolCallClient(
        base_url=scripted.base_url,
        model="scripted",
        tools=tools,
        router=invoice_done_rule,
        http_client=scripted.async_http_client(),
    )


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    async with make_client() as client:
        app.state.agent = client
        yield


app = FastAPI(title="Invoice agent", lifespan=lifespan)


@app.post("/invoices")
async def invoices(body: InvoiceRequest, request: Request) -> AgentReply:
    agent: AsyncToolCallClient = request.app.state.agent
    try:
        result = await agent.run(body.request, max_steps=4, max_requests=12)
    except ToolCallFailed as failed:
        problems = [[p.message for p in a.problems] for a in failed.attempts]
        raise HTTPException(422, {"error": "no valid tool call", "attempts": problems}) from failed
    except RunStopped as stopped:
        raise HTTPException(
            422, {"error": type(stopped).__name__, "detail": str(stopped)}
        ) from stopped
    except TransportError as down:
        raise HTTPException(503, {"error": type(down).__name__}) from down
    calls = [
        CallOut(name=c.name, arguments=c.arguments.model_dump(mode="json"), output=c.output)
        for c in result.calls
    ]
    return AgentReply(answer=result.content, calls=calls, attempts=len(result.attempts))


def play(messages: Sequence[dict[str, Any]]) -> Any:
    """The scripted model's answer to a conversation (offline only)."""
    from toolcall_sdk.testing import text, tool_call

    asked = next(m["content"] for m in messages if m["role"] == "user")
    last = messages[-1]
    if last["role"] == "user":
        company = re.search(r"Invoice (\w+)", asked)
        return tool_call("find_customer", {"name": company.group(1) if company else ""})
    index = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    called = messages[index]["tool_calls"][0]["function"]
    if called["name"] == "find_customer":
        amount = re.search(r"(\d+) VND", asked)
        due = re.search(r"due (\d{4})-(\d\d)-(\d\d)", asked)
        year, month, day = due.groups() if due else ("", "", "")
        invoice = {
            "customer_id": last["content"],
            "amount_vnd": int(amount.group(1)) if amount else 0,
            "due_date": f"{year}-{day}-{month}",  # day before month, as small models do
        }
        return tool_call("create_invoice", invoice)
    if called["name"] == "create_invoice" and last["content"].startswith("VALIDATION_ERROR"):
        fixed = json.loads(called["arguments"])
        due = re.search(r"due (\d{4}-\d\d-\d\d)", asked)
        return tool_call("create_invoice", {**fixed, "due_date": due.group(1) if due else ""})
    return text(f"Created {json.loads(last['content'])['invoice_id']}.")


def invoice_done_rule(messages: Sequence[dict[str, Any]], tools: Any) -> bool:
    """Offline stand-in for the LLM router: a tool is needed until the invoice exists."""
    return not (messages[-1]["role"] == "tool" and "invoice_id" in messages[-1]["content"])


def main() -> None:
    with TestClient(app) as http:
        for request in (
            "Invoice Acme 1500000 VND, due 2030-12-31.",
            "Invoice Globex 0 VND, due 2030-12-31.",
        ):
            reply = http.post("/invoices", json={"request": request})
            print(f"POST /invoices {request!r} -> {reply.status_code}")
            print(f"  {json.dumps(reply.json())}")


if __name__ == "__main__":
    main()
