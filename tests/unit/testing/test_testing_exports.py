"""Pins the public surface of `toolcall_sdk.testing`."""

from __future__ import annotations

import textwrap

import toolcall_sdk.testing


def test_exported_members() -> None:
    assert toolcall_sdk.testing.__all__ == [
        "DEFAULT_CHUNK_SIZE",
        "STAGE_HEADER",
        "FinishReason",
        "RecordedRequest",
        "Reply",
        "ScriptError",
        "ScriptedModel",
        "cut",
        "delay",
        "disconnect",
        "endless_stream",
        "http_error",
        "malformed",
        "parallel",
        "text",
        "tool_call",
        "tool_calls",
        "trickle",
    ]
    for name in toolcall_sdk.testing.__all__:
        assert getattr(toolcall_sdk.testing, name) is not None


def test_module_docstring_example_runs() -> None:
    doc = toolcall_sdk.testing.__doc__ or ""
    example = textwrap.dedent(doc.split("```python\n", 1)[1].split("```", 1)[0])

    exec(compile(example, "toolcall_sdk.testing docstring", "exec"), {})
