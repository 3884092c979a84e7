"""Examples in a stage-2 request: demonstrations from an `ExampleBank`, and the argument
examples written on the tools (`@tool(examples=[...])`).

`with_examples` is the pipeline's one step for both; it runs on the request as built, after
grounded decoding, so that the grounding check and grounded decoding, which read the
conversation, never see an example: a value that only a demonstration states is still
`ungrounded` (the check reads the step's history, where demonstrations never go).

- Demonstrations (`ExampleBank.demonstrations`) go into every stage-2 request (the call
  request: forced, or `auto` under an `answer_decides` router or `tool_choice="auto"`, its
  retries included) of `call()` and of the first step of `run()`, and nowhere else: not the
  router's probe, not a plain answer, not a later step of a run. A later step follows tool
  results, where a demonstration of the first call of a request would invite the same call
  again (the 0.5B demo model repeats calls as it is). They go after the leading system
  messages and before the rest of the conversation, as earlier turns; their ids pass
  through the history normalisation every conversation gets (Mistral's template takes
  nine alphanumerics only).
- Argument examples written on a tool go into its description in the request's `tools`
  (each example a line of JSON after "Examples of arguments:"), like Anthropic's
  `input_examples`, in every stage-2 request that offers the tool. vLLM reads a tool
  definition's `name`, `description` and `parameters` only, so a field of its own would
  not reach the chat template.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk._example_bank import ExampleBank
from toolcall_sdk._history import normalize_history
from toolcall_sdk._tools import Tool

__all__ = ["EXAMPLES_HEADING", "ExampleBank", "with_examples"]

EXAMPLES_HEADING: Final = "Examples of arguments:"
"""The line before a tool's written examples in its description."""
_LEADING_ROLES: Final = ("system", "developer")


def with_examples(
    params: dict[str, Any],
    bank: ExampleBank | None,
    tools: Mapping[str, Tool[..., Any]],
    *,
    first_step: bool,
) -> dict[str, Any]:
    """The stage-2 request with its examples; `params` itself is not changed.

    Args:
        params: The request as built (model, messages, tools, tool_choice, ...).
        bank: The client's demonstrations (`examples=`), or None.
        tools: The client's tools by name, whose written examples go into the descriptions.
        first_step: The request is one of `call()` or of a run's first step: only those
            get demonstrations.

    Returns:
        `params` itself when nothing is added, else a new request.
    """
    params = _described(params, tools)
    if bank is None or not first_step:
        return params
    offered = [entry["function"]["name"] for entry in params.get("tools") or ()]
    messages = list(params.get("messages") or ())
    turns = bank.demonstrations(messages, offered)
    if not turns:
        return params
    turns = normalize_history(turns, model=str(params.get("model") or ""))
    start = 0
    while start < len(messages) and messages[start].get("role") in _LEADING_ROLES:
        start += 1
    return {**params, "messages": [*messages[:start], *turns, *messages[start:]]}


def _described(params: dict[str, Any], tools: Mapping[str, Tool[..., Any]]) -> dict[str, Any]:
    """`params` with each offered tool's written examples in its description."""
    entries = params.get("tools") or ()
    if not any(_written(entry, tools) for entry in entries):
        return params
    described = []
    for entry in entries:
        examples = _written(entry, tools)
        if examples:
            function = entry["function"]
            lines = [json.dumps(example, ensure_ascii=False) for example in examples]
            given = function.get("description")
            head = f"{given}\n\n{EXAMPLES_HEADING}" if given else EXAMPLES_HEADING
            function = {**function, "description": "\n".join([head, *lines])}
            entry = {**entry, "function": function}
        described.append(entry)
    return {**params, "tools": described}


def _written(entry: Any, tools: Mapping[str, Tool[..., Any]]) -> tuple[Mapping[str, Any], ...]:
    function = entry.get("function") if isinstance(entry, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    found = tools.get(name) if isinstance(name, str) else None
    return found.examples if found is not None else ()
