"""Every call a request asks for: a request that lists three values gets three calls.

    TOOLCALL_BASE_URL=http://localhost:8000/v1 TOOLCALL_MODEL=Qwen/Qwen2.5-Coder-0.5B-Instruct \
        python examples/listed_values.py

Asked "What is the factorial of 5, 10 and 15?", a small model writes one call, for 5, and
stops. Nothing runs until the answer is complete; then each function runs once per value.

- `listed_values="continue_listed"` (the client's default) sends the answer back, written as
  the model writes its calls, with the opening of another call after it, and lets the model
  go on: the 0.5B writes the calls for 10 and 15 there. A call joins only if it is valid,
  new, and the request states every value in which it differs from the first call. It does
  this only where the request states a value the calls left out (here 10 and 15), so "What
  is the factorial of 5?" costs one request. `continue` does it for every one-tool answer.
- `listed_values="complete"` reads the values the request lists beside the one the call used
  (10 and 15) and asks for each left-out call in a named request with that value held by
  the schema.

Without TOOLCALL_BASE_URL it runs against the SDK's scripted model, which answers first with
the one call the real Qwen2.5-Coder-0.5B writes, then as the real model does when asked.
"""

from __future__ import annotations

import os
from math import factorial
from typing import Any

from toolcall_sdk import ToolCallClient, tool

CODER = "Qwen/Qwen2.5-Coder-0.5B-Instruct"
# What the 0.5B writes when its answer is continued after `"arguments":`.
CONTINUED = (
    ' {\n    "number": 10\n  }\n}\n```\n```json\n{\n  "name": "math_factorial",\n'
    '  "arguments": {\n    "number": 15\n  }\n}\n```'
)


@tool
def math_factorial(number: int) -> int:
    """Calculate the factorial of a number."""
    return factorial(number)


def _scripted(mode: str) -> ToolCallClient:
    from toolcall_sdk.testing import ScriptedModel, text, tool_call

    replies: list[Any] = [tool_call("math_factorial", {"number": 5})]
    if mode in ("continue", "continue_listed"):
        replies.append(text(CONTINUED))
    else:
        replies += [tool_call("math_factorial", {"number": n}) for n in (10, 15)]
    scripted = ScriptedModel(replies)
    return ToolCallClient(
        base_url=scripted.base_url,
        model=CODER,  # the continuation is written in the model family's own format
        tools=[math_factorial],
        http_client=scripted.http_client(),
        router="always",
        listed_values=mode,  # type: ignore[arg-type]
    )


def main() -> None:
    request = "What is the factorial of 5, 10 and 15?"
    mode = os.environ.get("TOOLCALL_LISTED_VALUES", "continue_listed")
    base_url = os.environ.get("TOOLCALL_BASE_URL")
    if base_url:
        client = ToolCallClient(
            base_url=base_url,
            model=os.environ.get("TOOLCALL_MODEL", CODER),
            tools=[math_factorial],
            router=os.environ.get("TOOLCALL_ROUTER", "llm"),
            listed_values=mode,  # type: ignore[arg-type]
        )
    else:
        client = _scripted(mode)

    result = client.run(request)
    print(
        f"listed_values={mode!r}: {len(result.attempts)} request(s) for {len(result.calls)} call(s)"
    )
    result.raise_for_errors()
    for call in result.calls:
        print(f"{call.name}({call.arguments!r}) -> {call.output}")


if __name__ == "__main__":
    main()
