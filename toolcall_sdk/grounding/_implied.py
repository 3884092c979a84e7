"""The grounding check an answer gets when the client's `grounding=` is off.

Three answers are checked all the same, because each has less support than the call it
claims to be:

- a retry that swaps the rejected call's tool for another (`switched_tool`): every kind;
- a call that writes, in an identifier field, a value its tool's own description shows
  (`copies_an_example`): identifiers;
- a call with a number or a date one slip away from a stated one (ten times it, a tenth of
  it, day and month swapped; `_slips`): that kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolcall_sdk._results import Attempt, ToolCall
from toolcall_sdk.grounding._decoding import switched_tool
from toolcall_sdk.grounding._examples import EXAMPLE_POLICY, copies_an_example
from toolcall_sdk.grounding._policy import FULL_POLICY, GroundingPolicy
from toolcall_sdk.grounding._slips import slip_policy

__all__ = ["implied_policy"]


def implied_policy(
    calls: Sequence[ToolCall],
    attempts: Sequence[Attempt],
    functions: Mapping[str, Mapping[str, Any]],
    messages: Sequence[Mapping[str, Any]],
) -> GroundingPolicy | None:
    """The check `calls` get with grounding off, or None for none.

    Args:
        calls: The answer's validated calls.
        attempts: The step's attempts, the answer's last.
        functions: The offered tools' function definitions (as sent), by name.
        messages: The conversation the calls answer (the request's messages).
    """
    if not calls:
        return None
    if switched_tool(calls, attempts):
        # A forced retry of the 0.5B answered "Show me invoice INV-20417." with
        # convert_currency(1000, "USD", "VND"), a valid call that has less support than the
        # rejected one, and it would have been the result.
        return FULL_POLICY
    if copies_an_example(calls, functions):
        # The description's "e.g. INV-004512" written where the user named no invoice.
        return EXAMPLE_POLICY
    # "2.5 million" written 25000000, "11 January 2027" written 2027-11-01.
    return slip_policy(calls, messages)
