"""Every call a request asks for: a request that lists three values gets three calls.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
        python examples/listed_values.py

Asked "What is the factorial of 5, 10 and 15?", a small model writes one call, for 5, and
stops. With `listed_values="complete"` the client reads the values the request lists beside
the one the call used (10 and 15), and asks for each left-out call in a named request with
that value held by the schema. Nothing runs until the answer is complete; then each
function runs once per listed value.

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model, which answers first
with the one call the real Qwen2.5-Coder-0.5B writes, then with each call it is asked for.
"""

from __future__ import annotations

import os
from math import factorial

from toolcall_sdk import ToolCallClient, tool


@tool
def math_factorial(number: int) -> int:
    """Calculate the factorial of a number."""
    return factorial(number)


def main() -> None:
    request = "What is the factorial of 5, 10 and 15?"
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        client = ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", "Qwen/Qwen2.5-Coder-0.5B-Instruct"),
            tools=[math_factorial],
            router=os.environ.get("TOOLCALL_ROUTER", "llm"),
            listed_values="complete",
        )
    else:
        from toolcall_sdk.testing import ScriptedModel, tool_call

        scripted = ScriptedModel([tool_call("math_factorial", {"number": n}) for n in (5, 10, 15)])
        client = ToolCallClient(
            base_url=scripted.base_url,
            model="scripted",
            tools=[math_factorial],
            http_client=scripted.http_client(),
            router="always",
            listed_values="complete",
        )

    result = client.run(request)
    print(f"{len(result.attempts)} request(s) for {len(result.calls)} call(s)")
    result.raise_for_errors()
    for call in result.calls:
        print(f"{call.name}({call.arguments!r}) -> {call.output}")


if __name__ == "__main__":
    main()
