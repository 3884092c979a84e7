"""Identifiers copied from a tool's own description instead of from the conversation.

A schema that shows the form of an identifier by example (`invoice_id: "e.g. INV-004512"`)
hands a small model a value to write when the conversation gives none: asked "Which invoices
does CUS-376653 have?", Qwen2.5-Coder-0.5B called `get_invoice(invoice_id="INV-004512")`,
a valid call about an invoice nobody named, in 4 of the ladder's 50 invoices cases. With the
grounding check off (the client's default) nothing refused it.

So whatever `grounding=` says, an answer whose call has an identifier (a string field under
a `pattern`) that its tool's own text shows is checked for identifiers: where the
conversation does not state the value too, it is an `ungrounded` problem, fed back like
any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from toolcall_sdk._function_defs import arguments_object, parameters_of, schema_branches
from toolcall_sdk._results import ToolCall
from toolcall_sdk.grounding._policy import GroundingPolicy

__all__ = ["EXAMPLE_POLICY", "copies_an_example"]

EXAMPLE_POLICY: Final = GroundingPolicy(kinds=frozenset({"identifier"}))
"""The check an answer that copies an example gets: identifiers only."""


def copies_an_example(
    calls: Sequence[ToolCall], functions: Mapping[str, Mapping[str, Any]]
) -> bool:
    """Whether a call writes, in an identifier field, a value its tool's text shows.

    Args:
        calls: The answer's validated calls.
        functions: The offered tools' function definitions (as sent), by name.
    """
    for call in calls:
        function = functions.get(call.name)
        if function is None:
            continue
        text = " ".join(_texts(function))
        for field, value in arguments_object(call.raw_arguments).items():
            if (
                isinstance(value, str)
                and value
                and _is_identifier(function, field)
                and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text)
            ):
                return True
    return False


def _is_identifier(function: Mapping[str, Any], field: str) -> bool:
    branches = schema_branches(parameters_of(function).get(field))
    return any(isinstance(b.get("pattern"), str) for b in branches)


def _texts(function: Mapping[str, Any]) -> Iterator[str]:
    """The prose of a function definition: its description and every field's."""
    description = function.get("description")
    if isinstance(description, str):
        yield description
    for schema in parameters_of(function).values():
        for branch in schema_branches(schema):
            text = branch.get("description")
            if isinstance(text, str):
                yield text
            for example in branch.get("examples") or ():
                yield str(example)
