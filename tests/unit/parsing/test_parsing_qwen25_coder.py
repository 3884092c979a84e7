"""The `qwen25_coder` format: call objects Qwen2.5-Coder writes without tags, for offered tools.

The texts are as Qwen2.5-Coder-0.5B-Instruct writes them under `tool_choice="auto"`. The
tools offered are the keys of `schemas`; everything else stays text, character for
character. Property tests: any split of a stream reads as the whole text.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_sdk.parsing import (
    ArgumentsDelta,
    ParsedCall,
    ParsedCallFinished,
    ParsedCallStarted,
    ParseResult,
    StreamEvent,
    StreamParser,
    TextDelta,
    format_for,
    parse,
    parse_any,
)
from toolcall_sdk.parsing.repair import PYTHON_LITERAL

FORMAT = "qwen25_coder"
SCHEMAS: dict[str, Any] = {"get_weather": {}, "create_invoice": {}, "get_time": {}}
WEATHER = '{"name": "get_weather", "arguments": {"city": "Hanoi", "unit": "celsius"}}'
INVOICE = (
    '{"name": "create_invoice", "arguments": {"customer_id": "CUS-000042", '
    '"amount_vnd": 1500000, "due_date": "2030-12-31"}}'
)
WEATHER_CALL = ParsedCall("get_weather", '{"city":"Hanoi","unit":"celsius"}', WEATHER)
INVOICE_CALL = ParsedCall(
    "create_invoice",
    '{"customer_id":"CUS-000042","amount_vnd":1500000,"due_date":"2030-12-31"}',
    INVOICE,
)
SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)


def read(text: str, schemas: Any = SCHEMAS) -> ParseResult:
    return parse(text, FORMAT, schemas=schemas)


def events_of(text: str, pieces: list[str], schemas: Any = SCHEMAS) -> list[StreamEvent]:
    parser = StreamParser(FORMAT, schemas=schemas)
    events: list[StreamEvent] = []
    for piece in pieces:
        events += parser.feed(piece)
    events += parser.close()
    assert parser.result() == read(text, schemas)
    return events


def assert_streams_like_it_parses(text: str, pieces: list[str], schemas: Any = SCHEMAS) -> None:
    expected = read(text, schemas)
    events = events_of(text, pieces, schemas)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == expected.text
    assert all(e.text for e in events if isinstance(e, TextDelta))
    assert [e.call for e in events if isinstance(e, ParsedCallFinished)] == expected.calls
    started = [e.index for e in events if isinstance(e, ParsedCallStarted)]
    assert started == list(range(len(expected.calls)))
    for index, call in enumerate(expected.calls):  # each call's preview is its arguments
        preview = [e.text for e in events if isinstance(e, ArgumentsDelta) and e.index == index]
        assert "".join(preview) == call.arguments


# What the model writes -----------------------------------------------------------------------


def test_a_fenced_call() -> None:
    result = read(f"```json\n{WEATHER}\n```")

    assert result == ParseResult([WEATHER_CALL], "", FORMAT)


def test_a_bare_call() -> None:
    assert read(INVOICE) == ParseResult([INVOICE_CALL], "", FORMAT)


def test_text_around_a_fenced_call_is_kept() -> None:
    result = read(f"Sure! Here is the call:\n```json\n{WEATHER}\n```\nLet me know.")

    assert result.calls == [WEATHER_CALL]
    # The fence, and the line break that ends its line, are markup.
    assert result.text == "Sure! Here is the call:\nLet me know."


@pytest.mark.parametrize(
    "text",
    [
        f"{WEATHER}\n{INVOICE}",
        f"{WEATHER}\n\n{INVOICE}\n",
        f"```json\n{WEATHER}\n{INVOICE}\n```",
        f"```json\n{WEATHER}\n```\n```\n{INVOICE}\n```",
        f"[{WEATHER}, {INVOICE}]",
        f'{{"tool_calls": [{WEATHER}, {INVOICE}]}}',
    ],
)
def test_two_calls(text: str) -> None:
    result = read(text)

    assert [(c.name, c.arguments) for c in result.calls] == [
        (WEATHER_CALL.name, WEATHER_CALL.arguments),
        (INVOICE_CALL.name, INVOICE_CALL.arguments),
    ]
    assert result.text.strip() == ""
    assert all(c.repairs == () for c in result.calls)


def test_parameters_reads_like_arguments() -> None:
    result = read('{"name": "get_time", "parameters": {"tz": "Asia/Ho_Chi_Minh"}}')

    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_time", '{"tz":"Asia/Ho_Chi_Minh"}')
    ]


def test_a_python_dict_is_read_and_marked_as_repaired() -> None:
    result = read("```json\n{'name': 'get_time', 'arguments': {'utc': True}}\n```")

    assert [(c.name, c.arguments, c.repairs) for c in result.calls] == [
        ("get_time", '{"utc":true}', (PYTHON_LITERAL,))
    ]


def test_hermes_tags_are_still_read_for_any_name() -> None:
    text = 'Checking. <tool_call>{"name": "lookup", "arguments": {"q": "x"}}</tool_call> ok'

    assert read(text) == read(text, schemas=None)
    result = read(text)
    assert [(c.name, c.arguments) for c in result.calls] == [("lookup", '{"q":"x"}')]
    assert result.text == "Checking.  ok"


def test_a_call_is_decided_as_it_closes_and_text_after_it_stays() -> None:
    result = read(f"{WEATHER} is the call.\nBye")

    assert result.calls == [WEATHER_CALL]
    assert result.text == " is the call.\nBye"


def test_a_tagged_call_ends_where_its_json_closes() -> None:
    text = f"<tool_call>\n{WEATHER}\n</tool_call>\nok"

    result = read(text)

    tagged = ParsedCall(WEATHER_CALL.name, WEATHER_CALL.arguments, f"<tool_call>\n{WEATHER}")
    assert result == ParseResult([tagged], "\nok", FORMAT)
    assert read(f"<tool_call>\n{WEATHER}\n</tool_") == ParseResult([tagged], "", FORMAT)
    assert read(f"<tool_call>\n{WEATHER} and more") == ParseResult([tagged], " and more", FORMAT)


def test_a_dotted_name_for_an_offered_tool_is_read_as_written() -> None:
    result = read('{"name": "get.weather", "arguments": {}}')

    assert [c.name for c in result.calls] == ["get.weather"]  # validation renames it


# What stays text -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Joke", "arguments": {}}',
        '{"name": "say_hello", "arguments": {"name": "Ann"}}',
        '```json\n{"name": "Joke", "arguments": {}}\n```',
        '[{"name": "get_time", "arguments": {}}, {"name": "Joke", "arguments": {}}]',
        '{"a": 1}',
        '{"name": "get_time"}',
        '{"name": "get_time", "arguments": {}, "id": 1}',
        '```json\n{"city": "Hanoi"}\n```',
        '```python\nprint("hi")\n```',
        f"```python\n{WEATHER}\n```",
        '{"name": "get_weather", "arguments": {"city": "Ha',
        '```json\n{"name": "get_weather", "arguments": {"city": "Ha',
        f"Call {WEATHER} now.",
        f"> {WEATHER}",
        "[1] A footnote.\n{ braces } and [brackets]",
        "Use ``` to open a fence, ```inline``` too.",
        "",
        "\n\n",
    ],
)
def test_what_is_no_call_of_an_offered_tool_stays_text(text: str) -> None:
    assert read(text) == ParseResult([], text, None)
    assert_streams_like_it_parses(text, list(text))


def test_without_offered_tools_only_tags_count() -> None:
    text = f"```json\n{WEATHER}\n```\n{INVOICE}"

    assert read(text, schemas=None) == ParseResult([], text, None)
    assert read(text, schemas={}) == ParseResult([], text, None)


def test_a_fence_keeps_what_else_it_holds() -> None:
    text = f'```json\n{WEATHER}\n{{"name": "Joke", "arguments": {{}}}}\n```\nOK'

    result = read(text)

    assert result.calls == [WEATHER_CALL]
    assert result.text == '{"name": "Joke", "arguments": {}}\nOK'


def test_a_fence_the_text_ends_inside_holds_the_calls_it_completed() -> None:
    assert read(f"```json\n{WEATHER}\n").calls == [WEATHER_CALL]


# Streaming ---------------------------------------------------------------------------------


def test_each_call_arrives_whole_when_its_block_closes() -> None:
    text = f"Sure:\n```json\n{WEATHER}\n```\nbye"

    events = events_of(text, list(text))

    assert events[0] == TextDelta("S")
    calls = [e for e in events if not isinstance(e, TextDelta)]
    assert calls == [
        ParsedCallStarted(0, "get_weather"),
        ArgumentsDelta(0, WEATHER_CALL.arguments),
        ParsedCallFinished(0, WEATHER_CALL),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Sure:\nbye"


def test_plain_text_is_held_only_where_a_call_may_open() -> None:
    parser = StreamParser(FORMAT, schemas=SCHEMAS)

    assert parser.feed("Hello there") == [TextDelta("Hello there")]
    assert parser.feed(", `x` <b>") == [TextDelta(", `x` <b>")]
    assert parser.feed("\n  {") == [TextDelta("\n"), TextDelta("  ")]
    assert parser.feed('"name"') == []
    assert parser.feed(": 1") == []  # may still be a call, until it closes
    assert parser.feed("} no") == [TextDelta('{"name": 1}'), TextDelta(" no")]
    assert parser.feed("\n{") == [TextDelta("\n")]
    assert parser.feed("x") == [TextDelta("{x")]


def test_a_call_the_answer_ends_with_is_sent_before_the_end_is_known() -> None:
    # vLLM never tells a tool parser that the stream ended: nothing may wait for it.
    for text in (WEATHER, f"```json\n{WEATHER}\n```", f"<tool_call>\n{WEATHER}"):
        parser = StreamParser(FORMAT, schemas=SCHEMAS)
        events = [e for piece in text for e in parser.feed(piece)]
        assert [e.call for e in events if isinstance(e, ParsedCallFinished)] == read(text).calls, (
            text
        )


def test_a_long_answer_streams_like_it_parses() -> None:
    # Past the size at which the engine drops consumed text and shifts its indexes.
    prose = "A line of ordinary text, with `code` in it.\n" * 150
    code = "```python\n" + "x = {'a': [1, 2]}\n" * 100 + "```\n"
    text = f"{prose}{code}```json\n{WEATHER}\n```\n{prose}{INVOICE}\n{prose}"
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]

    assert [c.name for c in read(text).calls] == ["get_weather", "create_invoice"]
    assert_streams_like_it_parses(text, pieces)


# Names and recovery -----------------------------------------------------------------------------


def test_model_ids_name_the_format() -> None:
    for model in (
        "Qwen/Qwen2.5-Coder-0.5B-Instruct",
        "Qwen2.5-Coder-1.5B-Instruct",
        "qwen2.5-coder-7b-instruct",
        "qwen2.5-coder",
        "toolcall_qwen25_coder",
        FORMAT,
    ):
        assert format_for(model) == FORMAT, model
    assert format_for("Qwen/Qwen2.5-7B-Instruct") == "hermes"
    assert format_for("Qwen/Qwen3-Coder-30B-A3B-Instruct") == "qwen3_xml"


def test_parse_any_reads_it_first_for_its_models_only() -> None:
    text = f"Here:\n```json\n{WEATHER}\n```"

    mine = parse_any(text, "Qwen/Qwen2.5-Coder-0.5B-Instruct", schemas=SCHEMAS, tools=SCHEMAS)
    other = parse_any(text, "Qwen/Qwen2.5-7B-Instruct", schemas=SCHEMAS, tools=SCHEMAS)

    assert mine == ParseResult([WEATHER_CALL], "Here:\n", FORMAT)
    assert other.format != FORMAT  # read as a repair, as for any model
    assert [(c.name, c.arguments) for c in other.calls] == [("get_weather", WEATHER_CALL.arguments)]


# Properties ------------------------------------------------------------------------------------

NAMES = st.sampled_from(sorted(SCHEMAS))
STRINGS = st.text(max_size=6) | st.sampled_from(["```", "<tool_call>", "</tool_call>", "\n", "{"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | STRINGS,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(STRINGS, inner, max_size=2),
    max_leaves=4,
)
ARGUMENTS = st.dictionaries(STRINGS, VALUES, max_size=3)
# Text between the calls: nothing that can open a call, a fence or a tag.
PROSE = st.lists(st.sampled_from([*"abc xyz.,!?:é\t\n", "Sure", "Let me know"]), max_size=8).map(
    "".join
)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@st.composite
def documents(draw: st.DrawFn) -> tuple[list[ParsedCall], str, str]:
    """Calls to offered tools in every form, text between them: (calls, text, text left)."""
    texts = [draw(PROSE)]
    around = [texts[0]]
    parts = [texts[0]]
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        name, arguments = draw(NAMES), draw(ARGUMENTS)
        key = draw(st.sampled_from(["arguments", "parameters"]))
        indent = draw(st.sampled_from([None, 2]))
        source = json.dumps({"name": name, key: arguments}, ensure_ascii=False, indent=indent)
        form = draw(st.sampled_from(["bare", "json fence", "fence", "list", "tag"]))
        if "fence" in form and "```" in source:
            form = "bare"  # a fence closes at the first ``` it meets
        block = {
            "bare": source,
            "json fence": f"```json\n{source}\n```",
            "fence": f"```\n{source}\n```",
            "list": f"[{source}]",
            "tag": f"<tool_call>\n{source}\n</tool_call>",
        }[form]
        raw = f"<tool_call>\n{source}" if form == "tag" else source  # the call ends with its JSON
        calls.append(ParsedCall(name, compact(arguments), raw))
        after = draw(PROSE)
        parts += ["\n", block, "\n", after]
        # After a block that opened its line, the line break that ends the line is markup.
        around += ["\n", "\n" if form == "tag" else "", after]
    return calls, "".join(parts), "".join(around)


@st.composite
def splits(draw: st.DrawFn, text: str) -> list[str]:
    if draw(st.booleans()):
        return list(text)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=10))))
    return [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]


@SETTINGS
@given(data=st.data())
def test_rendered_calls_are_found_exactly_in_any_split(data: st.DataObject) -> None:
    calls, text, around = data.draw(documents())

    result = read(text)

    assert result == ParseResult(calls, around, FORMAT if calls else None)
    assert_streams_like_it_parses(text, data.draw(splits(text)))


SOUP = [
    '{"name": "get_time", ',
    '{"name": "Joke", ',
    '"arguments": ',
    '"parameters": ',
    '{"a": 1}',
    "{}",
    "}",
    "{",
    "[",
    "]",
    '[{"name": "get_time", "arguments": {}}]',
    "{'name': 'get_time', 'arguments': {}}",
    "```",
    "```json\n",
    "```python\n",
    "``",
    "`",
    "<tool_call>",
    "</tool_call>",
    "<tool",
    '"',
    "'",
    "\\",
    ",",
    ":",
    "\n",
    "\r",
    " ",
    "x",
    "#",
]
soup = st.lists(st.sampled_from(SOUP) | st.text(max_size=2), max_size=30).map("".join)


@SETTINGS
@given(data=st.data())
def test_any_text_streams_like_it_parses(data: st.DataObject) -> None:
    text = data.draw(soup)

    assert_streams_like_it_parses(text, data.draw(splits(text)))
