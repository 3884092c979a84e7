"""`toolcall_qwen25_coder`: the plugin parser for Qwen2.5-Coder's tagless calls, without vLLM.

Qwen2.5-Coder-Instruct under `tool_choice="auto"` writes its call as a fenced or bare JSON
object instead of `<tool_call>` tags (the texts below are as the 0.5B model writes them).
Whatever the split of an answer into deltas, the streamed content and calls assembled must
equal the whole answer's; the client's recovery from content must find the same calls.
(Where the server finds none, the client, which asks for a call, may read more: a call in a
sentence or in Python code, an invented tool's name for validation to report.)
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_sdk._recovery import recover_calls
from toolcall_sdk.vllm_plugin import FormatDeltas, Piece, extract, parser_name

from .test_vllm_plugin import assemble, ids

FORMAT = "qwen25_coder"
MODEL = "Qwen/Qwen2.5-Coder-0.5B-Instruct"
SCHEMAS: dict[str, dict[str, Any]] = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
    },
    "create_invoice": {
        "type": "object",
        "properties": {
            "customer_id": {"type": "string"},
            "amount_vnd": {"type": "integer"},
            "due_date": {"type": "string"},
        },
    },
    "get_time": {"type": "object", "properties": {}},
}
WEATHER = '{"name": "get_weather", "arguments": {"city": "Hanoi", "unit": "celsius"}}'
INVOICE = (
    '{"name": "create_invoice", "arguments": {"customer_id": "CUS-000042", '
    '"amount_vnd": 1500000, "due_date": "2030-12-31"}}'
)
TIME = '{"name": "get_time", "arguments": {}}'
WEATHER_ARGS = {"city": "Hanoi", "unit": "celsius"}
INVOICE_ARGS = {"customer_id": "CUS-000042", "amount_vnd": 1500000, "due_date": "2030-12-31"}
PRETTY = json.dumps(
    {"name": "get_weather", "arguments": {"city": "Hà Nội", "unit": "celsius"}},
    ensure_ascii=False,
    indent=2,
)

Expected = tuple[str | None, list[tuple[str, dict[str, Any]]]]

# Answers with calls: (text, (content, [(name, arguments)])).
CALLS: dict[str, tuple[str, Expected]] = {
    "fenced": (f"```json\n{WEATHER}\n```", (None, [("get_weather", WEATHER_ARGS)])),
    "bare": (INVOICE, (None, [("create_invoice", INVOICE_ARGS)])),
    "text-around": (
        f"Sure! Here is the call:\n```json\n{WEATHER}\n```\nLet me know.",
        ("Sure! Here is the call:\nLet me know.", [("get_weather", WEATHER_ARGS)]),
    ),
    "fence-without-language": (f"```\n{WEATHER}\n```", (None, [("get_weather", WEATHER_ARGS)])),
    "two-fences": (
        f"```json\n{WEATHER}\n```\n\n```json\n{INVOICE}\n```",
        (None, [("get_weather", WEATHER_ARGS), ("create_invoice", INVOICE_ARGS)]),
    ),
    "two-in-one-fence": (
        f"```json\n{WEATHER}\n{INVOICE}\n```",
        (None, [("get_weather", WEATHER_ARGS), ("create_invoice", INVOICE_ARGS)]),
    ),
    "two-bare-lines": (
        f"{WEATHER}\n{INVOICE}",
        (None, [("get_weather", WEATHER_ARGS), ("create_invoice", INVOICE_ARGS)]),
    ),
    "list": (
        f"[{WEATHER}, {INVOICE}]",
        (None, [("get_weather", WEATHER_ARGS), ("create_invoice", INVOICE_ARGS)]),
    ),
    "two-short-calls": (
        f"```json\n{TIME}\n```\nand\n{TIME}\n",
        ("and\n", [("get_time", {}), ("get_time", {})]),
    ),
    "parameters": (
        '{"name": "get_time", "parameters": {}}',
        (None, [("get_time", {})]),
    ),
    "after-a-line-of-text": (
        f"I will check the weather.\n{WEATHER}\nDone.",
        ("I will check the weather.\nDone.", [("get_weather", WEATHER_ARGS)]),
    ),
    "pretty-printed": (
        f"```json\n{PRETTY}\n```",
        (None, [("get_weather", {"city": "Hà Nội", "unit": "celsius"})]),
    ),
    "crlf": (
        f"Here:\r\n```json\r\n{WEATHER}\r\n```\r\nOK",
        ("Here:\r\nOK", [("get_weather", WEATHER_ARGS)]),
    ),
    "hermes-tags": (
        f"Checking.\n<tool_call>\n{WEATHER}\n</tool_call>",
        ("Checking.\n", [("get_weather", WEATHER_ARGS)]),
    ),
    "text-after-on-its-line": (
        f"{WEATHER} is the call I would make.",
        (" is the call I would make.", [("get_weather", WEATHER_ARGS)]),
    ),
    "offered-and-invented": (
        f'{WEATHER}\n{{"name": "say_hello", "arguments": {{}}}}',
        ('{"name": "say_hello", "arguments": {}}', [("get_weather", WEATHER_ARGS)]),
    ),
    "offered-and-invented-in-a-fence": (
        f'```json\n{WEATHER}\n{{"name": "Joke", "arguments": {{}}}}\n```\nOK',
        ('{"name": "Joke", "arguments": {}}\nOK', [("get_weather", WEATHER_ARGS)]),
    ),
}

# Answers that are text, byte for byte.
TEXTS = {
    "invented-tool": '{"name": "Joke", "arguments": {}}',
    "invented-tool-fenced": '```json\n{"name": "say_hello", "arguments": {"name": "Ann"}}\n```',
    "json-that-is-no-call": '{"a": 1}',
    "call-shaped-but-more-keys": '{"name": "get_time", "arguments": {}, "id": 7}',
    "json-fence-no-call": '```json\n{"city": "Hanoi"}\n```',
    "python-code": '```python\nprint("hi")\ncall = {"name": "get_time", "arguments": {}}\n```',
    "truncated-object": '{"name": "get_weather", "arguments": {"city": "Ha',
    "truncated-fence": '```json\n{"name": "get_weather", "arguments": {"city": "Ha',
    "call-inside-a-sentence": f"You could send {WEATHER} to the API.",
    "prose": "Why did the chicken cross the road?\nTo get to the other side!",
    "markdown": "[1] See the docs.\n[docs](https://example.com)\n- `code` and ``more``\n",
    "backticks-in-prose": "Wrap code in ``` fences, like ```this```.",
}


def stream(text: str, cuts: list[int], schemas: Any = SCHEMAS) -> list[Piece]:
    """Feed `text` cut at `cuts`, then close, and return every piece sent."""
    deltas = FormatDeltas(FORMAT, ids(), schemas=schemas)
    bounds = [0, *sorted(set(cuts)), len(text)]
    pieces = [deltas.feed(text[a:b]) for a, b in itertools.pairwise(bounds)]
    pieces.append(deltas.close())
    return [p for p in pieces if p is not None]


def whole(text: str) -> Expected:
    found = extract(text, ids(), format=FORMAT, schemas=SCHEMAS)
    return found.content, [(c.name, json.loads(c.arguments)) for c in found.calls]


def streamed(text: str, cuts: list[int]) -> Expected:
    content, calls = assemble(stream(text, cuts))
    return content if content.strip() else None, [(n, json.loads(a)) for _, n, a in calls]


def test_the_parser_name() -> None:
    assert parser_name(FORMAT) == parser_name(MODEL) == "toolcall_qwen25_coder"


@pytest.mark.parametrize(("text", "expected"), CALLS.values(), ids=CALLS)
def test_calls_the_model_writes_are_read(text: str, expected: Expected) -> None:
    assert whole(text) == expected
    assert streamed(text, list(range(1, len(text)))) == expected  # one character a delta


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS)
def test_what_is_no_call_of_an_offered_tool_stays_content_byte_for_byte(text: str) -> None:
    assert whole(text) == (text, [])
    assert streamed(text, list(range(1, len(text)))) == (text, [])


ANSWERS = {**{name: text for name, (text, _) in CALLS.items()}, **TEXTS}
# Every split in three costs the square of the length: the answers up to this long.
SHORT = {name: text for name, text in ANSWERS.items() if len(text) <= 125}


@pytest.mark.parametrize("text", ANSWERS.values(), ids=ANSWERS)
def test_every_split_in_two_gives_the_whole_answer(text: str) -> None:
    expected = whole(text)
    for cut in range(len(text) + 1):
        assert streamed(text, [cut]) == expected, cut


@pytest.mark.parametrize("text", SHORT.values(), ids=SHORT)
def test_every_split_in_three_gives_the_whole_answer(text: str) -> None:
    expected = whole(text)
    for a in range(len(text) + 1):
        for b in range(a, len(text) + 1):
            assert streamed(text, [a, b]) == expected, (a, b)


# Answers the text ends inside: what is held back at the end is sent only on close().
COMPLETE = {name: text for name, text in ANSWERS.items() if not name.startswith("truncated")}


@pytest.mark.parametrize("text", COMPLETE.values(), ids=COMPLETE)
def test_the_stream_needs_no_end_to_send_everything(text: str) -> None:
    # vLLM never tells a tool parser that the stream ended (no close()): every call and all
    # the text must have gone out with the deltas themselves.
    deltas = FormatDeltas(FORMAT, ids(), schemas=SCHEMAS)
    pieces = [p for p in (deltas.feed(c) for c in text) if p is not None]

    content, calls = assemble(pieces)
    assert (content if content.strip() else None) == whole(text)[0]
    assert [(n, json.loads(a)) for _, n, a in calls] == whole(text)[1]


def test_plain_text_streams_at_once() -> None:
    deltas = FormatDeltas(FORMAT, ids(), schemas=SCHEMAS)

    assert deltas.feed("Sure") == Piece("Sure", ())
    assert deltas.feed("! Here is the call:") == Piece("! Here is the call:", ())
    assert deltas.feed("\n") == Piece("\n", ())
    assert deltas.feed("``") is None  # may open a fence
    assert deltas.feed("`json\n") is None
    assert deltas.feed(WEATHER + "\n") is None
    piece = deltas.feed("```")  # the fence closed: its call goes out whole
    assert piece is not None
    assert piece.content is None
    assert [(c.index, c.id, c.name) for c in piece.calls] == [(0, "call-0", "get_weather")]
    assert json.loads(piece.calls[0].arguments or "") == WEATHER_ARGS
    assert deltas.feed("\nLet") == Piece("Let", ())  # the line break after it is markup
    assert deltas.feed(" me know.") == Piece(" me know.", ())


def test_a_line_opening_like_json_is_held_only_until_it_cannot_be_a_call() -> None:
    deltas = FormatDeltas(FORMAT, ids(), schemas=SCHEMAS)

    assert deltas.feed('{"') is None
    assert deltas.feed("a") is None  # may still be "arguments"
    assert deltas.feed('": 1}') == Piece('{"a": 1}', ())
    assert deltas.feed("\n[") is not None  # the line break goes out; "[" is held
    assert deltas.feed("1] x") == Piece("[1] x", ())


def test_a_code_fence_in_another_language_streams_as_it_arrives() -> None:
    deltas = FormatDeltas(FORMAT, ids(), schemas=SCHEMAS)

    assert deltas.feed("```py") is None
    assert deltas.feed("thon\n") == Piece("```python\n", ())
    assert deltas.feed('x = {"name": "get_time"}\n') == Piece('x = {"name": "get_time"}\n', ())
    assert deltas.feed("```") == Piece("```", ())


def test_without_tools_the_objects_are_text() -> None:
    text = f"```json\n{WEATHER}\n```\n{INVOICE}"

    assert extract(text, format=FORMAT).calls == []
    assert extract(text, format=FORMAT).content == text
    assert assemble(stream(text, list(range(1, len(text))), schemas=None)) == (text, [])


@pytest.mark.parametrize(("text", "expected"), CALLS.values(), ids=CALLS)
def test_the_client_recovers_the_same_calls_from_content(text: str, expected: Expected) -> None:
    # A server running vLLM's hermes parser leaves these answers in `content`. The reading
    # is compared with the intent rule off: the rule then keeps some of them from running
    # ("... is the call I would make."), which tests/unit/parsing/test_call_intent.py covers.
    recovered = recover_calls(
        {"role": "assistant", "content": text}, hint=MODEL, attempt=1, tools=SCHEMAS, judge=False
    )

    assert recovered is not None
    message, repairs = recovered
    content, calls = expected
    assert [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message["tool_calls"]
    ] == calls
    assert message["content"] == ((content or "").strip() or None)
    assert repairs == []  # the model's own format: nothing was repaired


NAMES = st.sampled_from([*SCHEMAS, "Joke"])
VALUES = st.one_of(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.text(st.characters(codec="utf-8"), max_size=8),
    st.sampled_from(["```", "<tool_call>", "{", "}\n", '"', "\n"]),
)
ARGS = st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), VALUES, max_size=3)
# Text between the calls: words, and pieces of fences, tags and JSON.
TEXT = st.lists(
    st.sampled_from(["Sure", " ", "\n", "x", "é", "`", "```", "```json\n", "{", "[", "<", '"']),
    max_size=6,
).map("".join)


@st.composite
def answers(draw: st.DrawFn) -> str:
    parts = [draw(TEXT)]
    for _ in range(draw(st.integers(0, 3))):
        body = json.dumps(
            {"name": draw(NAMES), draw(st.sampled_from(["arguments", "parameters"])): draw(ARGS)},
            ensure_ascii=draw(st.booleans()),
            indent=draw(st.sampled_from([None, 2])),
        )
        form = draw(st.sampled_from(["bare", "fence", "plain-fence", "tag", "list"]))
        if form == "fence":
            body = f"```json\n{body}\n```"
        elif form == "plain-fence":
            body = f"```\n{body}\n```"
        elif form == "tag":
            body = f"<tool_call>\n{body}\n</tool_call>"
        elif form == "list":
            body = f"[{body}]"
        parts += ["\n", body, draw(st.sampled_from(["", "\n", "\r\n", " "])), draw(TEXT)]
    return "".join(parts)


@given(text=answers(), data=st.data())
def test_any_split_of_any_answer_gives_the_whole_answer(text: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))

    assert streamed(text, cuts) == whole(text)
