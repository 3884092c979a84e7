"""Recovering tool calls that a server left in the answer's text, and names written askew.

When the server's `--tool-call-parser` does not match the model's format (or the model
wrapped its call in a reasoning block), a forced call comes back with no `tool_calls` and
the call markup in `content`. The calls are read back with `toolcall_sdk.parsing` (pure
parsers, never `eval`) and validated like any other; the attempt is flagged `parser_miss`.
With the offered tools' names, the forms small models write outside any format are read
too (a call in a Markdown fence, a bare Python call of an offered tool, GLM-4's name line),
each recorded as a repair. Plain answers (stage 1 said "no tool", so the request carried no
tools) are never searched.

A call named `math.factorial` when `math_factorial` is offered (or the reverse) is renamed
when exactly one offered tool matches, and the repair recorded; so is a name made of the
words of one offered tool whose parameters hold the call's arguments (`move_due_date` for
`update_invoice_due_date`, "Move the due date of an existing invoice.": `_meant_tool`);
otherwise the name stays, and validation reports an unknown tool.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from toolcall_sdk._call_intent import prose_withholds_call
from toolcall_sdk._function_defs import arguments_object
from toolcall_sdk._meant_tool import MEANT_CHOICE, MEANT_TOOL, meant_choices, meant_tool
from toolcall_sdk.parsing import parse_with_reasoning
from toolcall_sdk.parsing.reasoning import outside_reasoning
from toolcall_sdk.parsing.repair import TOOL_NAME, resolve_tool_name

__all__ = ["WITHHELD", "recover_calls", "recovered_call_id", "repair_tool_names", "withheld_calls"]


def recover_calls(
    message: Mapping[str, Any],
    *,
    hint: str | None,
    attempt: int,
    tools: Mapping[str, Mapping[str, Any]] | None = None,
    judge: bool = True,
) -> tuple[dict[str, Any], list[str]] | None:
    """The message with `tool_calls` rebuilt from its text, or None when it holds no call.

    Args:
        message: An assistant message without `tool_calls`.
        hint: The model name or family, so its own format is tried first.
        attempt: The attempt number, used in the recovered call ids.
        tools: The offered tools' parameter schemas by name: values written as bare text
            are typed by them, and the names make the forms outside any format safe to read.
            None reads the formats only.
        judge: Read only the calls that are the answer (`_call_intent`): none in reasoning,
            none whose text asks, negates, conditions or shows them. False reads every call
            (for measuring the rule).

    Returns:
        The rebuilt message and the repairs made to read it, as `tool:repair`
        (`math_hypot:bare_call`), the tool being the offered one the call names.
    """
    content = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not isinstance(content, str):
        content = None
    if not isinstance(reasoning, str):
        reasoning = None
    if not content and not reasoning:
        return None
    names = tools.keys() if tools is not None else None
    found = parse_with_reasoning(
        content, reasoning, hint, schemas=tools, tools=names, answer_only=judge
    )
    if not found.calls:
        return None
    if judge and _withheld_by(found.text):
        return None  # shown, asked about, refused or postponed: text, never an action
    recovered = dict(message)
    recovered["content"] = found.text.strip() or None if content else content
    recovered["tool_calls"] = [
        {
            "id": recovered_call_id(attempt, index),
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }
        for index, call in enumerate(found.calls)
    ]
    repairs = [
        f"{resolve_tool_name(call.name, names or ()) or call.name}:{repair}"
        for call in found.calls
        for repair in call.repairs
    ]
    return recovered, repairs


# The repair recorded for each call a server parsed that the answer's text withholds.
WITHHELD = "withheld_by_text"


def withheld_calls(message: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The message without the calls a server parsed out of text that withholds them.

    A server's parser takes a call out of the text wherever it stands: "I will NOT call
    <tool_call>...</tool_call> until you confirm" comes back as that call and the content
    "I will NOT call  until you confirm". The prose is judged as recovery judges it
    (`_call_intent`); when it withholds the calls, the answer is its text.

    Returns:
        The message (the same object when its calls stand) and `tool:withheld_by_text`
        for each call dropped.
    """
    calls = message.get("tool_calls")
    content = message.get("content")
    if not calls or not isinstance(content, str):
        return message, []
    if not _withheld_by(content):
        return message, []
    names = [
        str((call.get("function") or {}).get("name", "")) if isinstance(call, Mapping) else ""
        for call in calls
    ]
    return {k: v for k, v in message.items() if k != "tool_calls"}, [
        f"{name}:{WITHHELD}" for name in names
    ]


def _withheld_by(text: str) -> bool:
    """Whether an answer's text outside reasoning keeps its calls from running."""
    return prose_withholds_call(outside_reasoning(text)) is not None


def repair_tool_names(
    message: dict[str, Any],
    offered: Collection[str],
    functions: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The message with each call's name replaced by the offered tool it means.

    Only a name that is not offered and matches exactly one offered name with dots read as
    underscores, or the reverse, is replaced (`resolve_tool_name`). With the offered tools'
    function definitions, so is a name whose every word is a word of exactly one offered
    tool whose parameters hold the call's arguments (`_meant_tool`), recorded as
    `list_invoices:meant_tool:list_paid_invoices`.

    Returns:
        The message (the same object when nothing changed) and one repair per renamed call,
        `math_factorial:tool_name:math.factorial`.
    """
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return message, []
    repairs: list[str] = []
    renamed: list[Any] = []
    for raw in calls:
        function = raw.get("function") if isinstance(raw, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        resolved = resolve_tool_name(name, offered) if isinstance(name, str) else None
        if resolved is None and functions and isinstance(name, str):
            assert isinstance(function, Mapping)
            meant = _meant(name, function, functions)
            if meant is not None:
                renamed.append({**raw, "function": meant[0]})
                repairs.extend(meant[1])
                continue
        if resolved is None or resolved == name:
            renamed.append(raw)
            continue
        assert isinstance(raw, Mapping)
        assert isinstance(function, Mapping)
        renamed.append({**raw, "function": {**function, "name": resolved}})
        repairs.append(f"{resolved}:{TOOL_NAME}:{name}")
    if not repairs:
        return message, []
    return {**message, "tool_calls": renamed}, repairs


def _meant(
    name: str, function: Mapping[str, Any], functions: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[str, Any], list[str]] | None:
    """The call's function renamed to the offered tool it means (`_meant_tool`), with the
    parameters its name's words fill; and the repairs. None when it means none."""
    arguments = function.get("arguments")
    given = arguments_object(arguments)  # read once, for both questions
    resolved = meant_tool(name, given, functions)
    if resolved is None:
        return None
    repairs = [f"{resolved}:{MEANT_TOOL}:{name}"]
    fills = meant_choices(name, given, functions[resolved])
    if fills:
        arguments = json.dumps({**given, **fills}, ensure_ascii=False, separators=(",", ":"))
        repairs += [f"{resolved}:{MEANT_CHOICE}:/{parameter}" for parameter in fills]
    return {**function, "name": resolved, "arguments": arguments}, repairs


def recovered_call_id(attempt: int, index: int) -> str:
    """The id given to call `index` recovered from attempt `attempt`'s text.

    Streamed events announce a recovered call before the answer is complete, so the id is a
    function of its position alone.
    """
    # Nine alphanumerics: the one id form every family's template accepts (Mistral's rule).
    return f"r{attempt:03d}{index:05d}"
