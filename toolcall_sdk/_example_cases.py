"""Reading demonstrations out of eval cases: a request and the call that was right for it.

The cases are the eval case format (JSON Lines, `toolcall_sdk.evals._cases`), such as the
ones `toolcall-sdk cases review` writes from accepted traffic. A demonstration needs only
two parts of a case: the last user message (what was asked) and `expected.calls` (what was
right); its `tools` entry is never read, so a case whose tools are a code reference
(`FILE.py:NAME`) is used without importing anything. The tools a demonstration calls are
checked against the client's offered tools by name, per request.

A case gives no demonstration, and is left out without an error, when it expects no call
(`{"calls": []}`: nothing to show), is a multi-step task (`agent`: its calls are a chain,
not one answer), or its conversation does not end with a user message that has text (the
call answered something else: a tool result, an earlier turn). A call's `arguments` are its
exact values; a parameter given only in `accept` takes its first acceptable value, and is
left out when `""` (may be omitted) is among them, as `cases review` writes a parameter left
at its default.

This module is below the eval tooling's layer: it reads the format itself, and anything that
breaks it raises `ExamplesError` with the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolcall_sdk._errors import ExamplesError
from toolcall_sdk._json_lines import json_lines

__all__ = ["Example", "examples_from_cases", "examples_from_file", "last_user_text"]

# In an `accept` list: the parameter may be left out (BFCL's convention, `cases review`'s).
_OMITTED: Final = ""


@dataclass(frozen=True, slots=True)
class Example:
    """One demonstration: what the user asked, and the calls that were right.

    Attributes:
        text: The case's last user message.
        calls: Each call's tool name and arguments, in the case's order.
        source: Where it came from (`FILE:LINE` or `examples[i]`).
    """

    text: str
    calls: tuple[tuple[str, Mapping[str, Any]], ...]
    source: str

    @property
    def tools(self) -> frozenset[str]:
        """The names of the tools its calls use."""
        return frozenset(name for name, _ in self.calls)


def examples_from_file(path: str | os.PathLike[str]) -> list[Example]:
    """The demonstrations of a JSON Lines case file, in file order.

    Raises:
        ExamplesError: The file cannot be read, or a line is not JSON or not a case.
    """
    name = os.fspath(path)
    file = Path(name)
    if not file.is_file():
        raise ExamplesError(
            "no case file here: give the path of a JSON Lines case file, such as the one "
            "`toolcall-sdk cases review --out FILE` writes",
            path=name,
        )
    examples: list[Example] = []
    try:
        with file.open(encoding="utf-8") as handle:
            for number, raw in json_lines(
                handle,
                lambda number, exc: ExamplesError(
                    f"not JSON ({exc.msg}); each line must be one case object",
                    path=name,
                    line=number,
                ),
            ):
                example = _example(raw, f"{name}:{number}", path=name, line=number)
                if example is not None:
                    examples.append(example)
    except (OSError, UnicodeDecodeError) as exc:
        raise ExamplesError(f"cannot be read ({exc})", path=name) from exc
    return examples


def examples_from_cases(cases: Iterable[Any]) -> list[Example]:
    """The demonstrations of cases given as decoded objects (dicts), in order.

    Raises:
        ExamplesError: An item is not a case.
    """
    examples: list[Example] = []
    for index, raw in enumerate(cases):
        example = _example(raw, f"examples[{index}]", path=None, line=index)
        if example is not None:
            examples.append(example)
    return examples


def last_user_text(messages: Sequence[Mapping[str, Any]], *, skip: Sequence[str] = ()) -> str:
    """The text of the last user message, leaving out those that start with `skip`."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        text = _text(message.get("content"))
        if text and not text.startswith(tuple(skip)):
            return text
    return ""


def _example(raw: Any, source: str, *, path: str | None, line: int) -> Example | None:
    def fail(message: str) -> ExamplesError:
        return ExamplesError(message, path=path, line=line)

    if not isinstance(raw, Mapping):
        raise fail("a case must be a JSON object")
    messages = raw.get("messages")
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    if not isinstance(messages, list) or not messages:
        raise fail("'messages' must be a non-empty list of chat messages")
    if not all(isinstance(m, Mapping) and "role" in m for m in messages):
        raise fail("every message needs a 'role'")
    calls = _calls(raw.get("expected"), fail)
    if not calls or raw.get("agent") is not None:
        return None
    last = messages[-1]
    text = _text(last.get("content")) if last.get("role") == "user" else ""
    if not text:
        return None
    return Example(text=text, calls=calls, source=source)


def _calls(
    expected: Any, fail: Callable[[str], ExamplesError]
) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    if expected is None:
        raise fail("'expected' is required: {\"calls\": [...]}, the calls that were right")
    calls = expected.get("calls") if isinstance(expected, Mapping) else expected
    if not isinstance(calls, list):
        raise fail("'expected.calls' must be a list")
    out: list[tuple[str, Mapping[str, Any]]] = []
    for call in calls:
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise fail("each expected call needs a 'name'")
        arguments = call.get("arguments") or {}
        accept = call.get("accept") or {}
        if not isinstance(arguments, Mapping):
            raise fail(f"'arguments' of {call['name']!r} must be an object")
        if not isinstance(accept, Mapping):
            raise fail(f"'accept' of {call['name']!r} must be an object")
        values = dict(arguments)
        for key, acceptable in accept.items():
            if not isinstance(acceptable, list) or not acceptable:
                raise fail(f"'accept.{key}' must be a non-empty list of acceptable values")
            if key not in values and _OMITTED not in acceptable:
                values[key] = acceptable[0]
        out.append((call["name"], values))
    return tuple(out)


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
            if isinstance(part.get("text"), str)
        ]
        return "\n".join(parts).strip()
    return ""
