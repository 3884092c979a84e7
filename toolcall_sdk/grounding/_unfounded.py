"""A tool left out of the retry when an identifier it needs is stated nowhere.

Asked "Which invoices does CUS-376653 have?", Qwen2.5-Coder-0.5B called
`get_invoice(invoice_id="INV-004512")`, the example its tool's description shows. The call
was refused (`ungrounded`: no such identifier in the conversation), the model was told, and
it wrote the same call twice more until the step failed: 3 of the ladder's 50 invoices cases
(3 requests each). Told "We received 2.5 million VND for INV-592792 on 09/11/2026.", it
called `create_invoice(customer_id="CUS-592792", ...)`, refused for a due date in the past,
and wrote it again twice. No invoice id stands anywhere in the first conversation, no
customer id in the second: no call of those tools can carry a stated one.

So once a call of a tool was refused in the step (for any reason but an unknown name), and
that tool requires an identifier (a string under a `pattern`, not nullable) that no token of
the conversation matches as a whole, the step's next requests leave the tool out. The model
then takes another tool (`list_invoices(customer_id=...)`, `record_payment(...)`) or answers
in text, as the request allows. Nothing is refused for it: the rule only shapes the retry.
At least one tool stays offered, and a request that names the tool (`tool_choice`) keeps it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from toolcall_sdk._results import Attempt
from toolcall_sdk.grounding._decoding import identifiers_in
from toolcall_sdk.grounding._policy import SourceRole
from toolcall_sdk.grounding._sources import conversation_of

__all__ = ["without_unfounded_tools"]


def without_unfounded_tools(
    params: dict[str, Any], attempts: Sequence[Attempt], sources: Collection[SourceRole]
) -> tuple[dict[str, Any], list[str]]:
    """The request without the tools whose required identifier no source states.

    Args:
        params: A stage-2 request as built (messages, tools, tool_choice); not changed.
        attempts: The step's attempts so far.
        sources: The roles whose messages state values.

    Returns:
        The request (the same object when no tool is left out) and the names left out.
    """
    refused = _refused_tools(attempts)
    if not refused:
        return params, []
    choice = params.get("tool_choice")
    named = choice.get("function", {}).get("name") if isinstance(choice, Mapping) else None
    conversation = None
    out: list[str] = []
    for entry in params.get("tools") or ():
        function = entry.get("function") if isinstance(entry, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(function, Mapping) or name not in refused or name == named:
            continue
        parameters = function.get("parameters")
        patterns = _required_patterns(parameters) if isinstance(parameters, Mapping) else []
        if not patterns:
            continue
        if conversation is None:
            conversation = conversation_of(params.get("messages") or (), frozenset(sources))
        if any(not identifiers_in(pattern, conversation) for pattern in patterns):
            out.append(name)
    tools = [t for t in params.get("tools") or () if _name(t) not in out]
    if not out or not tools:
        return params, []
    return {**params, "tools": tools}, out


def _refused_tools(attempts: Sequence[Attempt]) -> set[str]:
    """The offered tools a refused call of the step named."""
    return {
        problem.tool_name
        for attempt in attempts
        for problem in attempt.problems
        if problem.tool_name is not None and problem.kind != "unknown_tool"
    }


def _required_patterns(parameters: Mapping[str, Any]) -> list[str]:
    """The `pattern` of each field the tool requires a value for (not null)."""
    required = parameters.get("required")
    properties = parameters.get("properties")
    if not isinstance(required, list) or not isinstance(properties, Mapping):
        return []
    out = []
    for field in required:
        schema = properties.get(field)
        # A nullable field (the strict form of an optional one) needs no value.
        if isinstance(schema, Mapping) and schema.get("type") == "string":
            pattern = schema.get("pattern")
            if isinstance(pattern, str):
                out.append(pattern)
    return out


def _name(entry: Any) -> Any:
    function = entry.get("function") if isinstance(entry, Mapping) else None
    return function.get("name") if isinstance(function, Mapping) else None
