"""Pins the public surface of `toolcall_sdk.testing`."""

from __future__ import annotations

import textwrap

import toolcall_sdk.testing


def test_exported_members() -> None:
    # The names are held once, in `__all__`; test_public_api checks it matches the module.
    exported = toolcall_sdk.testing.__all__
    assert exported == sorted(exported, key=lambda name: (not name.isupper(), name))
    assert {"ScriptedModel", "RecordedRequest", "text", "tool_call", "http_error"} <= set(exported)
    for name in toolcall_sdk.testing.__all__:
        assert getattr(toolcall_sdk.testing, name) is not None


def test_module_docstring_example_runs() -> None:
    doc = toolcall_sdk.testing.__doc__ or ""
    example = textwrap.dedent(doc.split("```python\n", 1)[1].split("```", 1)[0])

    exec(compile(example, "toolcall_sdk.testing docstring", "exec"), {})
