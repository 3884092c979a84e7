"""What the proxy adds to a request, against calling the upstream directly, in one run.

The upstream is the scripted model on a real local port; the proxy runs under uvicorn in a
thread of the same process, in front of it. Each row sends the same request both ways, one
at a time, with a keep-alive `httpx2.Client`, and prints the medians and their difference:

- tools: a chat request with one tool; direct, the caller would still have to validate it,
  through the proxy the pipeline forces, validates and answers (`router="always"`, so one
  upstream request, as directly).
- pass-through: a chat request without tools, relayed byte for byte.

    python benchmarks/proxy_overhead.py [--requests 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx2

from toolcall_sdk.proxy import create_app, serve_in_thread
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

ARGS = {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"}
TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "create_invoice",
        "description": "Create an invoice for a customer.",
        "parameters": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string", "pattern": r"^CUS-\d{6}$"},
                "amount_vnd": {"type": "integer", "exclusiveMinimum": 0},
                "due_date": {"type": "string", "format": "date"},
            },
            "required": ["customer_id", "amount_vnd", "due_date"],
        },
    },
}
MESSAGES = [{"role": "user", "content": "Invoice CUS-000042 for 1.5M VND, due end of 2030"}]
WITH_TOOLS = {"model": "m", "messages": MESSAGES, "tools": [TOOL], "tool_choice": "required"}
WITHOUT_TOOLS = {"model": "m", "messages": MESSAGES}


def _answer(request: RecordedRequest) -> Reply:
    return tool_call("create_invoice", ARGS) if request.tools else text("Done.")


def _time(send: Callable[[], Any], requests: int) -> list[float]:
    for _ in range(20):  # warm-up: connections, the proxy's client cache, schema models
        send()
    samples = []
    for _ in range(requests):
        started = time.perf_counter()
        send()
        samples.append(time.perf_counter() - started)
    return samples


def _post(client: httpx2.Client, body: dict[str, Any]) -> Callable[[], Any]:
    def send() -> Any:
        response = client.post("/chat/completions", json=body)
        response.raise_for_status()
        return response.json()

    return send


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    requests = parser.parse_args().requests

    model = ScriptedModel(_answer)
    rows = [
        "| request | direct p50 (ms) | via proxy p50 (ms) | added p50 (ms) | ratio |",
        "|---|---|---|---|---|",
    ]
    with model.serve() as upstream:
        app = create_app(upstream, router="always")
        with (
            serve_in_thread(app) as proxy_url,
            httpx2.Client(base_url=upstream) as direct,
            httpx2.Client(base_url=proxy_url) as proxied,
        ):
            for label, body in (("tools", WITH_TOOLS), ("pass-through", WITHOUT_TOOLS)):
                direct_ms = statistics.median(_time(_post(direct, body), requests)) * 1000
                proxy_ms = statistics.median(_time(_post(proxied, body), requests)) * 1000
                rows.append(
                    f"| {label} | {direct_ms:.3f} | {proxy_ms:.3f} | "
                    f"{proxy_ms - direct_ms:+.3f} | {proxy_ms / direct_ms:.2f}x |"
                )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
