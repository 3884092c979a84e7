"""A vLLM tool-parser plugin shipped with the SDK: Hermes calls whose tags are plain tokens.

A Hermes-format model fine-tuned without `<tool_call>` as a special token writes the tag as
several ordinary tokens (`<`, `tool`, `_call`, `>`); in streaming the tag then arrives split
across deltas. The plugin reads the server's text with the SDK's own parser, which holds a
possible tag back until it completes or cannot, so no part of a tag is ever streamed as
content and no call is lost. Load it into vLLM with::

    from toolcall_sdk.vllm_plugin import PARSER_NAME, plugin_args, plugin_path

    plugin_path()   # the file to give vLLM's --tool-parser-plugin
    plugin_args()   # ["--tool-parser-plugin", PATH, "--tool-call-parser", "toolcall_hermes"]

`toolcall-sdk launch` adds these flags itself where they are needed (see docs/launch.md).
Nothing here imports vLLM: only the plugin file does, inside the server process, so the
SDK must be installed in the Python that runs vLLM. See docs/parsing.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from toolcall_sdk.vllm_plugin._adapter import (
    CallPiece,
    Extracted,
    HermesDeltas,
    Piece,
    WholeCall,
    extract,
)

__all__ = [
    "PARSER_NAME",
    "PLUGIN_FLAG",
    "CallPiece",
    "Extracted",
    "HermesDeltas",
    "Piece",
    "WholeCall",
    "extract",
    "plugin_args",
    "plugin_path",
]

PARSER_NAME: Final = "toolcall_hermes"
"""The name the plugin registers, for `--tool-call-parser`."""
PLUGIN_FLAG: Final = "--tool-parser-plugin"
_PLUGIN_FILE: Final = "hermes_buffered.py"


def plugin_path() -> Path:
    """The plugin file, for vLLM's `--tool-parser-plugin`.

    Returns:
        The absolute path of `hermes_buffered.py` in the installed package.
    """
    return Path(__file__).resolve().with_name(_PLUGIN_FILE)


def plugin_args() -> list[str]:
    """The vLLM flags that load the plugin and select its parser.

    Returns:
        `["--tool-parser-plugin", PATH, "--tool-call-parser", "toolcall_hermes"]`.
    """
    return [PLUGIN_FLAG, str(plugin_path()), "--tool-call-parser", PARSER_NAME]
