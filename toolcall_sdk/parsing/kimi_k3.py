"""Kimi K3 format ("XTML"): channels and calls as `<|open|>...<|close|>` elements.

    <|open|>response<|sep|>Let me check.<|close|>response<|sep|><|open|>tools<|sep|>
    <|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>

The `think` channel is reasoning, split off before this format reads the text (see
`split_reasoning`). Here the `response` channel is content: its tags and the message's end
are markup, removed. Each argument carries its type (`string` values are the text written,
unescaped; `number`, `boolean`, `null`, `array`, `object` are JSON); attribute values
escape `&` and `"` (`&amp;`, `&quot;`). An argument ends at its closing tag, so XTML tags
written inside a string value end it too (only the token ids tell them apart).

A call the output ends inside is no call (a `tools` element cut in its second call keeps its
first); a `tools` element without a well-formed call stays text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk.parsing._markup import TagSet
from toolcall_sdk.parsing._regions import ElementSectionStream, Scanner, ValueScanner
from toolcall_sdk.parsing._types import ParseResult
from toolcall_sdk.parsing._values import Schemas, text_value

__all__ = ["FORMAT", "TAGS", "TOOLS_BEGIN", "KimiK3Stream", "parse"]

FORMAT: Final = "kimi_k3"
TOOLS_BEGIN: Final = "<|open|>tools<|sep|>"
TOOLS_END: Final = "<|close|>tools<|sep|>"
_MARKUP: Final = (
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "<|close|>message<|sep|>",
    "<|close|>think<|sep|>",
)
TAGS: Final = (TOOLS_BEGIN, *_MARKUP)
"""Every tag this format reads outside a `tools` element."""
_CALL: Final = re.compile(r"<\|open\|>call((?:\s+[\w-]+=\"[^\"]*\")*)\s*<\|sep\|>")
_CALL_END: Final = "<|close|>call<|sep|>"
_ARGUMENT: Final = re.compile(r"<\|open\|>argument((?:\s+[\w-]+=\"[^\"]*\")*)\s*<\|sep\|>")
_ARGUMENT_END: Final = "<|close|>argument<|sep|>"
_ATTRIBUTE: Final = re.compile(r'([\w-]+)="([^"]*)"')
_BLANK: Final = " \t\r\n"


def parse(text: str, *, schemas: Schemas | None = None) -> ParseResult:
    """Read every Kimi K3 call in `text`.

    Args:
        text: Model output (after the reasoning).
        schemas: Parameter schemas by tool name (types arguments without a `type`).

    Returns:
        The calls, and the response text without the markup.
    """
    return KimiK3Stream.parse_text(text, schemas)


def _attributes(text: str) -> dict[str, str]:
    return {key: html.unescape(value) for key, value in _ATTRIBUTE.findall(text)}


class KimiK3Stream(ElementSectionStream):
    """Incremental Kimi K3 parser (see `ElementSectionStream`)."""

    format = FORMAT
    parsers = ("kimi_k3",)
    markers = TAGS
    _PROSE_TAGS = TagSet(*TAGS)
    _REGIONS = frozenset({TOOLS_BEGIN})

    def _open(self, tag: str, start: int, body: int) -> Scanner:
        return ValueScanner(body, TOOLS_END, {"<|open|>argument": _ARGUMENT_END})

    _CALL = _CALL
    _CALL_END = re.compile(re.escape(_CALL_END))
    _ARGUMENT = _ARGUMENT
    _ARGUMENT_END = re.compile(re.escape(_ARGUMENT_END))
    _STRAY_TEXT_STOPS = False

    @classmethod
    def _call_name(cls, call: re.Match[str]) -> str:
        return _attributes(call.group(1)).get("tool", "")

    @classmethod
    def _argument(
        cls, argument: re.Match[str], raw: str, kinds: Mapping[str, frozenset[str]]
    ) -> tuple[str, Any]:
        attributes = _attributes(argument.group(1))
        kind = attributes.get("type")
        return attributes.get("key", ""), text_value(
            raw, frozenset({kind}) if kind else kinds.get(attributes.get("key", ""))
        )
