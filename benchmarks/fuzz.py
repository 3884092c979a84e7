"""Fuzzing: the code that reads model output, fed adversarial input with hypothesis.

    python benchmarks/fuzz.py [--inputs 100000] [--seed 0] [--time-limit 2]

Six targets share the inputs (`SHARES`):

- `parse`: `parse(text, fmt)` for every format of `FORMATS` and `"auto"`, `parse_any`,
  `split_reasoning`, `parse_with_reasoning` and `detect_format`;
- `stream`: `StreamParser(fmt)` and `ReasoningSplitter` fed the text cut at random points
  (a disagreement with `parse` of the whole text is counted, apart from crashes);
- `repair`: `repair_arguments`, `close_truncated_json`, `unwrap_json_string` and
  `coerce_scalars` against the parameter schemas of real tools;
- `validation`: `check_answer` on assistant messages whose calls name real, unknown and
  absurd tools with hostile argument text or values; every problem it returns goes through
  `feedback_text`, whose length is checked against the bounds of `_limits`;
- `wire`: what a server may send instead of a chat completion (mutated bodies and event
  streams of `ScriptedModel` replies, completions with any JSON in one field, any JSON,
  any bytes), answered to `ToolCallClient.call()` (streamed or not) by an in-process
  `ScriptedModel`: reading, recovery, validation and feedback, as a user's call runs them;
- `feedback`: `feedback_text` and the other feedback builders on hostile problems.

The inputs: random text (surrogates included), the 469 recorded outputs of canitoolcall's
corpus and the bodies `ScriptedModel` sends, mutated (cut, cut from the front, a slice
deleted or duplicated, two spliced, hostile pieces inserted), and hostile pieces alone:
nesting thousands deep, numbers of thousands of digits, `NaN`/`1e400`, lone surrogates, NUL
bytes, the tags of every format.

An *untyped exception* is one a target does not document: the parsers, repairs and feedback
raise nothing; `check_answer` raises only `ToolValidatorError` (a tool's bug, here on
purpose); the client raises only `ToolCallError`s. A *hang* is an input that uses more
than `--time-limit` seconds of CPU (a timer interrupts it; CPU time, so that a loaded
machine does not turn a slow input into a hang). `tests/unit/parsing/test_fuzz.py` runs the
same targets for a few hundred inputs and fails on either.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from types import FrameType
from typing import Annotated, Any, Final, Literal

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, field_validator

from toolcall_sdk import RetryPolicy, ToolCallClient, ToolCallError, ToolValidatorError, tool
from toolcall_sdk._feedback import (
    denied_text,
    feedback_text,
    no_tool_call_text,
    repeated_call_text,
)
from toolcall_sdk._limits import (
    MAX_FEEDBACK_FIELDS,
    MAX_QUOTED_MESSAGE_CHARS,
    MAX_QUOTED_NAME_CHARS,
    MAX_QUOTED_VALUE_CHARS,
)
from toolcall_sdk._results import FieldError, Problem
from toolcall_sdk._toolbox import as_tool
from toolcall_sdk._tools import Tool
from toolcall_sdk._validation import check_answer
from toolcall_sdk.parsing import (
    FORMATS,
    CallFinished,
    ParseResult,
    ReasoningSplitter,
    StreamParser,
    TextDelta,
    close_truncated_json,
    coerce_scalars,
    detect_format,
    parse,
    parse_any,
    parse_with_reasoning,
    repair_arguments,
    split_reasoning,
    unwrap_json_string,
)
from toolcall_sdk.testing import ScriptedModel, malformed, parallel, text, tool_call

TARGETS: Final = ("parse", "stream", "repair", "validation", "wire", "feedback")
SHARES: Final = {
    "parse": 0.25,
    "stream": 0.25,
    "repair": 0.15,
    "validation": 0.15,
    "wire": 0.10,
    "feedback": 0.10,
}
PROBLEM_KINDS: Final = (
    "invalid_arguments",
    "unknown_tool",
    "invalid_json",
    "tool_retry",
    "not_executed",
    "no_tool_call",
)
# The longest feedback text the bounds of `_limits` allow (quoted names, messages, values
# and the first MAX_FEEDBACK_FIELDS field errors), with room for the fixed wording.
MAX_FEEDBACK_CHARS: Final = (
    MAX_FEEDBACK_FIELDS
    * (MAX_QUOTED_NAME_CHARS + MAX_QUOTED_MESSAGE_CHARS + MAX_QUOTED_VALUE_CHARS + 20)
    + 2 * (MAX_QUOTED_NAME_CHARS + MAX_QUOTED_MESSAGE_CHARS)
    + 2000
)


# -- tools the validation target checks calls against -------------------------------------


class Item(BaseModel):
    sku: Annotated[str, Field(min_length=1)]
    quantity: Annotated[int, Field(ge=1)] = 1


class Order(BaseModel):
    items: list[Item]
    note: str | None = None


@tool
def create_invoice(
    customer_id: Annotated[str, Field(pattern=r"^CUS-\d{6}$")],
    amount_vnd: Annotated[int, Field(gt=0)],
    due_date: date,
) -> str:
    """Create an invoice for a customer."""
    return "ok"


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather for a city."""
    return "ok"


@tool
def place_order(order: Order, express: bool = False, budget: float | None = None) -> str:
    """Place an order."""
    return "ok"


class Ratio(BaseModel):
    """Divide two numbers."""

    x: float
    y: float

    @field_validator("y")
    @classmethod
    def _not_zero(cls, value: float) -> float:
        if value == 0:
            raise ValueError("y must not be 0")
        return value


class Lookup(BaseModel):
    """Look a key up (its validator has a bug: the tool's, not the model's)."""

    key: str

    @field_validator("key")
    @classmethod
    def _known(cls, value: str) -> str:
        return {"a": "a", "b": "b"}[value[:1]] + value[1:]  # KeyError for other keys


@cache
def tools() -> dict[str, Tool[..., Any]]:
    """Hand-written tools plus a few JSON Schema tools of the canitoolcall corpus."""
    made = [as_tool(item) for item in (create_invoice, get_weather, place_order, Ratio, Lookup)]
    seen = {t.name for t in made}
    for fixture in _fixtures():
        for definition in fixture.tools:
            name = definition.get("function", {}).get("name")
            if name in seen or len(seen) >= 12:
                continue
            try:
                made.append(as_tool(definition))
            except ToolCallError:
                continue  # a schema this SDK refuses is not what is fuzzed here
            seen.add(name)
    return {t.name: t for t in made}


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """The parameters schema each tool is offered with (strict, as the client sends it)."""
    return {
        name: t.openai_schema(strict=True)["function"]["parameters"] for name, t in tools().items()
    }


# -- inputs --------------------------------------------------------------------------------


@cache
def _fixtures() -> tuple[Any, ...]:
    from canitoolcall.fixtures import load_fixtures

    return tuple(load_fixtures())


@cache
def seed_texts() -> tuple[str, ...]:
    """Real model outputs: canitoolcall's recorded outputs and the ScriptedModel replies'."""
    return tuple(f.raw_output for f in _fixtures()) + REPLY_ARGUMENTS


@cache
def tags() -> tuple[str, ...]:
    """The markup of every format, as the corpus writes it."""
    found: set[str] = set()
    pattern = re.compile(r"<[^<>\s]{1,40}>|\[[A-Z_]{3,}\]|<\|[^|]{1,30}\|>")
    for fixture in _fixtures():
        found.update(pattern.findall(fixture.raw_output))
    return tuple(sorted(found))


# Argument texts of the kind the unit tests script with `tool_call(...)`.
REPLY_ARGUMENTS: Final = (
    '{"city": "Hà Nội", "unit": "celsius"}',
    '{"customer_id": "CUS-000123", "amount_vnd": 1500000, "due_date": "2026-02-30"}',
    '{"order": {"items": [{"sku": "A1", "quantity": 2}], "note": null}, "budget": 1e3}',
    '{"x": 1.5, "y": 0}',
    '"{\\"city\\": \\"Oslo\\"}"',
    '{"amount_vnd": "1500000", "express": "true", "due_date": "2026-01-01"}',
)


@cache
def wire_seeds() -> tuple[bytes, ...]:
    """The bodies a ScriptedModel sends, whole and streamed, for a few replies."""
    replies = [
        tool_call("get_weather", {"city": "Oslo"}),
        parallel(
            tool_call("get_weather", {"city": "Hue"}),
            tool_call("create_invoice", {"customer_id": "CUS-000001", "amount_vnd": 5}),
        ),
        text('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'),
        text("It is sunny."),
    ]
    bodies: list[bytes] = []
    for stream in (False, True):
        model = ScriptedModel(replies)
        with model.http_client() as http:
            for _ in replies:
                request: dict[str, Any] = {"model": "m", "messages": [], "stream": stream}
                if stream:
                    request["stream_options"] = {"include_usage": True}
                bodies.append(http.post("/chat/completions", json=request).read())
    return tuple(bodies)


@cache
def _nasty_pieces() -> st.SearchStrategy[str]:
    depth = st.integers(90, 3000)
    digits = st.integers(90, 6000)
    return st.one_of(
        st.sampled_from(
            [
                "\x00",
                "\ud800",
                "\udfff",
                "\ud83d",
                "\\ud800",
                "\\u0000",
                "NaN",
                "Infinity",
                "-Infinity",
                "1e400",
                "-1e-400",
                "1" * 4301,
                '"',
                "\\",
                "\u2028",
                "😀",
            ]
        ),
        st.sampled_from(tags()) if tags() else st.just("<tool_call>"),
        depth.map(lambda n: "[" * n),
        depth.map(lambda n: "]" * n),
        depth.map(lambda n: '{"a": ' * n),
        depth.map(lambda n: "[" * n + "]" * n),
        depth.map(lambda n: "(" * n),
        digits.map(lambda n: "9" * n),
        digits.map(lambda n: '"' + "7" * n + '"'),
        digits.map(lambda n: "0." + "1" * n + "e-99999"),
    )


@st.composite
def _mutated(draw: st.DrawFn, seeds: Sequence[str]) -> str:
    out = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, len(out)))
        end = draw(st.integers(start, len(out)))
        match draw(st.sampled_from(["cut", "tail", "delete", "duplicate", "splice", "insert"])):
            case "cut":
                out = out[:start]
            case "tail":
                out = out[start:]
            case "delete":
                out = out[:start] + out[end:]
            case "duplicate":
                out = out[:end] + out[start:end] + out[end:]
            case "splice":
                other = draw(st.sampled_from(seeds))
                out = out[:start] + other[draw(st.integers(0, len(other))) :]
            case _:
                out = out[:start] + draw(_nasty_pieces()) + out[start:]
    return out


@cache
def _random_text() -> st.SearchStrategy[str]:
    return st.text(st.characters(exclude_categories=()), max_size=300)


@cache
def texts() -> st.SearchStrategy[str]:
    """Model output, as the parsers and repairs see it."""
    return st.one_of(
        _random_text(),
        _mutated(seed_texts()),
        _mutated(seed_texts()),
        st.lists(_nasty_pieces() | st.sampled_from(tags()), max_size=6).map("".join),
    )


@cache
def json_values(max_leaves: int = 20) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        # As long as a server's JSON can carry (pydantic-core refuses 4,300 digits and more);
        # longer number text comes from the hostile pieces.
        st.integers(-(10**4299), 10**4299),
        st.floats(),
        st.text(st.characters(exclude_categories=()), max_size=20),
        st.sampled_from(["", "5", "5.0", "true", "[1, 2]", '{"a": 1}', "7" * 5000, "1e400"]),
    )
    keys = st.text(max_size=10) | st.sampled_from(_field_names())
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=max_leaves,
    )


@cache
def _field_names() -> tuple[str, ...]:
    names = {"city", "unit", "customer_id", "amount_vnd", "due_date", "order", "items", "x", "y"}
    for schema in schemas().values():
        names.update(schema.get("properties", {}))
    return tuple(sorted(names))


@cache
def _arguments() -> st.SearchStrategy[Any]:
    as_json = json_values().map(lambda value: json.dumps(value, ensure_ascii=False))
    deep = st.integers(50, 3000).map(lambda n: '{"city": ' + "[" * n + "]" * n + "}")
    return st.one_of(texts(), as_json, deep, json_values(), st.none())


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """Assistant messages in the shape the client's readers give `check_answer`."""
    names = st.sampled_from(sorted(tools())) | st.text(max_size=80) | st.just("x" * 10_000)
    calls = []
    for index in range(draw(st.integers(0, 3))):
        call: dict[str, Any] = {"type": "function"}
        if draw(st.booleans()):
            call["id"] = draw(st.text(max_size=20) | st.just(f"call_{index}"))
        call["function"] = {"name": draw(names), "arguments": draw(_arguments())}
        calls.append(call)
    message: dict[str, Any] = {"role": "assistant", "content": draw(st.none() | texts())}
    if calls:
        message["tool_calls"] = calls
    return message


@cache
def _problems() -> st.SearchStrategy[Problem]:
    hostile = texts() | st.just("x" * 100_000)
    fields = st.builds(
        FieldError,
        field=hostile,
        message=hostile,
        value=json_values(10) | st.sampled_from([b"\x00", {1, 2}, object(), float("nan")]),
    )
    return st.builds(
        Problem,
        kind=st.sampled_from(PROBLEM_KINDS),
        message=hostile,
        tool_name=st.none() | hostile,
        call_id=st.none() | hostile,
        raw_arguments=st.none() | hostile,
        fields=st.lists(fields, max_size=15).map(tuple),
    )


# Where a chat completion (whole, or one stream chunk) can hold something unexpected.
_WIRE_SLOTS: Final = (
    ("choices",),
    ("choices", 0),
    ("choices", 0, "message"),
    ("choices", 0, "delta"),
    ("choices", 0, "finish_reason"),
    ("choices", 0, "index"),
    ("choices", 0, "message", "content"),
    ("choices", 0, "message", "tool_calls"),
    ("choices", 0, "message", "tool_calls", 0),
    ("choices", 0, "message", "tool_calls", 0, "id"),
    ("choices", 0, "message", "tool_calls", 0, "function"),
    ("choices", 0, "message", "tool_calls", 0, "function", "name"),
    ("choices", 0, "message", "tool_calls", 0, "function", "arguments"),
    ("choices", 0, "delta", "content"),
    ("choices", 0, "delta", "tool_calls"),
    ("choices", 0, "delta", "tool_calls", 0),
    ("choices", 0, "delta", "tool_calls", 0, "index"),
    ("choices", 0, "delta", "tool_calls", 0, "function"),
    ("choices", 0, "delta", "tool_calls", 0, "function", "arguments"),
    ("usage",),
    ("usage", "prompt_tokens"),
    ("error",),
)


def _completion(streamed: bool) -> dict[str, Any]:
    function = {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    call: dict[str, Any] = {"id": "call_1", "type": "function", "function": function}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice: dict[str, Any] = {"index": 0, "finish_reason": "tool_calls"}
    if streamed:
        choice["delta"] = {**message, "tool_calls": [{"index": 0, **call}]}
    else:
        choice["message"] = message
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    return {"id": "c", "object": "chat.completion", "choices": [choice], "usage": usage}


@st.composite
def _replaced(draw: st.DrawFn, streamed: bool) -> bytes:
    """A completion (or one stream chunk) with JSON of any kind in one of its slots."""
    body: Any = _completion(streamed)
    path = draw(st.sampled_from([p for p in _WIRE_SLOTS if ("delta" in p) == streamed]))
    holder = body
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = draw(json_values(8))
    text = json.dumps(body)
    return f"data: {text}\n\ndata: [DONE]\n\n".encode() if streamed else text.encode()


@cache
def _wire_bodies(streamed: bool) -> st.SearchStrategy[bytes]:
    seeds = [body.decode() for body in wire_seeds()]
    return st.one_of(
        _mutated(seeds).map(lambda s: s.encode("utf-8", "surrogatepass")),
        _replaced(streamed),
        _replaced(streamed),
        json_values().map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=200),
    )


# -- the targets ---------------------------------------------------------------------------


@dataclass
class Findings:
    """What one target's inputs did; `untyped` and `hangs` must stay 0."""

    inputs: int = 0
    typed: Counter[str] = field(default_factory=Counter)
    untyped: int = 0
    hangs: int = 0
    disagreements: int = 0
    oversized_feedback: int = 0
    longest_feedback: int = 0
    slowest_s: float = 0.0
    slowest: str = ""
    examples: list[str] = field(default_factory=list)

    def note(self, kind: str, case: Any, detail: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {detail} <- {_shown(case)}")


def _shown(value: Any) -> str:
    try:
        return ascii(value)[:300]
    except ValueError:  # an integer too long to print
        return f"<{type(value).__name__} holding a huge integer>"


def _feedback_checked(problem: Problem, findings: Findings) -> None:
    for content in (feedback_text(problem, sorted(tools())),):
        findings.longest_feedback = max(findings.longest_feedback, len(content))
        if len(content) > MAX_FEEDBACK_CHARS:
            findings.oversized_feedback += 1
            findings.note("oversized feedback", problem, f"{len(content)} characters")


def check_parse(case: tuple[str, str | None, bool], findings: Findings) -> None:
    content, reasoning, opened = case
    for fmt in (*FORMATS, "auto"):
        parse(content, fmt, schemas=schemas())
    parse_any(content)
    detect_format(content)
    split_reasoning(content, open=opened)
    parse_with_reasoning(content, reasoning, None, schemas=schemas())


def check_stream(case: tuple[str, str, list[int]], findings: Findings) -> None:
    content, fmt, cuts = case
    parser = StreamParser(fmt, schemas=schemas())
    splitter = ReasoningSplitter()
    pieces = [content[a:b] for a, b in zip([0, *cuts], [*cuts, len(content)], strict=True)]
    streamed_text: list[str] = []
    calls = []
    for piece in pieces:
        splitter.feed(piece)
        for event in parser.feed(piece):
            if isinstance(event, TextDelta):
                streamed_text.append(event.text)
            elif isinstance(event, CallFinished):
                calls.append((event.call.name, event.call.arguments))
    splitter.close()
    for event in parser.close():
        if isinstance(event, TextDelta):
            streamed_text.append(event.text)
        elif isinstance(event, CallFinished):
            calls.append((event.call.name, event.call.arguments))
    whole: ParseResult = parse(content, fmt, schemas=schemas())
    if [(c.name, c.arguments) for c in whole.calls] != calls or whole.text != "".join(
        streamed_text
    ):
        findings.disagreements += 1
        findings.note("stream/whole disagreement", case, fmt)


def check_repair(case: tuple[str, Any, str, str | None], findings: Findings) -> None:
    arguments, value, name, finish_reason = case
    schema = schemas()[name]
    repair_arguments(arguments, schema, finish_reason=finish_reason)
    close_truncated_json(arguments, finish_reason)
    unwrap_json_string(arguments)
    coerce_scalars(value, schema)


def check_validation(case: tuple[dict[str, Any], str | None], findings: Findings) -> None:
    message, finish_reason = case
    _validated(message, finish_reason, findings)


def _validated(message: dict[str, Any], finish_reason: str | None, findings: Findings) -> None:
    offered = tools()
    _, problems = check_answer(
        message, offered, schemas=schemas(), finish_reason=finish_reason, repairs=[]
    )
    for problem in problems:
        _feedback_checked(problem, findings)


class _WireClient:
    """A client whose scripted server sends, for every request, the body under test."""

    def __init__(self) -> None:
        self.body = b""
        self.model = ScriptedModel(lambda request: malformed(self.body))
        self.client = ToolCallClient(
            base_url=self.model.base_url,
            model="fuzz",
            tools=list(tools().values()),
            router="always",
            http_client=self.model.http_client(),
            retry=RetryPolicy(attempts=1),
            max_retries=0,
        )


@cache
def _wire_client() -> _WireClient:
    return _WireClient()


def check_wire(case: tuple[bytes, bool], findings: Findings) -> None:
    body, streamed = case
    wire = _wire_client()
    wire.body = body
    result = wire.client.call("fuzz", stream=streamed)
    for attempt in result.attempts:
        for problem in attempt.problems:
            _feedback_checked(problem, findings)


def check_feedback(case: tuple[Problem, str], findings: Findings) -> None:
    problem, name = case
    _feedback_checked(problem, findings)
    no_tool_call_text([name, *sorted(tools())])
    repeated_call_text(name, problem.raw_arguments or "{}", 2, problem.message)
    denied_text(name)


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any, Findings], None]
    typed: tuple[type[BaseException], ...] = ()


def targets() -> dict[str, Target]:
    names = st.sampled_from(sorted(tools()))
    finish = st.sampled_from([None, "stop", "length", "tool_calls"])
    cuts = st.lists(st.integers(0, 400), max_size=12).map(sorted)
    formats = st.sampled_from([*FORMATS, "auto"])

    @st.composite
    def stream_case(draw: st.DrawFn) -> tuple[str, str, list[int]]:
        content = draw(texts())
        points = [p for p in draw(cuts) if p <= len(content)]
        return content, draw(formats), points

    return {
        "parse": Target(
            "parse", st.tuples(texts(), st.none() | texts(), st.booleans()), check_parse
        ),
        "stream": Target("stream", stream_case(), check_stream),
        "repair": Target("repair", st.tuples(texts(), json_values(), names, finish), check_repair),
        "validation": Target(
            "validation", st.tuples(messages(), finish), check_validation, (ToolValidatorError,)
        ),
        "wire": Target(
            "wire",
            st.tuples(_wire_bodies(False), st.just(False))
            | st.tuples(_wire_bodies(True), st.just(True)),
            check_wire,
            (ToolCallError,),
        ),
        "feedback": Target(
            "feedback", st.tuples(_problems(), st.text(max_size=100)), check_feedback
        ),
    }


# -- the harness ---------------------------------------------------------------------------


class Hang(BaseException):
    """An input ran past the time limit (a BaseException: no target code catches it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` of CPU time (main thread, POSIX; a no-op
    elsewhere)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang

    previous = signal.signal(signal.SIGPROF, expire)
    # Then again every 0.1 s: an exception raised inside a garbage-collector callback or a
    # `__del__` is printed and dropped, and the input would run on unchecked.
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def fuzz(target: Target, inputs: int, *, seed: int = 0, limit: float = 2.0) -> Findings:
    """Feed `inputs` generated inputs to one target; count what happened."""
    findings = Findings()

    @settings(
        max_examples=inputs,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.seed(seed)
    @given(target.strategy)
    def run(case: Any) -> None:
        findings.inputs += 1
        started = time.process_time()
        hung = False
        try:
            with time_limit(limit):
                target.check(case, findings)
        except Hang:
            hung = True
        except target.typed as exc:
            findings.typed[type(exc).__name__] += 1
        except Exception as exc:
            findings.untyped += 1
            findings.note("untyped", case, f"{type(exc).__name__}: {exc}"[:300])
        elapsed = time.process_time() - started
        if elapsed > findings.slowest_s:
            findings.slowest_s, findings.slowest = elapsed, _shown(case)
        if hung or elapsed > limit:  # the second: a C call the timer could not interrupt
            findings.hangs += 1
            findings.note("hang", case, f"{elapsed:.1f} s")

    run()
    return findings


def render(results: Mapping[str, Findings], elapsed: float) -> str:
    lines = [
        "| target | inputs | typed errors | untyped | hangs | slowest | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, found in results.items():
        typed = ", ".join(f"{k} {v}" for k, v in sorted(found.typed.items())) or "-"
        notes = []
        if name == "stream":
            notes.append(f"{found.disagreements} stream/whole disagreements")
        if found.longest_feedback:
            notes.append(
                f"longest feedback {found.longest_feedback} chars "
                f"({found.oversized_feedback} over {MAX_FEEDBACK_CHARS})"
            )
        lines.append(
            f"| {name} | {found.inputs} | {typed} | {found.untyped} | {found.hangs} | "
            f"{found.slowest_s * 1000:.0f} ms | {'; '.join(notes)} |"
        )
    total = sum(f.inputs for f in results.values())
    lines.append(f"\n{total} inputs in {elapsed:.0f} s")
    for name, found in results.items():
        lines += [f"{name}: {example}" for example in found.examples]
        lines.append(f"{name}: slowest input ({found.slowest_s * 1000:.0f} ms): {found.slowest}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fuzz the parsers, repairs, validation, feedback")
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--targets", nargs="*", default=list(TARGETS), choices=TARGETS)
    args = parser.parse_args(argv)
    sys.set_int_max_str_digits(4300)  # Python's default: the limit the SDK must live with
    started = time.monotonic()
    results: dict[str, Findings] = {}
    for name, target in targets().items():
        if name not in args.targets:
            continue
        share = SHARES[name] / sum(SHARES[t] for t in args.targets)
        results[name] = fuzz(
            target, round(args.inputs * share), seed=args.seed, limit=args.time_limit
        )
        print(f"{name}: {results[name].inputs} inputs", file=sys.stderr, flush=True)
    print(render(results, time.monotonic() - started))
    broken = any(f.untyped or f.hangs or f.oversized_feedback for f in results.values())
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
