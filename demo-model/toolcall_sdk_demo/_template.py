"""The demo model's chat template: Qwen2.5/Hermes style, so vLLM's `hermes` parser reads it.

The template (`chat_template.jinja`) is saved with the model's tokenizer; vLLM renders it
with transformers' Jinja environment. `render_chat` renders it the same way (same `tojson`
semantics: keys in insertion order, non-ASCII kept) for the training data and the tests,
without importing transformers.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Final

IM_START: Final = "<|im_start|>"
IM_END: Final = "<|im_end|>"
END_OF_TEXT: Final = "<|endoftext|>"
TOOL_CALL_START: Final = "<tool_call>"
TOOL_CALL_END: Final = "</tool_call>"
DEFAULT_SYSTEM: Final = "You are a helpful assistant."


def chat_template() -> str:
    """The Jinja chat template (the package file `chat_template.jinja`).

    Its instructions are short on purpose: every training example carries them, and on two
    CPU cores every prompt token costs training time.
    """
    return resources.files(__package__).joinpath("chat_template.jinja").read_text("utf-8")


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    # transformers' `tojson`, not Jinja's: no HTML escaping, no key sorting.
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


@functools.cache
def _compiled_template() -> Any:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # The environment transformers (and so vLLM) renders chat templates in.
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    env.filters["tojson"] = _tojson
    return env.from_string(chat_template())


def render_chat(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    *,
    add_generation_prompt: bool = False,
) -> str:
    """Render a chat with `chat_template()` exactly as vLLM (through transformers) does.

    Args:
        messages: OpenAI-style chat messages; assistant `tool_calls[].function.arguments`
            may be a JSON string or a dict.
        tools: OpenAI `tools` entries, or None.
        add_generation_prompt: Append the assistant header for generation.

    Raises:
        ModuleNotFoundError: jinja2 is not installed (it comes with transformers and vLLM).
    """
    rendered: str = _compiled_template().render(
        messages=list(messages),
        tools=list(tools) if tools else None,
        add_generation_prompt=add_generation_prompt,
    )
    return rendered
