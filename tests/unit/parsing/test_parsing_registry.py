"""Formats register themselves: each class says its name, parsers, markers and leads, and
every table of the package is built from `_registry.FORMAT_STREAMS`."""

from __future__ import annotations

import pytest

from toolcall_sdk.parsing import FORMATS, StreamParser, detect_format, format_for
from toolcall_sdk.parsing._base import FormatStream
from toolcall_sdk.parsing._registry import FORMAT_STREAMS, LEADS, MARKERS, STREAMS, _unique
from toolcall_sdk.vllm_plugin import PARSER_NAMES

CLASSES = {cls.format: cls for cls in FORMAT_STREAMS}


def test_the_format_list_is_the_registry() -> None:
    assert tuple(CLASSES) == FORMATS
    assert STREAMS == CLASSES
    assert all(issubclass(cls, FormatStream) for cls in FORMAT_STREAMS)
    assert set(PARSER_NAMES) == set(FORMATS)  # the vLLM plugin serves each one


@pytest.mark.parametrize("cls", FORMAT_STREAMS, ids=lambda cls: cls.format)
def test_each_name_a_format_claims_leads_to_it(cls: type[FormatStream]) -> None:
    for name in (cls.format, *cls.parsers, f"toolcall_{cls.format}"):
        assert format_for(name) == cls.format, name


@pytest.mark.parametrize("cls", FORMAT_STREAMS, ids=lambda cls: cls.format)
def test_each_marker_is_detected_as_its_format(cls: type[FormatStream]) -> None:
    for marker in cls.markers:
        assert MARKERS[marker] == cls.format
        assert detect_format("Sure. " + marker) == cls.format, marker
        parser = StreamParser("auto")
        parser.feed("Sure. " + marker)
        parser.close()  # `<tool_call>` waits for what follows it to tell its format
        assert parser.format == cls.format, marker


def test_the_leads_are_the_formats_that_may_open_untagged() -> None:
    assert {char: fmt for char, (fmt, _steps) in LEADS.items()} == {
        "{": "llama3_json",
        "[": "pythonic",
        "t": "harmony",
    }


def test_a_name_or_tag_claimed_twice_is_refused() -> None:
    assert _unique([("a", 1), ("a", 1), ("b", 2)], "tag") == {"a": 1, "b": 2}
    with pytest.raises(RuntimeError, match="'a' is claimed by two formats"):
        _unique([("a", 1), ("a", 2)], "tag")


def test_a_model_id_reads_in_the_format_of_the_parser_its_family_names() -> None:
    # `_families` is the one source for model id -> format: the client (`format_for`), the
    # vLLM plugin (`parser_name`) and `launch` (`resolve_family`) agree for every example.
    from toolcall_sdk._families import FAMILIES, resolve_family
    from toolcall_sdk.vllm_plugin import parser_name

    for family in FAMILIES:
        fmt = format_for(family.tool_call_parser)
        for example in family.examples:
            assert format_for(example) == format_for(resolve_family(example).tool_call_parser)
            if fmt is not None and family.name != "mistral-hf":
                assert format_for(example) == fmt, example
                assert parser_name(example) == f"toolcall_{fmt}", example


@pytest.mark.parametrize(
    ("model", "fmt"),
    [
        ("Qwen/Qwen3.5-9B", "qwen3_xml"),
        ("Qwen/Qwen3.6-27B", "qwen3_xml"),
        ("Qwen/Qwen2-7B-Instruct", "hermes"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "llama3_json"),
        ("mistralai/Magistral-Small-2506", "mistral"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek_v32"),
        ("zai-org/GLM-4.7", "glm45"),
        ("zai-org/GLM-5", "glm45"),
        ("moonshotai/Kimi-K3", "kimi_k3"),
        ("google/gemma-4-9b-it", "gemma4"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", None),  # no family: detected from text
    ],
)
def test_the_model_ids_the_old_pattern_table_knew_come_from_the_families(
    model: str, fmt: str | None
) -> None:
    assert format_for(model) == fmt


def test_the_json_section_formats_share_one_skeleton() -> None:
    from toolcall_sdk.parsing._regions import JsonSectionStream

    deepseek, kimi = STREAMS["deepseek_v3"], STREAMS["kimi_k2"]
    assert issubclass(deepseek, JsonSectionStream)
    assert issubclass(kimi, JsonSectionStream)
    # What differs is data and the name hook: an empty section is text for DeepSeek only.
    empty_deepseek = "<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>"
    empty_kimi = "<|tool_calls_section_begin|><|tool_calls_section_end|>"
    assert deepseek.parse_text(empty_deepseek).text == empty_deepseek
    assert kimi.parse_text(empty_kimi).text == ""


def test_the_element_section_formats_share_one_skeleton() -> None:
    from toolcall_sdk.parsing._regions import ElementSectionStream

    dsml, kimi = STREAMS["deepseek_v32"], STREAMS["kimi_k3"]
    assert issubclass(dsml, ElementSectionStream)
    assert issubclass(kimi, ElementSectionStream)
    # The one rule where they differ: text inside a call stops DSML, and drops the call in K3.
    d = (
        '<｜DSML｜function_calls><｜DSML｜invoke name="f">junk</｜DSML｜invoke>'
        '<｜DSML｜invoke name="g"></｜DSML｜invoke></｜DSML｜function_calls>'
    )
    k = (
        '<|open|>tools<|sep|><|open|>call tool="f"<|sep|>junk<|close|>call<|sep|>'
        '<|open|>call tool="g"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
    )
    assert (dsml.parse_text(d).calls, dsml.parse_text(d).text) == ([], d)
    assert [call.name for call in kimi.parse_text(k).calls] == ["g"]
