"""What the SDK costs on top of a raw openai call, measured in the same run.

Both sides talk to the same scripted model (in-process transport, so the network does not
drown the difference, and over a real local HTTP port). The raw baseline does what a
careful hand-written client does: `chat.completions.create(tool_choice="required")`,
`json.loads` of the arguments and `Model.model_validate`. The SDK side is
`ToolCallClient.call()` with `router="always"` (one request, like the baseline).

    python benchmarks/client_overhead.py [--calls 300]

instructor is not measured: its releases pin dependencies that cannot be installed beside
openai 3.5x (pip reports a conflict), which this SDK requires.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

import openai
from pydantic import BaseModel, Field

from toolcall_sdk import ToolCallClient, tool
from toolcall_sdk.testing import ScriptedModel, tool_call

ARGS = {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"}


class CreateInvoice(BaseModel):
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")]
    amount_vnd: Annotated[int, Field(gt=0)]
    due_date: date


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: date,
) -> None:
    """Create an invoice for a customer."""


TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "create_invoice",
            "description": "Create an invoice for a customer.",
            "parameters": CreateInvoice.model_json_schema(),
        },
    }
]


def _time(fn: Callable[[], Any], calls: int) -> list[float]:
    for _ in range(20):  # warm-up: imports, connection pools, schema caches
        fn()
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return samples


def _raw(client: openai.OpenAI) -> Callable[[], Any]:
    def once() -> Any:
        response = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Invoice CUS-000042"}],
            tools=TOOLS,
            tool_choice="required",
            temperature=0,
        )
        call = response.choices[0].message.tool_calls[0]  # type: ignore[index]
        return CreateInvoice.model_validate(json.loads(call.function.arguments))  # type: ignore[union-attr]

    return once


def _sdk(client: ToolCallClient) -> Callable[[], Any]:
    return lambda: client.call("Invoice CUS-000042").calls[0].arguments


def _report(label: str, raw: list[float], sdk: list[float]) -> str:
    raw_ms = statistics.median(raw) * 1000
    sdk_ms = statistics.median(sdk) * 1000
    return (
        f"| {label} | {raw_ms:.3f} | {sdk_ms:.3f} | {sdk_ms - raw_ms:+.3f} | "
        f"{sdk_ms / raw_ms:.2f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    calls = parser.parse_args().calls

    model = ScriptedModel(lambda request: tool_call("create_invoice", ARGS))
    rows = ["| transport | raw openai p50 (ms) | SDK p50 (ms) | SDK overhead (ms) | ratio |"]
    rows.append("|---|---|---|---|---|")

    raw_client = openai.OpenAI(
        base_url=model.base_url, api_key="x", http_client=model.http_client(), max_retries=0
    )
    sdk_client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[create_invoice],
        router="always",
        http_client=model.http_client(),
    )
    rows.append(
        _report("in-process", _time(_raw(raw_client), calls), _time(_sdk(sdk_client), calls))
    )

    with model.serve() as base_url:
        raw_http = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        sdk_http = ToolCallClient(
            base_url=base_url, model="m", tools=[create_invoice], router="always"
        )
        rows.append(
            _report("local HTTP", _time(_raw(raw_http), calls), _time(_sdk(sdk_http), calls))
        )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
