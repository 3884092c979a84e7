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
