"""The demo models' chat template, as the GGUF stores it, with one known defect repaired.

The pinned Qwen2.5-Coder-1.5B GGUF stores Qwen2.5's tool template with the call example's
braces doubled inside a Jinja string literal, where they are not an escape: the rendered prompt
tells the model to answer `{{"name": <function-name>, "arguments": <args-json-object>}}`.
The 1.5B follows it (`{{"name": "get_customer", "arguments": {...}}}}`), and no parser reads
that as a call: on the first 20 tasks of `evals/multistep.jsonl` the SDK's loop ran no call
at all, and with the example repaired the same requests come back as `tool_calls`. Qwen's
own template has single braces there, as the 0.5B's GGUF has: the repair gives the model the
prompt it was trained on.
"""

from __future__ import annotations

from typing import Final

__all__ = ["repair_chat_template"]

_DOUBLED: Final = '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}'
_SINGLE: Final = '{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}'


def repair_chat_template(template: str) -> str:
    """`template` with the doubled braces of Qwen2.5's call example made single; a
    template without that example is returned unchanged."""
    return template.replace(_DOUBLED, _SINGLE)
