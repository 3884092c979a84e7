"""The formats of DeepSeek, GLM, Kimi, gpt-oss (Harmony) and Gemma 4: `parse` and a stream.

Each case is checked whole and streamed one character at a time (a tag cut at every
character); the conformance corpus (test_parsing_conformance.py) covers many more.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from toolcall_sdk.parsing import (
    ParsedCallFinished,
    ParseResult,
    ReasoningDelta,
    StreamParser,
    TextDelta,
    parse,
)


def read(
    text: str, fmt: str, schemas: Mapping[str, Mapping[str, Any]] | None = None
) -> ParseResult:
    """`parse`, after checking that a stream cut at every character reads the same."""
    whole = parse(text, fmt, schemas=schemas)
    parser = StreamParser(fmt, schemas=schemas)
    events = [e for c in text for e in parser.feed(c)] + parser.close()
    assert parser.result() == whole
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == whole.text
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == whole.reasoning
    assert [e.call for e in events if isinstance(e, ParsedCallFinished)] == whole.calls
    return whole


def calls(result: ParseResult) -> list[tuple[str, object]]:
    return [(c.name, json.loads(c.arguments)) for c in result.calls]


# GLM ---------------------------------------------------------------------------------------

SET_TIMER = {
    "set_timer": {"properties": {"seconds": {"type": "integer"}, "label": {"type": "string"}}}
}


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>set_timer<arg_key>seconds</arg_key><arg_value>3</arg_value>"
        "<arg_key>label</arg_key><arg_value>3</arg_value></tool_call>",
        "<tool_call>set_timer\n<arg_key>seconds</arg_key>\n<arg_value>3</arg_value>\n"
        "<arg_key>label</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
    ],
    ids=["glm-4.7", "glm-4.5"],
)
def test_glm_both_layouts_typed_by_the_schema(text: str) -> None:
    result = read("Setting it.\n" + text, "glm45", SET_TIMER)
    assert calls(result) == [("set_timer", {"seconds": 3, "label": "3"})]
    assert result.text == "Setting it.\n"
    assert calls(read(text, "glm45")) == [("set_timer", {"seconds": 3, "label": 3})]


def test_glm_closing_tags_inside_a_value_and_a_missing_value_end() -> None:
    text = (
        "<tool_call>write<arg_key>c</arg_key><arg_value>Wrap in <tool_call> and </tool_call>."
        "</arg_value><arg_key>d</arg_key><arg_value>  two  \n</tool_call>"
    )
    assert calls(read(text, "glm45")) == [
        ("write", {"c": "Wrap in <tool_call> and </tool_call>.", "d": "  two  \n"})
    ]


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("<tool_call>not a name</tool_call> ok", "<tool_call>not a name</tool_call> ok"),
        ("ok <tool_call>get<arg_key>a</arg_key><arg_value>1</arg_value>", "ok "),
    ],
    ids=["unreadable", "cut-off"],
)
def test_glm_no_call(text: str, left: str) -> None:
    assert read(text, "glm45") == ParseResult([], left, None)


# Gemma 4 -----------------------------------------------------------------------------------


def test_gemma_object_notation() -> None:
    text = (
        'Checking <|tool_call>call:record{key with space:1.5e-05,none:null,s:<|"|>x,y} "q"'
        '<tool_call|> here<|"|>,obj:{a:[1, <|"|>t<|"|>],B:true}}<tool_call|> after'
    )
    result = read(text, "gemma4")
    assert calls(result) == [
        (
            "record",
            {
                "key with space": 1.5e-05,
                "none": None,
                "s": 'x,y} "q"<tool_call|> here',
                "obj": {"a": [1, "t"], "B": True},
            },
        )
    ]
    assert result.text == "Checking  after"


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("<|tool_call>call:bad no brace<tool_call|>", "<|tool_call>call:bad no brace<tool_call|>"),
        ('<|tool_call>call:get{city:<|"|>Par', ""),
    ],
    ids=["unreadable", "cut-off"],
)
def test_gemma_no_call(text: str, left: str) -> None:
    assert read(text, "gemma4") == ParseResult([], left, None)


# DeepSeek ----------------------------------------------------------------------------------

BEGIN, END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def test_deepseek_v3_and_v31_calls_with_markers_in_a_string() -> None:
    text = (
        f"Sure.{BEGIN}{CALL}function{SEP}echo\n```json\n"
        '{"text": "use ```json\\n{}\\n``` or <｜tool▁call▁end｜>"}\n```'
        f"{CALL_END}\n{CALL}get_time{SEP}{{}}{CALL_END}{END} Done."
    )
    result = read(text, "deepseek_v3")
    assert calls(result) == [
        ("echo", {"text": "use ```json\n{}\n``` or <｜tool▁call▁end｜>"}),
        ("get_time", {}),
    ]
    assert result.text == "Sure. Done."


def test_deepseek_section_cut_in_its_second_call_keeps_the_first() -> None:
    text = f'{BEGIN}{CALL}f{SEP}{{"a": 1}}{CALL_END}{CALL}g{SEP}{{"b": "Zür'
    assert read(text, "deepseek_v3") == ParseResult(
        [read(text, "deepseek_v3").calls[0]], "", "deepseek_v3"
    )
    assert calls(read(text, "deepseek_v3")) == [("f", {"a": 1})]


@pytest.mark.parametrize(
    ("section", "space"), [("function_calls", ""), ("tool_calls", ""), ("calls", " ")]
)
def test_deepseek_dsml(section: str, space: str) -> None:
    d = f"｜DSML｜{space}"
    text = (
        f'Checking.\n\n<{d}{section}>\n<{d}invoke name="echo">\n'
        f'<{d}parameter name="text" string="true">Write <{d}invoke name="x"> "007"</{d}parameter>\n'
        f'<{d}parameter name="n" string="false">{{"a": [1, null]}}</{d}parameter>\n'
        f'</{d}invoke>\n<{d}invoke name="submit"/>\n</{d}{section}>'
    )
    result = read(text, "deepseek_v32")
    assert calls(result) == [
        ("echo", {"text": f'Write <{d}invoke name="x"> "007"', "n": {"a": [1, None]}}),
        ("submit", {}),
    ]
    assert result.text == "Checking.\n\n"


# Kimi --------------------------------------------------------------------------------------


def test_kimi_k2_ids_sections_and_a_terminator_in_a_string() -> None:
    text = (
        "Before. <|tool_calls_section_begin|> noise <|tool_call_begin|>functions.write:0"
        '<|tool_call_argument_begin|>{"c": "stop at <|tool_call_end|> please"}<|tool_call_end|>'
        "<|tool_call_begin|>get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|>"
        "<|tool_calls_section_end|> After.<|tool_calls_section_begin|><|tool_calls_section_end|>"
    )
    result = read(text, "kimi_k2")
    assert calls(result) == [("write", {"c": "stop at <|tool_call_end|> please"}), ("get_time", {})]
    assert result.text == "Before.  After."


def test_kimi_k3_typed_arguments_and_response_markup() -> None:
    text = (
        "Let me check.<|close|>response<|sep|><|open|>tools<|sep|>"
        '<|open|>call tool="save" index="1"<|sep|>'
        '<|open|>argument key="q&amp;a" type="string"<|sep|>007<|close|>argument<|sep|>'
        '<|open|>argument key="n" type="number"<|sep|>21.5<|close|>argument<|sep|>'
        '<|open|>argument key="r" type="null"<|sep|>null<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>"
    )
    result = read(text, "kimi_k3")
    assert calls(result) == [("save", {"q&a": "007", "n": 21.5, "r": None})]
    assert result.text == "Let me check."


# Harmony (gpt-oss) --------------------------------------------------------------------------


def test_harmony_reasoning_preamble_calls_and_final() -> None:
    text = (
        "<|channel|>analysis<|message|>I must not write <|call|> myself.<|end|>"
        "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
        "<|start|>assistant to=functions.search<|channel|>commentary <|constrain|>json<|message|>"
        '{"q": "a <|call|> b"}<|call|>'
        "<|start|>assistant<|channel|>analysis to=functions.get_time<|message|>{}<|call|>"
        "<|start|>assistant<|channel|>commentary to=python <|constrain|>code<|message|>"
        "print()<|call|>"
        "<|start|>assistant<|channel|>final<|message|>Done."
    )
    result = read(text, "harmony")
    assert calls(result) == [("search", {"q": "a <|call|> b"}), ("get_time", {})]
    assert result.reasoning == "I must not write <|call|> myself."
    assert result.text == "Checking.Done."


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Plain text, no messages.", "Plain text, no messages."),
        (' to=functions.f<|channel|>commentary json<|message|>{"a": "Par', ""),
        (
            "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=functions.f<|channel|>com",
            "",
        ),
    ],
    ids=["plain", "cut-in-arguments", "cut-in-header"],
)
def test_harmony_no_call(text: str, left: str) -> None:
    result = read(text, "harmony")
    assert (result.calls, result.text) == ([], left)
