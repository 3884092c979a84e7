"""The interactive review: one recorded request at a time, a person decides what is right.

Each group of near-duplicate entries is shown compactly (the last user turn, what followed
it, the tools offered, then the call, the answer or the problem) and a one-letter answer
decides it:

- `a`: the call the SDK made is the expected call;
- `f`: fix it: `field=value` lines (the value read as JSON, else taken as a string; `-field`
  removes the field), an empty line when done; for a request with no call, the tool is asked
  first. A fixed call that does not validate against the tool's schema is written anyway,
  with a warning: the reviewer is the authority, and the schema may be what is wrong;
- `n`: no call is expected (the case expects a text answer);
- `s`: skip it (asked again next time);
- `q`: quit. Every decision is written to the case file as it is made, so quitting, the end
  of input and Ctrl-C all keep what was decided.

The I/O is injected: `ask(prompt)` returns one line (and raises `EOFError` when input
ends), and everything else goes to a Rich console, so the same code runs on a terminal and
under a test's scripted input. Text from the traffic goes on the console as plain text
(`plain()`), never read as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from toolcall_sdk._console import plain
from toolcall_sdk._errors import ToolCallError
from toolcall_sdk._messages import content_text
from toolcall_sdk.evals._call_text import call_text, calls_text
from toolcall_sdk.evals._near_duplicates import EntryGroup
from toolcall_sdk.evals._recorded_cases import CaseFile, Decision, case_from
from toolcall_sdk.evals._schema_tool import tool_from_openai
from toolcall_sdk.evals._traffic import TrafficEntry

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["PROMPT", "Ask", "ReviewTally", "check_call", "review", "show_group"]

Ask = Callable[[str], str]
"""Shows a prompt and returns the line typed; raises `EOFError` when input has ended."""

PROMPT: Final = "[a]ccept  [f]ix  [n]o call  [s]kip  [q]uit > "
TEXT_LIMIT: Final = 300
"""Characters of a message shown; a reviewer reads the start, the case keeps it whole."""
_NOT_ONE_STEP = {
    "run": "a run: its calls may come from several steps, and the case expects them all from "
    "the first request; fix it down to the first step's calls, or skip it",
    "resume": "a resumed run: its calls came after an approval pause, over any number of "
    "steps; fix it down to what the first request should make, or skip it",
}
_STATUS_STYLE = {"called": "green", "answered": "cyan", "failed": "bold red", "error": "bold red"}


@dataclass
class ReviewTally:
    """What a review session decided."""

    accepted: int = 0
    fixed: int = 0
    no_call: int = 0
    skipped: int = 0
    unusable: int = 0
    not_reviewed: int = 0
    quit: bool = False


class _Quit(Exception):
    """The reviewer asked to stop (`q`, the end of input, Ctrl-C)."""


def review(
    groups: Sequence[EntryGroup], *, out: CaseFile, console: Console, ask: Ask
) -> ReviewTally:
    """Ask about each group in turn, writing each decided case to `out` at once."""
    tally = ReviewTally()
    for index, group in enumerate(groups, start=1):
        problem = _unusable(group, out)
        if problem is not None:
            tally.unusable += 1
            console.print(plain(f"{index}/{len(groups)} {group.entry.id}: left out: {problem}"))
            continue
        show_group(group, index, len(groups), console)
        try:
            decision = _decide(group, console, ask)
        except (_Quit, EOFError, KeyboardInterrupt):
            tally.quit = True
            tally.not_reviewed = len(groups) - index + 1
            console.print()
            break
        if decision is None:
            tally.skipped += 1
            continue
        out.add(case_from(group, decision, taken=out.ids))
        if decision.kind == "accepted":
            tally.accepted += 1
        elif decision.kind == "fixed":
            tally.fixed += 1
        else:
            tally.no_call += 1
    return tally


def show_group(group: EntryGroup, index: int, total: int, console: Console) -> None:
    """The request compactly: who asked what, then what came of it."""
    from rich.table import Table

    entry = group.entry
    status = entry.status + (f" ({entry.failure_class})" if entry.failure_class else "")
    header = plain(f"{index}/{total}  ", "bold") + plain(f"{entry.id[:8]}  ")
    header += plain(status, _STATUS_STYLE.get(entry.status, ""))
    if group.count > 1:
        header += plain(f"  x{group.count}", "bold")
    header += plain(f"  {entry.source} {entry.operation}  {entry.time}", "dim")
    console.print()
    console.print(header)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    for label, text, style in _lines(entry):
        grid.add_row(label, plain(text, style))
    console.print(grid)


def _lines(entry: TrafficEntry) -> list[tuple[str, str, str]]:
    messages = list(entry.messages)
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    lines: list[tuple[str, str, str]] = []
    earlier = [m for m in messages[: max(last_user, 0)] if m.get("role") != "system"]
    if earlier:
        lines.append(("earlier", f"{len(earlier)} message(s)", "dim"))
    for message in messages[max(last_user, 0) :]:
        lines.append((str(message.get("role")), _message_text(message), ""))
    names = [str(t.get("function", t).get("name")) for t in entry.tools]
    lines.append(("tools", ", ".join(names) or "(none)", "dim"))
    if entry.calls:
        lines.append(("call", calls_text(entry.calls), "green" if not entry.failed else ""))
    if entry.status == "answered":
        lines.append(("answer", _cut(entry.content or ""), "cyan"))
    for problem in entry.problems:
        where = f"{problem.get('tool_name')}: " if problem.get("tool_name") else ""
        lines.append(("problem", f"{where}{problem.get('message')}", "red"))
    if entry.error:
        lines.append(("error", _cut(entry.error), "red"))
    if entry.failed and entry.attempts:
        lines.append(("attempts", str(entry.attempts), "dim"))
    if not entry.one_step:
        lines.append(("note", _NOT_ONE_STEP.get(entry.operation, _NOT_ONE_STEP["run"]), "yellow"))
    return lines


def _message_text(message: Mapping[str, Any]) -> str:
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        shown = []
        for call in calls:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except (TypeError, ValueError):
                arguments = {"": function.get("arguments")}
            shown.append(call_text(str(function.get("name")), arguments))
        return "; ".join(shown)
    return _cut(content_text(message.get("content")))


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TEXT_LIMIT else flat[: TEXT_LIMIT - 3] + "..."


def _unusable(group: EntryGroup, out: CaseFile) -> str | None:
    """Why no case can be made of the group (its recorded tools are unreadable), or None."""
    try:
        case_from(group, Decision("no_call"), taken=set(out.ids))
    except ToolCallError as exc:
        return str(exc)
    return None


def _decide(group: EntryGroup, console: Console, ask: Ask) -> Decision | None:
    entry = group.entry
    while True:
        answer = ask(PROMPT).strip().lower()[:1]
        if answer == "q":
            raise _Quit
        if answer == "s":
            return None
        if answer == "n":
            return Decision("no_call")
        if answer == "a":
            if entry.calls:
                _warn_invalid(entry, entry.calls, console)
                return Decision("accepted", entry.calls)
            console.print(plain("no call to accept: n if no call is right, f to write the call"))
        elif answer == "f":
            fixed = _fix(entry, console, ask)
            if fixed is not None:
                _warn_invalid(entry, fixed, console)
                return Decision("fixed", fixed)
        else:
            console.print(plain("answer a, f, n, s or q"))


def _fix(entry: TrafficEntry, console: Console, ask: Ask) -> tuple[Mapping[str, Any], ...] | None:
    """The calls after the reviewer's changes; None when they gave up on fixing."""
    calls = [{"name": c["name"], "arguments": dict(c["arguments"])} for c in entry.calls]
    if not calls:
        name = _ask_tool(entry, ask, console)
        if name is None:
            return None
        calls = [{"name": name, "arguments": {}}]
    target = calls[0]
    if len(calls) > 1:
        number = ask(f"which call, 1-{len(calls)} > ").strip()
        if not number.isdigit() or not 1 <= int(number) <= len(calls):
            console.print(plain("no such call"))
            return None
        target = calls[int(number) - 1]
    arguments: dict[str, Any] = target["arguments"]
    while True:
        console.print(plain("  " + call_text(target["name"], arguments), "green"))
        line = ask("field=value, -field to remove, empty line when done > ").strip()
        if not line:
            return tuple(calls)
        if line.startswith("-"):
            if arguments.pop(line[1:].strip(), None) is None:
                console.print(plain(f"no field {line[1:].strip()!r}"))
            continue
        key, equals, value = line.partition("=")
        if not equals or not key.strip():
            console.print(plain("write field=value (the value as JSON, or plain text)"))
            continue
        arguments[key.strip()] = _value(value.strip())


def _ask_tool(entry: TrafficEntry, ask: Ask, console: Console) -> str | None:
    names = [str(t.get("function", t).get("name")) for t in entry.tools]
    if not names:
        console.print(plain("no tool was offered: n if no call is right, else s"))
        return None
    default = entry.tool if entry.tool in names else (names[0] if len(names) == 1 else "")
    shown = f", Enter for {default}" if default else ""
    while True:
        name = ask(f"tool ({', '.join(names)}{shown}) > ").strip() or default
        if name in names:
            return name
        console.print(plain(f"not an offered tool: {name!r}"))


def _value(text: str) -> Any:
    """A typed value as JSON (`5`, `true`, `"5"`, `[1, 2]`), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def check_call(tools: Sequence[Mapping[str, Any]], call: Mapping[str, Any]) -> str | None:
    """Why a call's arguments fail its tool's schema (the first error), or None."""
    from pydantic import ValidationError

    for definition in tools:
        function = definition.get("function", definition)
        if function.get("name") != call["name"]:
            continue
        try:
            tool = tool_from_openai(definition)
            tool.args_model.model_validate(call.get("arguments") or {})
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "arguments"
            return f"{where}: {error['msg']}"
        except (ToolCallError, ValueError, TypeError) as exc:
            return str(exc)
        return None
    return f"{call['name']} was not offered"


def _warn_invalid(
    entry: TrafficEntry, calls: Sequence[Mapping[str, Any]], console: Console
) -> None:
    for call in calls:
        problem = check_call(entry.tools, call)
        if problem is not None:
            console.print(
                plain(f"warning: {call['name']} does not validate ({problem}); written as given")
            )
