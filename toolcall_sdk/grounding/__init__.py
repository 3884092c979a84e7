"""Grounded arguments: values the user gave must be values the user gave.

Guided decoding guarantees a call's syntax and Pydantic its types and rules; neither tells
a right value from a wrong one of the same type (`125000000` for "12.5 million VND"). The
grounding check, in stage 2 after the schema and before anything runs, looks for each
identifier, number and date of a call in the conversation (user and tool messages and the
system prompt), in the forms people write them, and sends an `ungrounded` problem back to
the model when one is not there:

    amount_vnd: 125000000 is not a number the user gave; the user wrote "12.5 million VND"
    (= 12500000)

```python
from typing import Annotated
from toolcall_sdk import Derived, Grounded, GroundingPolicy, ToolCallClient, tool

@tool
def create_invoice(
    customer_id: str,
    amount_vnd: int,
    city: Annotated[str, Grounded()],       # free text, but it must be the user's words
    fee_vnd: Annotated[int, Derived()],     # computed: never checked
) -> dict: ...

client = ToolCallClient(model="m", tools=[create_invoice], grounding=True)  # numbers too
client.call(messages, grounding=GroundingPolicy(kinds={"identifier"}))  # per call
```

Left out, `grounding=` is False: no check. `DEFAULT_POLICY` checks identifiers and dates;
`FULL_POLICY` (`grounding=True`) adds numbers.

See docs/grounding.md for what is checked, what is not, and the measured false alarms.
"""

from toolcall_sdk.grounding._markers import Derived, Grounded
from toolcall_sdk.grounding._policy import (
    DEFAULT_POLICY,
    FULL_POLICY,
    GroundingPolicy,
    GroundingSpec,
    SourceRole,
    ValueKind,
)

__all__ = [
    "DEFAULT_POLICY",
    "FULL_POLICY",
    "Derived",
    "Grounded",
    "GroundingPolicy",
    "GroundingSpec",
    "SourceRole",
    "ValueKind",
]
