"""The demo models' chat template: the GGUF's call example repaired, nothing else touched."""

from __future__ import annotations

import jinja2
import pytest

pytest.importorskip(
    "toolcall_sdk_demo",
    reason="the demo model package is not installed (pip install -e ./demo-model)",
)

from toolcall_sdk_demo._template import repair_chat_template

# The line as the pinned 1.5B GGUF stores it (Qwen2.5's tool instructions; the 0.5B's has
# single braces).
GGUF_LINE = (
    '{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and '
    "arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n"
    '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}'
    '\\n</tool_call><|im_end|>\\n" }}'
)


def _rendered(template: str) -> str:
    return jinja2.Environment().from_string(template).render()


def test_the_gguf_line_renders_doubled_braces_and_the_repaired_one_single() -> None:
    assert '{{"name": <function-name>, "arguments": <args-json-object>}}' in _rendered(GGUF_LINE)

    repaired = _rendered(repair_chat_template(GGUF_LINE))

    assert '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n' in repaired
    assert "{{" not in repaired


def test_a_template_without_the_example_is_left_as_it_is() -> None:
    other = "{%- for message in messages %}{{ message.content }}{%- endfor %}"
    assert repair_chat_template(other) == other
    assert repair_chat_template(GGUF_LINE + other) == repair_chat_template(GGUF_LINE) + other
