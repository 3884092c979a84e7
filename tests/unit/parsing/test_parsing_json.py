"""The arguments text every JSON format returns is exactly `json.dumps` of the decoded value.

The parsers decode and encode with `pydantic_core` for speed; these tests hold the result to
the standard library's on the inputs where the two libraries differ (float spelling, lone
surrogates, NaN, numbers too large for a float) and on generated values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_sdk.parsing import ArgumentsDelta, ParsedCall, StreamParser, parse


def stdlib_arguments(arguments_json: str) -> str:
    """What the arguments must read: the standard library's compact form."""
    return json.dumps(
        json.loads(arguments_json), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )


def render(fmt: str, arguments_json: str) -> str:
    if fmt == "hermes":
        return f'<tool_call>\n{{"name": "f", "arguments": {arguments_json}}}\n</tool_call>'
    if fmt == "llama3_json":
        return f'<|python_tag|>{{"name": "f", "parameters": {arguments_json}}}'
    return f'[TOOL_CALLS][{{"name": "f", "arguments": {arguments_json}}}]'  # mistral


JSON_FORMATS = ("hermes", "llama3_json", "mistral")


@pytest.mark.parametrize("fmt", JSON_FORMATS)
@pytest.mark.parametrize(
    "arguments_json",
    [
        # Floats that `to_json` spells differently from Python (`0.00001` vs `1e-05`,
        # `1e-9` vs `1e-09`), next to ones both spell alike.
        '{"a": 1e-05, "b": 0.00007579544029403025, "c": 1.99355790467063e-9}',
        '{"a": 1e16, "b": 1E+22, "c": 5e-324, "d": 1.7976931348623157e308, "e": -0.0}',
        '{"a": 0.1, "b": 100000.0, "c": 12345678901234567890123, "d": 1.5}',
        # Escapes: a lone surrogate (`jiter` refuses it, `json` reads it), a pair, controls.
        '{"s": "\\ud800", "t": "\\ud83d\\ude00", "u": "\\u0000\\b\\f\\n\\r\\t\\u001f\\/"}',
        # Text holding what the float check looks for, without any float.
        '{"note": "re-do e+1 x.0000 Infinity NaN I N", "n": 3}',
        # Duplicate keys: the last value wins, at the first key's place.
        '{"a": 1, "b": 2, "a": 3}',
        '{"city": "Hà Nội", "days": [1, 2, {"x": null, "y": true}]}',
    ],
)
def test_arguments_are_the_standard_librarys_compact_json(fmt: str, arguments_json: str) -> None:
    [call] = parse(render(fmt, arguments_json), fmt).calls
    assert call == ParsedCall("f", stdlib_arguments(arguments_json), call.raw)


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_number_too_large_for_a_float_keeps_the_models_text(fmt: str) -> None:
    # It decodes to infinity, which has no JSON text: the arguments stay as written, for
    # validation to report, instead of the parser raising.
    [call] = parse(render(fmt, '{"x": 1e400}'), fmt).calls
    assert call.name == "f"
    assert call.arguments == '{"x": 1e400}'


def test_qwen3_xml_number_too_large_for_a_float_stays_a_string() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=x>\n1e400\n</parameter>\n"
        "<parameter=y>\n[1, 2.5e-7]\n</parameter>\n</function>\n</tool_call>"
    )
    [call] = parse(text, "qwen3_xml").calls
    assert call.arguments == '{"x":"1e400","y":[1,2.5e-07]}'
    parser = StreamParser("qwen3_xml")
    events = [event for char in text for event in parser.feed(char)] + parser.close()
    assert parser.result().calls == [call]
    # The streamed preview builds its JSON from the same values, one parameter at a time.
    preview = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
    assert preview == '{"x":"1e400","y":[1,2.5e-07]}'


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_nan_and_infinity_literals_are_not_json(fmt: str) -> None:
    [call] = parse(render(fmt, '{"x": NaN, "y": Infinity}'), fmt).calls
    assert call.arguments == '{"x": NaN, "y": Infinity}'


def test_pythonic_sets_and_bytes_have_no_json_form() -> None:
    # Python literals the JSON encoder in Rust would accept: the text stays prose.
    for text in ("[f(a={1, 2})]", "[f(a=b'x')]"):
        assert parse(text, "pythonic").calls == []
    [call] = parse("[f(a=(1, 2), b=1e-05)]", "pythonic").calls
    assert call.arguments == '{"a":[1,2],"b":1e-05}'


json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5), st.booleans())
def test_generated_arguments_match_the_standard_library(
    arguments: dict[str, Any], ascii_only: bool
) -> None:
    arguments_json = json.dumps(arguments, ensure_ascii=ascii_only)
    [call] = parse(render("hermes", arguments_json), "hermes").calls
    assert call.arguments == stdlib_arguments(arguments_json)
