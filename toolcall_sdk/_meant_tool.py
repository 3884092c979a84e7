"""The offered tool that a call to an unoffered name means, read from the call itself.

Asked to act, a small model often names the tool after the request instead of copying the
offered name: Qwen2.5-Coder-0.5B, offered `update_invoice_due_date` ("Move the due date of an
existing invoice."), writes `move_due_date(invoice_id=..., due_date=...)`; offered
`list_invoices` with a `status` of `paid`/`overdue`, it writes `list_paid_invoices`. Left
unread, such a call is text that is only a call to a tool nobody offered, and the request is
asked again without tools: the model then explains how one would do it, and the call the user
asked for is lost. Read as the offered tool, it is validated, grounded and fed back like any
other call.

A name is read as an offered tool only when the call could not mean another:

- every word of the name is a word of that tool's own text: its name, its description, its
  parameters' names and their fixed choices (`move`, `due`, `date` in "Move the due date of
  an existing invoice.");
- the call has arguments, each a parameter of that tool, and it gives every parameter the
  tool requires (`math.sqrt(x=9)` is not `math_hypot(x, y)`, whose description says
  "sqrt");
- none of its values is a phrase of the tool's descriptions (`"e.g. CUS-000123"`: the
  schema written out, not a call);
- no other offered tool passes these.

A model that answers a question no tool serves invents a tool for the question, and its name
then holds a word the offered tool never uses (`restaurant_divide` beside `cell_divide`,
`flight_duration` beside `currency_converter` with arguments that fit it): that call stays
text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolcall_sdk._function_defs import arguments_object, parameters_of, schema_branches

__all__ = ["MEANT_CHOICE", "MEANT_TOOL", "meant_choices", "meant_tool"]

MEANT_TOOL: Final = "meant_tool"
"""The repair recorded when a name is read as an offered tool: `tool:meant_tool:name`."""
MEANT_CHOICE: Final = "meant_choice"
"""The repair recorded when a word of the name fills a parameter the call left out:
`tool:meant_choice:/status`."""

# Words of identifiers and prose: runs of letters or digits, split at camelCase humps.
_WORD: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def meant_tool(name: str, arguments: Any, tools: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The one offered tool the call `name(arguments)` means, or None.

    Args:
        name: The call's name, offered by no tool.
        arguments: The call's arguments: a JSON object's text, or the object.
        tools: The offered tools' function definitions (`name`, `description`,
            `parameters`), by name.
    """
    words = _words(name)
    given = arguments_object(arguments)
    keys = set(given)
    if not words or not keys:
        return None
    fitting = [
        offered
        for offered, function in tools.items()
        if _required(function) <= keys <= parameters_of(function).keys()
        and words <= _vocabulary(offered, function)
        and not _echoes_prose(given, function)
    ]
    return fitting[0] if len(fitting) == 1 else None


def meant_choices(name: str, arguments: Any, function: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters a word of the name fills: the call left them out, or null.

    `list_overdue_invoices(customer_id=...)` read as `list_invoices` means `status:
    "overdue"`, one of that parameter's fixed choices: the user asked for the overdue ones.
    A word fills a parameter only when it is exactly one of its choices, no other
    parameter's, and no word of the tool's own name.
    """
    given = arguments_object(arguments)
    words = _words(name) - _words(str(function.get("name") or ""))
    found: dict[str, Any] = {}
    owners: dict[str, int] = {}
    for parameter, schema in parameters_of(function).items():
        matching = [c for c in _choices(schema) if isinstance(c, str) and _words(c) <= words]
        for choice in matching:
            for word in _words(choice):
                owners[word] = owners.get(word, 0) + 1
        if len(matching) == 1 and given.get(parameter) is None:
            found[parameter] = matching[0]
    return {
        parameter: choice
        for parameter, choice in found.items()
        if all(owners[word] == 1 for word in _words(choice))
    }


def _echoes_prose(given: Mapping[str, Any], function: Mapping[str, Any]) -> bool:
    """Whether a value is a phrase of the tool's own descriptions: the schema written out
    (`{"customer_id": "e.g. CUS-000123", "amount_vnd": "Amount in Vietnamese dong"}`, the
    0.5B's answer to "Translate 'invoice' into Vietnamese."), not a call."""
    prose = [str(function.get("description") or "")]
    for schema in parameters_of(function).values():
        if isinstance(schema, Mapping):
            prose.append(str(schema.get("description") or ""))
    text = " ".join(prose).lower()
    return any(
        isinstance(value, str) and " " in value.strip() and value.strip().lower() in text
        for value in given.values()
    )


def _required(function: Mapping[str, Any]) -> set[str]:
    """The parameters a call must give: required, and not nullable (the strict form makes
    every parameter required and the optional ones nullable)."""
    parameters = function.get("parameters")
    required = parameters.get("required") if isinstance(parameters, Mapping) else None
    properties = parameters_of(function)
    return {
        name
        for name in required or ()
        if isinstance(name, str) and not _nullable(properties.get(name))
    }


def _nullable(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_nullable(branch) for branch in schema.get("anyOf") or ())


def _vocabulary(name: str, function: Mapping[str, Any]) -> set[str]:
    description = function.get("description")
    texts = [name, description if isinstance(description, str) else ""]
    for parameter, schema in parameters_of(function).items():
        texts.append(parameter)
        texts.extend(str(choice) for choice in _choices(schema))
    return set().union(*(_words(text) for text in texts))


def _choices(schema: Any) -> Iterable[Any]:
    """A parameter's fixed choices, also inside a nullable `anyOf` (the strict form)."""
    return [choice for branch in schema_branches(schema) for choice in branch.get("enum") or ()]


def _words(text: str) -> set[str]:
    return {_stem(word.lower()) for word in _WORD.findall(text)}


def _stem(word: str) -> str:
    # Plurals only: `list_invoices` and "an invoice" name the same thing.
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
