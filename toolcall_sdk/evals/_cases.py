"""The eval case format and reading case files.

A case file is JSON Lines, one case per line::

    {"id": "inv-001", "category": "create/pattern",
     "messages": [{"role": "user", "content": "Bill CUS-000123 1,500,000 VND due 2027-01-15"}],
     "tools": "invoices_tools.py:TOOLS",
     "expected": {"calls": [{"name": "create_invoice",
                             "arguments": {"customer_id": "CUS-000123", "amount_vnd": 1500000,
                                           "due_date": "2027-01-15"}}]},
     "context": {"today": "2026-12-01"}}

`tools` is a list of OpenAI tool definitions, or a reference `FILE.py:NAME` (relative to the
case file) / `package.module:NAME` to a list of `@tool` functions. A reference runs code (the
module is imported), so it is resolved only with `allow_code=True` (`--allow-code`): a case
file from elsewhere is data until its reader says it trusts it. `expected` is
`{"calls": []}` (no call is right) or a list of calls; a call gives `arguments` (exact values)
and/or `accept` (BFCL's convention: each parameter maps to a list of acceptable values, and
`""` in the list means the parameter may be left out).

A multi-step task (for the agent-loop pipelines, `raw-loop` and `agent`) adds an `agent`
object: its expected calls are then a chain, each made after the one before it, and the
run must end in a text answer holding every fact::

    "agent": {"max_steps": 5, "answer": ["billing@acme.example", ["4800000", "4.8 million"]]}

Each fact is a string or a list of acceptable spellings (case is ignored, and thousands
separators in numbers: `4,800,000` holds `4800000`).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall_sdk._errors import ToolCallError
from toolcall_sdk._toolbox import as_tool
from toolcall_sdk._tools import Tool
from toolcall_sdk.evals._bundled import missing_case_file
from toolcall_sdk.evals._schema_tool import tool_from_openai

__all__ = [
    "DEFAULT_AGENT_MAX_STEPS",
    "OMITTED",
    "AgentSpec",
    "CaseFormatError",
    "EvalCase",
    "ExpectedCall",
    "load_cases",
    "parse_case",
    "resolve_tools",
]

OMITTED = ""
"""In an `accept` list: the parameter may be left out (BFCL's convention)."""

DEFAULT_AGENT_MAX_STEPS = 6
"""A multi-step task's step bound when its `agent` object gives none."""


class CaseFormatError(ToolCallError, ValueError):
    """A case file or one of its cases does not follow the case format.

    Attributes:
        source: The file (and line) the case came from.
    """

    def __init__(self, message: str, *, source: str = "") -> None:
        super().__init__(f"{source}: {message}" if source else message)
        self.source = source


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One call the model should make.

    Attributes:
        name: The tool's name.
        accept: Each parameter's acceptable values; `""` among them means it may be omitted.
            Parameters not listed must not be sent.
    """

    name: str
    accept: Mapping[str, Sequence[Any]]


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """What makes a case a multi-step task: its bound and the facts its answer must hold.

    Attributes:
        max_steps: The run's `max_steps`.
        answer: The facts; each is a tuple of acceptable spellings, one of which must be in
            the final text answer.
    """

    max_steps: int = DEFAULT_AGENT_MAX_STEPS
    answer: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class EvalCase:
    """One eval case.

    Attributes:
        id: Unique within its set.
        messages: The conversation to answer, OpenAI chat messages.
        tools: The tools offered, as SDK tools.
        expected: The calls that are right, in any order; empty when no call is right.
        category: A label for per-category reports (e.g. `create/pattern`, `irrelevant`).
        context: Validation context for the SDK pipelines (e.g. `{"today": "2026-12-01"}`).
        source: Where the case came from (`file:line`), for error messages.
        checker: `"exact"` (this package's matcher) or `"bfcl"` (BFCL's AST-checker rules).
        agent: Set for a multi-step task (`"agent"` in the file): the expected calls are
            then a chain in order, and the run's answer must hold the facts.
    """

    id: str
    messages: tuple[Mapping[str, Any], ...]
    tools: tuple[Tool[..., Any], ...]
    expected: tuple[ExpectedCall, ...]
    category: str = "default"
    context: Mapping[str, Any] | None = None
    source: str = ""
    checker: str = "exact"
    extra: Mapping[str, Any] = field(default_factory=dict)
    agent: AgentSpec | None = None

    @property
    def expects_call(self) -> bool:
        """Whether a tool call is the right answer."""
        return bool(self.expected)

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The expected tools' names (empty for a no-call case)."""
        return tuple(call.name for call in self.expected)


def load_cases(path: str | Path, *, allow_code: bool = False) -> list[EvalCase]:
    """Read a JSON Lines case file.

    Args:
        path: The file; tool references in it are resolved relative to its folder.
        allow_code: Import the Python modules the file's tool references name. Off by
            default: importing a module runs it, so only trusted files should do it.

    Returns:
        The cases, in file order.

    Raises:
        CaseFormatError: A line is not a valid case, two cases share an id, or a case names
            code and `allow_code` is off.
        CaseFileNotFoundError: The file does not exist (a `FileNotFoundError`; the
            message lists the bundled case files).
    """
    file = Path(path)
    if not file.is_file():
        raise missing_case_file(path)
    cache: dict[str, tuple[Tool[..., Any], ...]] = {}
    cases: list[EvalCase] = []
    seen: set[str] = set()
    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            source = f"{file}:{number}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CaseFormatError(f"not JSON ({exc.msg})", source=source) from exc
            case = parse_case(
                raw, base_dir=file.parent, source=source, tool_cache=cache, allow_code=allow_code
            )
            if case.id in seen:
                raise CaseFormatError(f"duplicate case id {case.id!r}", source=source)
            seen.add(case.id)
            cases.append(case)
    return cases


def parse_case(
    raw: Any,
    *,
    base_dir: Path | None = None,
    source: str = "",
    tool_cache: dict[str, tuple[Tool[..., Any], ...]] | None = None,
    allow_code: bool = False,
) -> EvalCase:
    """Build an `EvalCase` from one decoded JSON object.

    Raises:
        CaseFormatError: The object does not follow the case format, or names code and
            `allow_code` is off.
    """
    if not isinstance(raw, dict):
        raise CaseFormatError("a case must be a JSON object", source=source)
    case_id = raw.get("id")
    if not isinstance(case_id, str) or not case_id:
        raise CaseFormatError("'id' must be a non-empty string", source=source)
    messages = raw.get("messages")
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    if not isinstance(messages, list) or not messages:
        raise CaseFormatError("'messages' must be a non-empty list", source=source)
    for message in messages:
        if not isinstance(message, dict) or "role" not in message:
            raise CaseFormatError("every message needs a 'role'", source=source)
    try:
        tools = resolve_tools(
            raw.get("tools"), base_dir=base_dir, cache=tool_cache, allow_code=allow_code
        )
    except CaseFormatError as exc:
        raise CaseFormatError(str(exc), source=source) from exc
    expected = _expected(raw.get("expected"), source)
    names = {t.name for t in tools}
    for call in expected:
        if call.name not in names:
            raise CaseFormatError(f"expected tool {call.name!r} is not offered", source=source)
    context = raw.get("context")
    if context is not None and not isinstance(context, dict):
        raise CaseFormatError("'context' must be an object", source=source)
    agent = _agent(raw.get("agent"), source)
    if agent is not None and not expected:
        raise CaseFormatError("a multi-step task ('agent') needs expected calls", source=source)
    known = {"id", "messages", "tools", "expected", "category", "context", "agent"}
    return EvalCase(
        id=case_id,
        messages=tuple(messages),
        tools=tools,
        expected=expected,
        category=str(raw.get("category") or "default"),
        context=context,
        source=source,
        extra={k: v for k, v in raw.items() if k not in known},
        agent=agent,
    )


def resolve_tools(
    spec: Any,
    *,
    base_dir: Path | None = None,
    cache: dict[str, tuple[Tool[..., Any], ...]] | None = None,
    allow_code: bool = False,
) -> tuple[Tool[..., Any], ...]:
    """Turn a case's `tools` entry into SDK tools.

    Args:
        spec: A reference string, or a list of OpenAI definitions and/or references.
        base_dir: Folder that relative `FILE.py:NAME` references start from.
        cache: Reused between cases so a module is imported once per file.
        allow_code: Import the modules that references name (they run when imported).

    Raises:
        CaseFormatError: A reference cannot be resolved, names code while `allow_code` is
            off, or a definition is invalid.
    """
    if isinstance(spec, str):
        return _reference(spec, base_dir, cache if cache is not None else {}, allow_code)
    if not isinstance(spec, list) or not spec:
        raise CaseFormatError("'tools' must be a reference 'FILE.py:NAME' or a non-empty list")
    tools: list[Tool[..., Any]] = []
    for item in spec:
        if isinstance(item, str):
            tools.extend(_reference(item, base_dir, cache if cache is not None else {}, allow_code))
        elif isinstance(item, dict):
            try:
                tools.append(tool_from_openai(item))
            except (ValueError, TypeError) as exc:
                raise CaseFormatError(f"invalid tool definition: {exc}") from exc
        else:
            raise CaseFormatError(f"cannot use {item!r} as a tool definition")
    return tuple(tools)


def _reference(
    spec: str,
    base_dir: Path | None,
    cache: dict[str, tuple[Tool[..., Any], ...]],
    allow_code: bool,
) -> tuple[Tool[..., Any], ...]:
    key = f"{base_dir}|{spec}"
    if key in cache:
        return cache[key]
    target, _, attribute = spec.rpartition(":")
    if not target or not attribute:
        raise CaseFormatError(f"tool reference {spec!r} must look like FILE.py:NAME or module:NAME")
    if not allow_code:
        raise CaseFormatError(
            f"the tools {spec!r} are Python code, and loading them runs it: if you trust this "
            "case file, pass --allow-code (allow_code=True in Python); otherwise define its "
            "tools as OpenAI JSON in the file"
        )
    if target.endswith(".py"):
        module = _module_from_file(Path(base_dir or ".") / target)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise CaseFormatError(f"cannot import {target!r}: {exc}") from exc
    value = getattr(module, attribute, None)
    if value is None:
        raise CaseFormatError(f"{target!r} has no attribute {attribute!r}")
    items = value if isinstance(value, list | tuple) else [value]
    try:
        tools = tuple(as_tool(item) for item in items)
    except ToolCallError as exc:
        raise CaseFormatError(f"{spec}: {exc}") from exc
    cache[key] = tools
    return tools


def _module_from_file(path: Path) -> Any:
    resolved = path.resolve()
    if not resolved.is_file():
        raise CaseFormatError(f"tool module {path} does not exist")
    name = f"_toolcall_eval_tools_{abs(hash(str(resolved)))}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CaseFormatError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before running so that Pydantic can resolve the module's annotations.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise CaseFormatError(f"{path} failed to import: {type(exc).__name__}: {exc}") from exc
    return module


def _expected(raw: Any, source: str) -> tuple[ExpectedCall, ...]:
    if raw is None:
        raise CaseFormatError("'expected' is required ({'calls': []} for no call)", source=source)
    calls = raw.get("calls") if isinstance(raw, dict) else raw
    if not isinstance(calls, list):
        raise CaseFormatError("'expected.calls' must be a list", source=source)
    out: list[ExpectedCall] = []
    for call in calls:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise CaseFormatError("each expected call needs a 'name'", source=source)
        accept: dict[str, list[Any]] = {}
        arguments = call.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise CaseFormatError("'arguments' must be an object", source=source)
        for key, value in arguments.items():
            accept[key] = [value]
        extra = call.get("accept") or {}
        if not isinstance(extra, dict):
            raise CaseFormatError("'accept' must be an object", source=source)
        for key, values in extra.items():
            if not isinstance(values, list) or not values:
                raise CaseFormatError(
                    f"'accept.{key}' must be a non-empty list of acceptable values", source=source
                )
            accept[key] = list(values)
        out.append(ExpectedCall(name=call["name"], accept=accept))
    return tuple(out)


def _agent(raw: Any, source: str) -> AgentSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise CaseFormatError("'agent' must be an object", source=source)
    unknown = set(raw) - {"max_steps", "answer"}
    if unknown:
        raise CaseFormatError(f"unknown 'agent' key(s) {sorted(unknown)}", source=source)
    max_steps = raw.get("max_steps", DEFAULT_AGENT_MAX_STEPS)
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 2:
        raise CaseFormatError("'agent.max_steps' must be an integer of 2 or more", source=source)
    facts = raw.get("answer", [])
    if not isinstance(facts, list):
        raise CaseFormatError("'agent.answer' must be a list of facts", source=source)
    answer: list[tuple[str, ...]] = []
    for fact in facts:
        spellings = fact if isinstance(fact, list) else [fact]
        if not spellings or not all(isinstance(s, str) and s.strip() for s in spellings):
            raise CaseFormatError(
                "each 'agent.answer' fact is a non-empty string or a list of them", source=source
            )
        answer.append(tuple(spellings))
    return AgentSpec(max_steps=max_steps, answer=tuple(answer))
