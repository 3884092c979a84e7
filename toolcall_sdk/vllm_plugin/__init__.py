"""A vLLM tool-parser plugin shipped with the SDK: every format the SDK reads, on the server.

A model fine-tuned without its tool-call tags as special tokens writes a tag as several
ordinary tokens (`<`, `tool`, `_call`, `>`); in streaming the tag then arrives split across
deltas. The plugin reads the server's text with the SDK's own parsers, which hold a possible
tag back until it completes or cannot, so no part of a tag is ever streamed as content and no
call is lost. It registers one parser per format, `toolcall_<format>` (`toolcall_hermes`,
`toolcall_qwen3_xml`, `toolcall_glm45`, ...). Load it into vLLM with::

    from toolcall_sdk.vllm_plugin import PARSER_NAME, parser_name, plugin_args, plugin_path

    plugin_path()               # the file to give vLLM's --tool-parser-plugin
    plugin_args()               # [..., "--tool-call-parser", "toolcall_hermes"]
    plugin_args("qwen3_xml")    # [..., "--tool-call-parser", "toolcall_qwen3_xml"]
    plugin_args("Qwen/Qwen2.5-Coder-0.5B-Instruct")  # [..., "toolcall_qwen25_coder"]

`toolcall-sdk launch` adds these flags itself where they are needed (see docs/launch.md).
Nothing here imports vLLM: only the plugin file does, inside the server process, so the
SDK must be installed in the Python that runs vLLM. See docs/parsing.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from toolcall_sdk.parsing import FORMATS
from toolcall_sdk.vllm_plugin._adapter import (
    CallPiece,
    Extracted,
    FormatDeltas,
    HermesDeltas,
    Piece,
    WholeCall,
    extract,
)

__all__ = [
    "PARSER_NAME",
    "PARSER_NAMES",
    "PLUGIN_FLAG",
    "CallPiece",
    "Extracted",
    "FormatDeltas",
    "HermesDeltas",
    "Piece",
    "WholeCall",
    "extract",
    "parser_name",
    "plugin_args",
    "plugin_path",
]

PARSER_NAMES: Final = {fmt: f"toolcall_{fmt}" for fmt in FORMATS}
"""The name the plugin registers for each format, for `--tool-call-parser`."""
PARSER_NAME: Final = PARSER_NAMES["hermes"]
"""The Hermes parser's name (`toolcall_hermes`), the one `launch` uses."""
PLUGIN_FLAG: Final = "--tool-parser-plugin"
_PLUGIN_FILE: Final = "hermes_buffered.py"


def plugin_path() -> Path:
    """The plugin file, for vLLM's `--tool-parser-plugin`.

    Returns:
        The absolute path of `hermes_buffered.py` in the installed package.
    """
    return Path(__file__).resolve().with_name(_PLUGIN_FILE)


def parser_name(format: str = "hermes") -> str:
    """The plugin's parser name for a format (`toolcall_qwen3_xml`).

    Args:
        format: One of `toolcall_sdk.parsing.FORMATS`, a vLLM parser name or a model id.

    Raises:
        ValueError: No format is known for `format`.
    """
    from toolcall_sdk.parsing import format_for

    fmt = format_for(format)
    if fmt is None:
        raise ValueError(
            f"No tool-call format is known for {format!r}; the plugin reads {', '.join(FORMATS)}."
        )
    return PARSER_NAMES[fmt]


def plugin_args(format: str = "hermes") -> list[str]:
    """The vLLM flags that load the plugin and select its parser for a format.

    Args:
        format: One of `toolcall_sdk.parsing.FORMATS`, a vLLM parser name or a model id.

    Returns:
        `["--tool-parser-plugin", PATH, "--tool-call-parser", "toolcall_<format>"]`.
    """
    return [PLUGIN_FLAG, str(plugin_path()), "--tool-call-parser", parser_name(format)]
