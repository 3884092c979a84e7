"""Each format's `parse`: calls, the text around them, several calls, broken JSON kept raw."""

from __future__ import annotations

import json

import pytest

from toolcall_sdk.parsing import (
    ParsedCall,
    ParseResult,
    hermes,
    llama3_json,
    mistral,
    pythonic,
    qwen3_xml,
)


def args(call: ParsedCall) -> object:
    return json.loads(call.arguments)


# Hermes ------------------------------------------------------------------------------------


def test_hermes_calls_with_text_around() -> None:
    text = (
        "Let me check.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Hà Nội", "days": 3}}\n'
        "</tool_call>\nand <tool_call>"
        '{"name": "get_time", "parameters": {"tz": "Asia/Ho_Chi_Minh"}}'
        "</tool_call> done."
    )
    result = hermes.parse(text)
    assert result == ParseResult(
        [
            ParsedCall(
                "get_weather",
                '{"city":"Hà Nội","days":3}',
                '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Hà Nội", "days": 3}}'
                "\n</tool_call>",
            ),
            ParsedCall(
                "get_time",
                '{"tz":"Asia/Ho_Chi_Minh"}',
                '<tool_call>{"name": "get_time", "parameters": {"tz": "Asia/Ho_Chi_Minh"}}'
                "</tool_call>",
            ),
        ],
        "Let me check.\n\nand  done.",
        "hermes",
    )


def test_hermes_missing_final_end_tag() -> None:
    result = hermes.parse('<tool_call>{"name": "f", "arguments": {"a": [1, 2]}}\n')
    assert result.calls == [
        ParsedCall("f", '{"a":[1,2]}', '<tool_call>{"name": "f", "arguments": {"a": [1, 2]}}\n')
    ]
    assert result.text == ""


def test_hermes_partial_end_tag_at_end_is_not_part_of_the_json() -> None:
    result = hermes.parse('<tool_call>{"name": "f", "arguments": {}}</tool_ca')
    assert result.calls[0].arguments == "{}"
    assert result.calls[0].raw == '<tool_call>{"name": "f", "arguments": {}}</tool_ca'


def test_hermes_broken_json_keeps_the_raw_arguments() -> None:
    result = hermes.parse('<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>')
    assert result.calls == [
        ParsedCall("f", '{"a": 1,}', '<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>')
    ]


@pytest.mark.parametrize(
    "cut",
    [
        '<tool_call>{"name": "f", "arguments": {"city": "Hu',
        '<tool_call>\n{"name": "f", "arguments": {"a": true}',
        "<tool_call>\n",
        "<tool_call>",
        "<tool_call>get_",
    ],
)
def test_hermes_call_cut_off_at_the_end_is_no_call(cut: str) -> None:
    # max_tokens ended the output inside the call: the model never finished it.
    assert hermes.parse("I will check.\n" + cut) == ParseResult([], "I will check.\n", None)
    assert hermes.parse('<tool_call>{"name": "g", "arguments": {}}</tool_call>' + cut).calls == [
        ParsedCall("g", "{}", '<tool_call>{"name": "g", "arguments": {}}</tool_call>')
    ]


def test_hermes_end_tag_inside_a_json_string_does_not_end_the_call() -> None:
    body = '{"name": "echo", "arguments": {"text": "Use <tool_call> ... </tool_call> tags."}}'
    result = hermes.parse(f"<tool_call>\n{body}\n</tool_call> done")
    assert result.calls == [
        ParsedCall(
            "echo",
            '{"text":"Use <tool_call> ... </tool_call> tags."}',
            f"<tool_call>\n{body}\n</tool_call>",
        )
    ]
    assert result.text == " done"


def test_hermes_json_that_never_closes_ends_at_the_first_end_tag() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": "x</tool_call>after'
    (call,) = hermes.parse(text).calls
    assert call == ParsedCall(
        "f", '{"a": "x', '<tool_call>{"name": "f", "arguments": {"a": "x</tool_call>'
    )
    assert hermes.parse(text).text == "after"


def test_hermes_broken_envelope_with_valid_arguments_normalises_them() -> None:
    # The outer object lacks its final brace; the arguments themselves are whole.
    (call,) = hermes.parse('<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>').calls
    assert call == ParsedCall("f", '{"a":1}', call.raw)


@pytest.mark.parametrize("body", ["not json", '{"arguments": {}}', "[1, 2]"])
def test_hermes_body_without_a_name_is_no_call_and_stays_text(body: str) -> None:
    text = f"a <tool_call>{body}</tool_call> b"
    assert hermes.parse(text) == ParseResult([], text, None)


def test_hermes_arguments_as_a_json_string_stay_a_string() -> None:
    # Decoding the inner string is a repair (repair.unwrap_json_string), recorded by the client.
    (call,) = hermes.parse(
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>'
    ).calls
    assert json.loads(call.arguments) == '{"a": 1}'


def test_hermes_without_calls_returns_the_text() -> None:
    assert hermes.parse("a < b and <tool_ something") == ParseResult(
        [], "a < b and <tool_ something", None
    )


def test_hermes_missing_arguments_means_no_arguments() -> None:
    (call,) = hermes.parse('<tool_call>{"name": "now"}</tool_call>').calls
    assert call.arguments == "{}"


# Llama 3 JSON ------------------------------------------------------------------------------


def test_llama3_bare_call() -> None:
    result = llama3_json.parse('{"name": "get_weather", "parameters": {"city": "Hue"}}')
    assert result.calls == [
        ParsedCall(
            "get_weather",
            '{"city":"Hue"}',
            '{"name": "get_weather", "parameters": {"city": "Hue"}}',
        )
    ]
    assert result.text == ""
    assert result.format == "llama3_json"


def test_llama3_python_tag_and_several_calls() -> None:
    text = (
        'Calling.<|python_tag|>{"name": "a", "parameters": {}}; '
        '{"name": "b", "arguments": {"x": null}}\n{"name": "c", "parameters": {"y": [true]}}'
        " That is all."
    )
    result = llama3_json.parse(text)
    assert [(c.name, args(c)) for c in result.calls] == [
        ("a", {}),
        ("b", {"x": None}),
        ("c", {"y": [True]}),
    ]
    assert result.text == "Calling. That is all."


def test_llama3_json_in_prose_is_text_unless_exactly_a_call() -> None:
    text = 'The config is {"name": "web", "port": 80}. Result: {"status": "ok"}.'
    assert llama3_json.parse(text) == ParseResult([], text, None)
    shaped = 'I will call {"name": "f", "parameters": {"a": 1}} now.'
    result = llama3_json.parse(shaped)
    assert [c.name for c in result.calls] == ["f"]
    assert result.text == "I will call  now."


def test_llama3_call_nested_in_other_json_is_text() -> None:
    text = 'Got {"result": {"name": "f", "parameters": {}}} back.'
    assert llama3_json.parse(text).calls == []


def test_llama3_prose_object_needs_exact_keys() -> None:
    text = 'See {"name": "f", "parameters": {}, "extra": 1}.'
    assert llama3_json.parse(text).calls == []


def test_llama3_broken_json_at_call_position_keeps_raw_arguments() -> None:
    (call,) = llama3_json.parse('{"name": "f", "parameters": {"a": 1,}}').calls
    assert call == ParsedCall("f", '{"a": 1,}', '{"name": "f", "parameters": {"a": 1,}}')


def test_llama3_trailing_separator_is_text() -> None:
    result = llama3_json.parse('{"name": "f", "parameters": {}};')
    assert len(result.calls) == 1
    assert result.text == ";"


def test_llama3_lone_python_tag_is_removed() -> None:
    assert llama3_json.parse("<|python_tag|>hello") == ParseResult([], "hello", None)


# Mistral -----------------------------------------------------------------------------------


def test_mistral_json_array() -> None:
    text = (
        'Sure.[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, '
        '{"name": "b", "arguments": {}}] Bye'
    )
    result = mistral.parse(text)
    assert result.calls == [
        ParsedCall("a", '{"x":1}', '{"name": "a", "arguments": {"x": 1}}'),
        ParsedCall("b", "{}", '{"name": "b", "arguments": {}}'),
    ]
    assert result.text == "Sure. Bye"


def test_mistral_name_then_arguments_segments() -> None:
    text = '[TOOL_CALLS]get_weather{"city": "Hanoi"}[TOOL_CALLS]get_time[ARGS]{}\nok'
    result = mistral.parse(text)
    assert result.calls == [
        ParsedCall("get_weather", '{"city":"Hanoi"}', '[TOOL_CALLS]get_weather{"city": "Hanoi"}'),
        ParsedCall("get_time", "{}", "[TOOL_CALLS]get_time[ARGS]{}"),
    ]
    assert result.text == "\nok"


def test_mistral_broken_json_is_kept_raw_in_both_forms() -> None:
    (a,) = mistral.parse('[TOOL_CALLS]f{"a": 1,}').calls
    assert a.arguments == '{"a": 1,}'
    (b,) = mistral.parse('[TOOL_CALLS][{"name": "g", "arguments": {"a": 1,}}]').calls
    assert (b.name, b.arguments) == ("g", '{"a": 1,}')


@pytest.mark.parametrize(
    "cut",
    [
        '[TOOL_CALLS]f{"a": "rm -rf /',
        "[TOOL_CALLS]f[ARGS]",
        "[TOOL_CALLS]get_ti",
        "[TOOL_CALLS]",
        '[TOOL_CALLS][{"name": "g", "arguments": {}}, {"name": "h"',
    ],
)
def test_mistral_call_cut_off_at_the_end_is_no_call(cut: str) -> None:
    result = mistral.parse("Sure." + cut)
    assert result.text == "Sure."
    assert [c.name for c in result.calls] == (["g"] if "[{" in cut else [])


def test_mistral_name_without_arguments_is_no_call_and_stays_text() -> None:
    assert mistral.parse("[TOOL_CALLS]get_time then text") == ParseResult(
        [], "[TOOL_CALLS]get_time then text", None
    )


def test_mistral_call_id_before_the_arguments() -> None:
    text = '[TOOL_CALLS]f[CALL_ID]123456789[ARGS]{"a": 1}[TOOL_CALLS]g[CALL_ID]a1{"b": 2}'
    result = mistral.parse(text)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", '{"a":1}'), ("g", '{"b":2}')]
    assert result.text == ""


# Pythonic ----------------------------------------------------------------------------------


def test_pythonic_list_of_calls() -> None:
    text = '[get_weather(city="Hà Nội", days=3, extra={"a": [1.5, None, True]}), get_time()]'
    result = pythonic.parse(text)
    assert result.calls == [
        ParsedCall(
            "get_weather",
            '{"city":"Hà Nội","days":3,"extra":{"a":[1.5,null,true]}}',
            'get_weather(city="Hà Nội", days=3, extra={"a": [1.5, None, True]})',
        ),
        ParsedCall("get_time", "{}", "get_time()"),
    ]
    assert result.text == ""


def test_pythonic_llama4_wrappers_and_text() -> None:
    text = "Checking.<|python_start|>[f(a='x')]<|python_end|> Done."
    result = pythonic.parse(text)
    assert result.calls == [ParsedCall("f", '{"a":"x"}', "f(a='x')")]
    assert result.text == "Checking. Done."


@pytest.mark.parametrize(
    "text",
    [
        "[f(a=x)]",  # a name, not a literal
        "[f(1)]",  # positional
        "[f(**kw)]",
        "[f(a=1+2)]",  # an expression
        "[f(a=f'{x}')]",
        "[f(a={1, 2})]",  # a set has no JSON form
        "[__import__('os').system(cmd='x')]",
        "[f(a=1)",  # unterminated
        "[1, 2]",
        "Call [f(a=1)] later",  # not at a call position
    ],
)
def test_pythonic_anything_not_literal_calls_stays_text(text: str) -> None:
    assert pythonic.parse(text) == ParseResult([], text, None)


# Qwen3 XML ---------------------------------------------------------------------------------

QWEN = (
    "I'll check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nHà Nội\n</parameter>\n"
    '<parameter=days>\n3\n</parameter>\n<parameter=opts>\n{"unit": "c"}\n</parameter>\n'
    "</function>\n</tool_call>\nThanks"
)


def test_qwen3_xml_values_are_json_decoded_when_they_can_be() -> None:
    result = qwen3_xml.parse(QWEN)
    (call,) = result.calls
    assert call.name == "get_weather"
    assert args(call) == {"city": "Hà Nội", "days": 3, "opts": {"unit": "c"}}
    assert result.text == "I'll check.\n\nThanks"
    assert call.raw == QWEN[len("I'll check.\n") : -len("\nThanks")]


def test_qwen3_xml_without_wrapper_and_several_calls() -> None:
    text = (
        "<function=a>\n<parameter=x>\ntrue\n</parameter>\n</function> and <function=b></function>"
    )
    result = qwen3_xml.parse(text)
    assert [(c.name, args(c)) for c in result.calls] == [("a", {"x": True}), ("b", {})]
    assert result.text == " and "


def test_qwen3_xml_strips_one_newline_each_side() -> None:
    (call,) = qwen3_xml.parse("<function=f><parameter=s>\n\nhi\n\n</parameter></function>").calls
    assert args(call) == {"s": "\nhi\n"}


def test_qwen3_xml_schema_keeps_strings() -> None:
    text = "<function=f><parameter=code>007</parameter><parameter=n>7</parameter></function>"
    schemas = {"f": {"properties": {"code": {"type": "string"}, "n": {"type": "integer"}}}}
    assert args(qwen3_xml.parse(text, schemas=schemas).calls[0]) == {"code": "007", "n": 7}
    assert args(
        qwen3_xml.parse(
            "<function=f><parameter=code>5</parameter></function>", schemas=schemas
        ).calls[0]
    ) == {"code": "5"}


def test_qwen3_xml_tolerates_missing_closing_tags() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\nx\n</tool_call>"
    (call,) = qwen3_xml.parse(text).calls
    assert args(call) == {"a": 1, "b": "x"}
    assert call.raw == text
    # A closed function needs no `</tool_call>`; a bare one may be followed by a stray one.
    assert args(qwen3_xml.parse("<tool_call><function=f></function>").calls[0]) == {}
    assert qwen3_xml.parse("<function=f></function>\n</tool_call> ok").text == " ok"


@pytest.mark.parametrize(
    "cut",
    [
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\nx\n</para",
        "<tool_call>\n<function=write_file>\n<parameter=content>\nrm -rf /",
        "<tool_call>",
        "<function=f",
    ],
)
def test_qwen3_xml_call_cut_off_at_the_end_is_no_call(cut: str) -> None:
    assert qwen3_xml.parse("Sure.\n" + cut) == ParseResult([], "Sure.\n", None)


def test_qwen3_xml_closing_tags_inside_a_value_on_its_own_line_are_text() -> None:
    value = "Close with </parameter>, </function> and </tool_call>; open with <function=x>."
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=content>\n"
        f"{value}\n</parameter>\n</function>\n</tool_call>"
    )
    (call,) = qwen3_xml.parse(text).calls
    assert args(call) == {"content": value}


def test_qwen3_xml_values_typed_by_the_schema() -> None:
    schemas = {
        "f": {
            "properties": {
                "on": {"type": "boolean"},
                "label": {"type": ["string", "null"]},
                "code": {"type": "string"},
            }
        }
    }
    text = (
        "<function=f><parameter=on>True</parameter><parameter=label>null</parameter>"
        "<parameter=code>null</parameter></function>"
    )
    assert args(qwen3_xml.parse(text, schemas=schemas).calls[0]) == {
        "on": True,
        "label": None,
        "code": "null",
    }
    assert args(qwen3_xml.parse(text).calls[0]) == {"on": "True", "label": None, "code": None}


def test_qwen3_wrapper_holding_hermes_json() -> None:
    (call,) = qwen3_xml.parse('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>').calls
    assert (call.name, call.arguments) == ("f", '{"a":1}')
