"""What small models write outside the formats: the `xlam` format and `parse_any(tools=...)`."""

from __future__ import annotations

import pytest

from toolcall_sdk.parsing import (
    ParsedCall,
    ParseResult,
    StreamParser,
    parse,
    parse_any,
    parse_with_reasoning,
)
from toolcall_sdk.parsing.repair import resolve_tool_name

TOOLS = ("math_hypot", "math_factorial", "get_weather")


def read(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.name, c.arguments, c.repairs) for c in parse_any(text, tools=TOOLS).calls]


# xLAM ---------------------------------------------------------------------------------------


def test_xlam_reads_the_envelope_the_list_and_openai_shapes() -> None:
    envelope = '{"thought": "x", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]}\nDone.'
    result = parse(envelope, "xlam")
    assert result.calls == [ParsedCall("f", '{"a":1}', '{"name": "f", "arguments": {"a": 1}}')]
    assert result.text == "\nDone."
    listed = '[{"name": "f", "parameters": {}}, {"id": "1", "type": "function", "function": '
    listed += '{"name": "g", "arguments": "{\\"b\\": 2}"}}]'
    calls = parse(listed, "xlam").calls
    assert [(c.name, c.arguments) for c in calls] == [("f", "{}"), ("g", '"{\\"b\\": 2}"')]
    assert calls[1].raw.startswith('{"id"')


def test_xlam_reads_values_separated_by_semicolons() -> None:
    text = '{"name": "f", "arguments": {}}; [{"name": "g", "arguments": {}}] ;\nok'
    result = parse(text, "xlam")
    assert [c.name for c in result.calls] == ["f", "g"]
    assert result.text == " ;\nok"


@pytest.mark.parametrize(
    "text",
    [
        '[{"name": "Alice", "age": 30}]',  # ordinary JSON
        '{"name": "f", "arguments": {}, "extra": 1}',
        '{"tool_calls": []}',
        '{"tool_calls": [{"name": "f", "arguments": {}}], "answer": "no"}',
        '[{"name": "f", "arguments": {}}, 3]',
        'Sure: [{"name": "f", "arguments": {}}]',  # not at the start
    ],
)
def test_xlam_other_values_are_text(text: str) -> None:
    assert parse(text, "xlam") == ParseResult([], text, None)


def test_xlam_calls_cut_off_are_dropped() -> None:
    result = parse('[{"name": "f", "arguments": {"a": "rm -rf /tmp/bu', "xlam")
    assert result.calls == []
    assert result.text == ""
    # An opening that is not yet a call reads as text.
    assert parse('{"city": "Par', "xlam").text == '{"city": "Par'


def test_xlam_streams_each_call_when_its_value_closes() -> None:
    parser = StreamParser("Salesforce/Llama-xLAM-2-8b-fc-r")
    text = '[{"name": "f", "arguments": {"a": 1}}]'
    events = [event for c in text for event in parser.feed(c)] + parser.close()
    assert [type(e).__name__ for e in events] == [
        "ParsedCallStarted",
        "ArgumentsDelta",
        "ParsedCallFinished",
    ]


# Tool names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "offered", "expected"),
    [
        ("math_hypot", ["math_hypot"], "math_hypot"),
        ("math.hypot", ["math_hypot", "math_factorial"], "math_hypot"),
        ("math_hypot", ["math.hypot"], "math.hypot"),
        ("get-weather", ["get_weather"], "get_weather"),
        ("math.hypot", ["math_hypot", "math-hypot"], None),  # which one is unknown
        ("math.sqrt", ["math_hypot"], None),
        ("mathhypot", ["math_hypot"], None),
        ("Math.Hypot", ["math_hypot"], None),
    ],
)
def test_resolve_tool_name(name: str, offered: list[str], expected: str | None) -> None:
    assert resolve_tool_name(name, offered) == expected


# parse_any(tools=...) -----------------------------------------------------------------------


def test_forms_outside_the_formats_are_read_only_with_the_tool_names() -> None:
    text = 'math_hypot\n{"x": 4, "y": 5}'
    assert parse_any(text).calls == []
    assert read(text) == [("math_hypot", '{"x":4,"y":5}', ("name_line",))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("math.hypot(x=4, y=5)", [("math.hypot", '{"x":4,"y":5}', ("bare_call",))]),
        (
            "math_hypot(x=1, y=2); math_factorial(number=3)\n",
            [
                ("math_hypot", '{"x":1,"y":2}', ("bare_call",)),
                ("math_factorial", '{"number":3}', ("bare_call",)),
            ],
        ),
        (
            "get_weather(\n    city='Hà Nội',  # the capital\n)",
            [("get_weather", '{"city":"Hà Nội"}', ("bare_call",))],
        ),
        (
            "math.factorial\n{'number': 5}",
            [("math.factorial", '{"number":5}', ("python_literal", "name_line"))],
        ),
        (
            "<tool_call>{'name': 'x', 'arguments': {'function': 'x^3'}}</tool_call>",
            [("x", '{"function":"x^3"}', ("python_literal",))],
        ),
        (
            "<tool_call>[{'name': 'f', 'arguments': {'t': (1, 2)}}]",  # closing tag cut off
            [("f", '{"t":[1,2]}', ("python_literal",))],
        ),
        (
            "```py\nget_weather(city='Oslo')\n```\n```json\n"
            '{"name": "get_weather", "arguments": {"city": "Bergen"}}\n```',
            [
                ("get_weather", '{"city":"Oslo"}', ("fenced_code", "bare_call")),
                ("get_weather", '{"city":"Bergen"}', ("fenced_code",)),
            ],
        ),
        (
            "Calls:\n{'tool_calls': [{'name': 'get_weather', 'arguments': {'city': 'Rome'}}]}",
            [("get_weather", '{"city":"Rome"}', ("python_literal",))],
        ),
        (
            'Calls:\n{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]}',
            [("get_weather", '{"city":"Rome"}', ("call_in_text",))],
        ),
        (
            "Calls:\n[math_factorial(number=3)]",
            [("math_factorial", '{"number":3}', ("call_in_text",))],
        ),
    ],
    ids=[
        "bare",
        "bare-semicolon",
        "bare-multiline",
        "name-line-literal",
        "hermes-literal",
        "hermes-literal-list-open",
        "two-fences",
        "literal-envelope-in-text",
        "json-envelope-in-text",
        "pythonic-list-in-text",
    ],
)
def test_offered_forms(text: str, expected: list[tuple[str, str, tuple[str, ...]]]) -> None:
    assert read(text) == expected


def test_text_around_lines_of_calls_is_kept() -> None:
    result = parse_any("Let me compute.\nmath_factorial(number=3)\nDone.", tools=TOOLS)
    assert result.text == "Let me compute.\nDone."
    assert result.format == "pythonic"


@pytest.mark.parametrize(
    "text",
    [
        "Use math_hypot(x=4, y=5) for that.",  # inside a sentence
        "math_hypot(x=4, y=5) gives the answer.",  # the line goes on
        "foo(x=1)",  # not offered
        "math.sqrt(x=1)",
        'foo\n{"x": 1}',
        'math_hypot {"x": 1}',  # the JSON must start on the next line
        "math_hypot(4, 5)",
        "math_hypot(x=y)",
        "math_hypot(x=4, y=5",  # cut off
        "- math_hypot(x=4, y=5)",
        "```\nmath_hypot(x=__import__('os').system('true'))\n```",
        "<tool_call>{'name': 'f', 'arguments': {'a': open('/etc/passwd').read()}}</tool_call>",
        "<tool_call>{'name': 'f', 'arguments': {'a': {1, 2}}}</tool_call>",  # a set: no JSON
        "<tool_call>{'name': 'f', 'arguments': {}} trailing</tool_call>",
        "[{'name': 'foo', 'arguments': {}}]",  # a literal value of a tool not offered
        "Calls:\n[foo(x=1)]",
    ],
)
def test_what_is_no_call(text: str) -> None:
    assert read(text) == []


def test_drafts_in_reasoning_are_not_read_by_the_names() -> None:
    draft = "<think>\nmath_hypot(x=4, y=5)\n</think>\nI cannot help."
    assert parse_with_reasoning(draft, tools=TOOLS).calls == []
    # A format's markup inside the block is read there, as before.
    tagged = '<think><tool_call>{"name": "f", "arguments": {}}</tool_call></think>'
    assert [c.name for c in parse_with_reasoning(tagged, tools=TOOLS).calls] == ["f"]


def test_a_format_found_outside_fences_wins() -> None:
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>\n```\nmath_hypot(x=1, y=2)\n```'
    assert read(text) == [("f", "{}", ())]
