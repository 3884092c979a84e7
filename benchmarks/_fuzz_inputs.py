"""The inputs of `benchmarks/fuzz.py`: tools to validate against, real model output to
mutate, hostile pieces, and the hypothesis strategies built from them.

Strategies are built once (`functools.cache`): hypothesis validates a strategy each time it
is built, which costs more than drawing from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date
from functools import cache
from typing import Annotated, Any, Final, Literal

from hypothesis import strategies as st
from pydantic import BaseModel, Field, field_validator

from toolcall_sdk import ToolCallError, tool
from toolcall_sdk._results import FieldError, Problem
from toolcall_sdk._toolbox import as_tool
from toolcall_sdk._tools import Tool
from toolcall_sdk.testing import ScriptedModel, parallel, text, tool_call

PROBLEM_KINDS: Final = (
    "invalid_arguments",
    "unknown_tool",
    "invalid_json",
    "tool_retry",
    "not_executed",
    "no_tool_call",
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
def problems() -> st.SearchStrategy[Problem]:
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
def wire_bodies(streamed: bool) -> st.SearchStrategy[bytes]:
    seeds = [body.decode() for body in wire_seeds()]
    return st.one_of(
        _mutated(seeds).map(lambda s: s.encode("utf-8", "surrogatepass")),
        _replaced(streamed),
        _replaced(streamed),
        json_values().map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=200),
    )
