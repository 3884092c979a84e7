"""Several answers to one request, on the real 0.5B: vLLM answers `n` and the client keeps
one valid call.

The request goes at temperature 0.7 with a fixed `seed`, so the server's answers are the
same on every run. The test asserts the request, the answers counted and the call kept,
never a rate.
"""

from __future__ import annotations

from toolcall_sdk import ToolCallClient, tool
from toolcall_sdk.launcher import Server

from .conftest import MODEL


@tool
def math_factorial(number: int) -> int:
    """Calculate the factorial of a number."""
    result = 1
    for k in range(2, number + 1):
        result *= k
    return result


def _client(server: Server, samples: int) -> ToolCallClient:
    return ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=[math_factorial],
        router="always",
        max_tokens=60,
        samples=samples,
        extra_body={"seed": 7},
    )


def test_three_answers_are_decoded_and_one_valid_call_runs_once(demo_server: Server) -> None:
    single = _client(demo_server, 1).run("What is the factorial of 5?")
    sampled = _client(demo_server, 3).run("What is the factorial of 5?")

    assert [(c.name, c.arguments.model_dump()) for c in sampled.calls] == [
        ("math_factorial", {"number": 5})
    ]
    assert sampled.calls[0].output == 120
    [attempt] = sampled.attempts
    assert attempt.request.samples == 3
    assert attempt.request.temperature == 0.7
    # The usage counts every answer the server decoded, not only the one kept.
    assert attempt.usage.completion_tokens > single.attempts[0].usage.completion_tokens
