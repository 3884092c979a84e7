"""The package surface: exports, format names, detection, parse_any, reasoning."""

from __future__ import annotations

import pytest

import toolcall_sdk.parsing as parsing
from toolcall_sdk.parsing import (
    FORMATS,
    ParsedCall,
    ParseResult,
    ReasoningSplitter,
    detect_format,
    format_for,
    parse,
    parse_any,
    parse_with_reasoning,
    split_reasoning,
)

HERMES = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
SAMPLES = {
    "hermes": "Sure. " + HERMES,
    "llama3_json": '{"name": "f", "parameters": {"a": 1}}',
    "mistral": '[TOOL_CALLS]f{"a": 1}',
    "pythonic": "[f(a=1)]",
    "xlam": '[{"name": "f", "arguments": {"a": 1}}]',
    "qwen3_xml": (
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    ),
}


def test_exports_are_pinned() -> None:
    assert parsing.__all__ == sorted(parsing.__all__, key=lambda name: (not name.isupper(), name))
    # The formats of 0.x, in their order; a new format may join anywhere (test_parsing_registry
    # checks FORMATS is the registry's list).
    known = (
        *("hermes", "llama3_json", "mistral", "pythonic", "qwen3_xml", "deepseek_v3"),
        *("deepseek_v32", "gemma4", "glm45", "harmony", "kimi_k2", "kimi_k3", "xlam"),
        "qwen25_coder",
    )
    assert tuple(fmt for fmt in FORMATS if fmt in known) == known


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("hermes", "hermes"),
        ("QWEN3_CODER", "qwen3_xml"),
        ("llama4_pythonic", "pythonic"),
        ("llama4_json", "llama3_json"),
        ("qwen2.5", "hermes"),  # a launcher family
        ("Qwen/Qwen2.5-7B-Instruct", "hermes"),  # a model id
        ("mistralai/Mistral-7B-Instruct-v0.3", "mistral"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_xml"),
        ("no-such-model", None),
        ("xlam", "xlam"),
        # Current model ids: each family's own format.
        ("Qwen/Qwen3-8B", "hermes"),
        ("Qwen/Qwen3-4B-Instruct-2507", "hermes"),
        ("Qwen/Qwen3.5-9B", "qwen3_xml"),
        ("Qwen/Qwen3.6-35B-A3B", "qwen3_xml"),
        ("Qwen/Qwen3-Coder-Next", "qwen3_xml"),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-V3.2", "deepseek_v32"),
        ("deepseek-ai/DeepSeek-V4-Flash", "deepseek_v32"),
        ("zai-org/GLM-4.5", "glm45"),
        ("zai-org/GLM-4.7", "glm45"),
        ("zai-org/GLM-5.3", "glm45"),
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2"),
        ("moonshotai/Kimi-K2.6", "kimi_k2"),
        ("moonshotai/Kimi-K3", "kimi_k3"),
        ("openai/gpt-oss-20b", "harmony"),
        ("google/gemma-4-31B-it", "gemma4"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "pythonic"),
        ("meta-llama/Llama-3.2-3B-Instruct", "pythonic"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
        ("mistralai/Magistral-Small-2509", "mistral"),
        ("mistralai/Devstral-Small-2507", "mistral"),
        ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam"),
        ("Salesforce/xLAM-7b-fc-r", "xlam"),
        # vLLM parser names of the new formats.
        ("openai", "harmony"),
        ("glm47", "glm45"),
        ("deepseek_v31", "deepseek_v3"),
        ("deepseek_v4", "deepseek_v32"),
    ],
)
def test_format_for(name: str, fmt: str | None) -> None:
    assert format_for(name) == fmt


@pytest.mark.parametrize(
    ("text", "opened", "expected"),
    [
        ("<think>\nNeed f.\n</think>\n\nHello", False, ("Need f.", "Hello")),
        ("Need f.</think>Hello", True, ("Need f.", "Hello")),
        ("[THINK]plan[/THINK][TOOL_CALLS]f[ARGS]{}", False, ("plan", "[TOOL_CALLS]f[ARGS]{}")),
        ("<|channel>thought\nplan\n<channel|>Hi", False, ("plan", "Hi")),
        (
            "plan<|close|>think<|sep|><|open|>response<|sep|>Hi",
            True,
            ("plan", "<|open|>response<|sep|>Hi"),
        ),
        ("cut inside the block", True, ("cut inside the block", "")),
        # Reasoning comes first: once the answer began, a marker is text.
        (
            'Use <think> like this: {"a": "<think>"}',
            False,
            ("", 'Use <think> like this: {"a": "<think>"}'),
        ),
        # A Qwen model may call without closing the block the template opened.
        ("plan\n<tool_call>x</tool_call>", True, ("plan", "<tool_call>x</tool_call>")),
    ],
)
def test_split_reasoning(text: str, opened: bool, expected: tuple[str, str]) -> None:
    assert split_reasoning(text, open=opened) == expected
    splitter = ReasoningSplitter(open=opened)
    pieces = [splitter.feed(c) for c in text] + [splitter.close()]
    assert ("".join(r for r, _ in pieces), "".join(c for _, c in pieces)) == expected


@pytest.mark.parametrize(("fmt", "text"), SAMPLES.items())
def test_detect_and_parse_any_find_every_format(fmt: str, text: str) -> None:
    assert detect_format(text) == fmt
    result = parse_any(text)
    assert result.format == fmt
    assert [(c.name, c.arguments) for c in result.calls] == [("f", '{"a":1}')]


def test_detect_format_of_plain_text_is_none() -> None:
    assert detect_format("Just an answer, with {braces} and [brackets].") is None


def test_detect_format_finds_a_llama3_call_in_prose() -> None:
    assert detect_format('I will call {"name": "f", "parameters": {}} now') == "llama3_json"


def test_parse_any_tries_the_known_format_first() -> None:
    # Both a Llama 3 call and a Hermes call (with a key Llama 3 does not accept in prose).
    text = (
        '{"name": "g", "parameters": {}}\n'
        '<tool_call>{"name": "f", "arguments": {}, "id": 1}</tool_call>'
    )
    assert [c.name for c in parse_any(text, "hermes").calls] == ["f"]
    assert [c.name for c in parse_any(text, "llama3_json").calls] == ["g"]


def test_parse_any_falls_back_when_the_known_format_finds_nothing() -> None:
    # A server started with the hermes parser, a model writing Mistral calls.
    result = parse_any('[TOOL_CALLS]f{"a": 1}', "Qwen/Qwen2.5-7B-Instruct")
    assert result.format == "mistral"


def test_parse_any_without_calls_returns_the_text_unchanged() -> None:
    text = "No tools needed. <|python_tag|> stray"
    assert parse_any(text) == ParseResult([], text, None)
    assert parse_any(text, "no-such-model") == ParseResult([], text, None)


def test_parse_with_an_unknown_format_is_an_error() -> None:
    with pytest.raises(ValueError, match="No tool-call format is known for 'nope'"):
        parse("x", "nope")


def test_parse_auto_is_what_the_auto_stream_reads() -> None:
    assert parse(SAMPLES["mistral"], "auto").format == "mistral"


def test_deep_nesting_is_kept_as_text_whatever_the_stack() -> None:
    deep = "[" * 101 + "]" * 101
    (call,) = parse(f'<tool_call>{{"name": "f", "arguments": {deep}}}</tool_call>', "hermes").calls
    assert call.arguments == deep  # too deep to decode: verbatim, so validation reports it


# Reasoning ---------------------------------------------------------------------------------


def test_call_inside_think_is_found() -> None:
    content = f"<think>The user wants f. {HERMES}</think>"
    result = parse_with_reasoning(content)
    assert result.calls == [ParsedCall("f", '{"a":1}', HERMES)]
    assert result.text == "<think>The user wants f. </think>"


def test_think_opened_by_the_chat_template() -> None:
    result = parse_with_reasoning('Need f.</think>\n\n{"name": "f", "parameters": {"a": 1}}')
    assert [c.name for c in result.calls] == ["f"]
    assert result.text == "Need f.</think>\n\n"


def test_calls_after_think_win_over_drafts_inside_it() -> None:
    draft = '<tool_call>{"name": "draft", "arguments": {}}</tool_call>'
    content = f"<think>{draft}</think>{HERMES}"
    result = parse_with_reasoning(content)
    assert [c.name for c in result.calls] == ["f"]
    assert result.text == f"<think>{draft}</think>"


def test_separate_reasoning_content_is_the_last_resort() -> None:
    result = parse_with_reasoning("", f"thinking... {HERMES}")
    assert [c.name for c in result.calls] == ["f"]
    assert result.text == ""
    assert parse_with_reasoning(HERMES, '[TOOL_CALLS]g{"b": 2}').calls[0].name == "f"


def test_no_calls_anywhere() -> None:
    assert parse_with_reasoning("<think>hmm</think>Hello", "hmm") == ParseResult(
        [], "<think>hmm</think>Hello", None
    )
    assert parse_with_reasoning(None) == ParseResult([], "", None)
