"""StreamParser: split tags are held back exactly as long as they can still become a tag."""

from __future__ import annotations

import json

import pytest

from toolcall_sdk.parsing import (
    ArgumentsDelta,
    ParsedCall,
    ParsedCallFinished,
    ParsedCallStarted,
    StreamEvent,
    StreamParser,
    TextDelta,
    parse,
)


def texts(events: list[StreamEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextDelta)]


def test_a_tag_split_into_ordinary_tokens_is_held_then_parsed() -> None:
    parser = StreamParser("hermes")
    assert parser.feed("Hi ") == [TextDelta("Hi ")]
    assert parser.feed("<") == []
    assert parser.feed("tool") == []
    assert parser.feed("_call") == []
    assert parser.feed(">") == []
    events = parser.feed('{"name": "f", "arguments": {"a": 1}}')
    assert events[0] == ParsedCallStarted(0, "f")
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == '{"a": 1}'
    assert parser.feed("</") == []
    assert parser.feed("tool_call") == []
    (finished,) = parser.feed(">")
    assert finished == ParsedCallFinished(
        0,
        ParsedCall("f", '{"a":1}', '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'),
    )
    assert parser.feed(" bye") == [TextDelta(" bye")]
    assert parser.close() == []


def test_pending_text_is_released_the_moment_it_cannot_be_a_tag() -> None:
    parser = StreamParser("hermes")
    assert parser.feed("a <tool") == [TextDelta("a ")]
    assert parser.feed("s>") == [TextDelta("<tools>")]
    assert parser.feed("x<") == [TextDelta("x")]
    assert parser.feed("<") == [TextDelta("<")]  # the first "<" can no longer start a tag
    assert parser.close() == [TextDelta("<")]


def test_close_releases_a_partial_tag_as_text() -> None:
    parser = StreamParser("mistral")
    assert parser.feed("done [TOOL_CAL") == [TextDelta("done ")]
    assert parser.close() == [TextDelta("[TOOL_CAL")]


def test_close_finishes_a_call_whose_end_tag_never_came() -> None:
    parser = StreamParser("hermes")
    parser.feed('<tool_call>{"name": "f", "arguments": {}}</tool')
    events = parser.close()
    assert isinstance(events[-1], ParsedCallFinished)
    assert events[-1].call.arguments == "{}"


def test_function_tag_split_for_qwen3() -> None:
    parser = StreamParser("qwen3_coder")  # vLLM's parser name works too
    events: list[StreamEvent] = []
    for piece in [
        "<func",
        "tion=",
        "get_",
        "time>",
        "<parameter=tz>",
        "UTC",
        "</parameter>",
        "</fun",
        "ction>",
    ]:
        events += parser.feed(piece)
    events += parser.close()
    assert [type(e).__name__ for e in events] == [
        "ParsedCallStarted",
        "ArgumentsDelta",
        "ArgumentsDelta",
        "ParsedCallFinished",
    ]
    assert events[0] == ParsedCallStarted(0, "get_time")
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == '{"tz":"UTC"}'


def test_llama3_opening_brace_is_held_until_it_cannot_be_a_call() -> None:
    parser = StreamParser("llama3_json")
    assert parser.feed("{") == []
    assert parser.feed('"na') == []
    assert parser.feed('me": "x", "age"') == [TextDelta('{"name": "x", "age"')]


def test_pythonic_calls_arrive_when_the_list_closes() -> None:
    parser = StreamParser("pythonic")
    assert parser.feed("[get_weather(city=") == []
    assert parser.feed('"Hà Nội"') == []
    events = parser.feed(")]")
    assert events == [
        ParsedCallStarted(0, "get_weather"),
        ArgumentsDelta(0, '{"city":"Hà Nội"}'),
        ParsedCallFinished(
            0, ParsedCall("get_weather", '{"city":"Hà Nội"}', 'get_weather(city="Hà Nội")')
        ),
    ]


def test_mistral_name_form_streams_arguments() -> None:
    parser = StreamParser("mistral")
    events: list[StreamEvent] = []
    for piece in ["[TOOL", "_CALLS]get", "_weather", '{"city"', ': "Hue"}', " ok"]:
        events += parser.feed(piece)
    events += parser.close()
    assert events[0] == ParsedCallStarted(0, "get_weather")
    preview = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
    assert json.loads(preview) == {"city": "Hue"}
    assert texts(events) == [" ok"]


def test_auto_detects_the_format_from_the_first_tag() -> None:
    parser = StreamParser()  # "auto"
    assert parser.format is None
    events = parser.feed("Let me see. [TOOL_")
    assert parser.format is None
    events += parser.feed('CALLS][{"name": "f", "arguments": {}}] ok')
    events += parser.close()
    assert parser.format == "mistral"
    assert texts(events) == ["Let me see. ", " ok"]
    assert parser.result().calls == [ParsedCall("f", "{}", '{"name": "f", "arguments": {}}')]


def test_auto_tells_hermes_from_qwen3_by_what_follows_tool_call() -> None:
    hermes_text = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    qwen_text = "<tool_call>\n<function=f>\n</function>\n</tool_call>"
    for text, fmt in ((hermes_text, "hermes"), (qwen_text, "qwen3_xml")):
        parser = StreamParser("auto")
        for ch in text:
            parser.feed(ch)
        parser.close()
        assert parser.format == fmt
        assert parser.result() == parse(text, fmt)


def test_result_after_close_equals_parse() -> None:
    text = 'x <tool_call>{"name": "f", "arguments": {"a": [1]}}</tool_call> y'
    parser = StreamParser("hermes")
    for ch in text:
        parser.feed(ch)
    parser.close()
    assert parser.result() == parse(text, "hermes")


def test_feed_after_close_is_an_error() -> None:
    parser = StreamParser("hermes")
    parser.close()
    with pytest.raises(RuntimeError, match="after close"):
        parser.feed("x")


def test_unknown_format_names_the_choices() -> None:
    with pytest.raises(ValueError, match="hermes, llama3_json, mistral, pythonic, qwen3_xml"):
        StreamParser("nonsense")


LONG = {
    "hermes": '<tool_call>{"name": "f", "arguments": {"a": [1, "x"]}}</tool_call>',
    "llama3_json": '<|python_tag|>{"name": "f", "parameters": {"a": [1, "x"]}}',
    "mistral": '[TOOL_CALLS]f{"a": [1, "x"]}',
    "pythonic": '<|python_start|>[f(a=[1, "x"])]<|python_end|>',
    "qwen3_xml": '<tool_call><function=f><parameter=a>[1, "x"]</parameter></function></tool_call>',
}


@pytest.mark.parametrize(("fmt", "call"), LONG.items())
def test_long_streams_match_parse(fmt: str, call: str) -> None:
    # Long enough for the parser to drop consumed text from its buffer several times,
    # including while a call is open (the second call's arguments are long too).
    big = call.replace("1,", "1, " + ", ".join(["2"] * 3000) + ",")
    for pad in (4090, 4096, 4101, 8200):
        prose = ("words and <more> [words] " * 400)[:pad]
        text = prose + call + prose + big + prose + call
        expected = parse(text, fmt)
        assert len(expected.calls) == 3
        for size in (5, 4097):
            parser = StreamParser(fmt)
            events: list[StreamEvent] = []
            for start in range(0, len(text), size):
                events += parser.feed(text[start : start + size])
            events += parser.close()
            assert parser.result() == expected
            assert "".join(texts(events)) == expected.text
