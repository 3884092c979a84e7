"""Escalation: when the model never gets the arguments right, hand over instead of guessing.

Runs offline against the scripted model, which always sends an amount of 0.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolcall_sdk import ToolCallClient, ToolCallFailed, ToolCallResult, tool
from toolcall_sdk.testing import ScriptedModel, tool_call

charged: list[int] = []


@tool
def charge(amount_vnd: Annotated[int, Field(gt=0)]) -> str:
    """Charge the customer's card."""
    charged.append(amount_vnd)
    return "charged"


def hand_over(failed: ToolCallFailed) -> ToolCallResult:
    """Escalate to a person with every attempt attached."""
    for attempt in failed.attempts:
        print(f"attempt {attempt.number}: {[p.message for p in attempt.problems]}")
    return ToolCallResult(called=False, content="A person will take over this request.")


def main() -> None:
    model = ScriptedModel(lambda request: tool_call("charge", {"amount_vnd": 0}))
    client = ToolCallClient(
        base_url=model.base_url,
        model="scripted",
        tools=[charge],
        router="always",
        max_retries=2,
        on_escalate=hand_over,
        http_client=model.http_client(),
    )
    result = client.run("Charge the customer")
    print(result.content)
    print(f"stage-2 requests: {len(model.calls_for('call'))}, business executions: {len(charged)}")


if __name__ == "__main__":
    main()
