"""When the server needs the SDK's own tool-parser plugin, and the flags that load it.

Older vLLM releases' `hermes` parser looks `<tool_call>` up as one token. A fine-tune whose
tokenizer has no such token writes it as several ordinary ones; the SDK ships a buffered
Hermes parser for that case (`toolcall_sdk.vllm_plugin`). The launcher picks it when a local
model's tokenizer shows the tag is not a token, and adds `--tool-parser-plugin` whenever the
parser is one of the plugin's (`toolcall_hermes`, or `toolcall_qwen25_coder`, the parser of
a family whose format no vLLM parser reads). Reading `tokenizer.json` needs no tokenizer
library.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from toolcall_sdk.launcher._flags import flag_name
from toolcall_sdk.vllm_plugin import PARSER_NAME, PARSER_NAMES, PLUGIN_FLAG, plugin_path

__all__ = [
    "PARSER_NAME",
    "PLAIN_TAGS_NOTE",
    "hermes_parser",
    "loads_plugin",
    "plugin_flags",
    "tags_are_plain_tokens",
]

# The parsers whose format the plugin reads, and the tag that must be a single token.
_HERMES_PARSERS: Final = frozenset({"hermes"})
_PLUGIN_PARSERS: Final = frozenset(PARSER_NAMES.values())
_START_TAG: Final = "<tool_call>"
_TOKENIZER_FILE: Final = "tokenizer.json"
# Where vLLM looks for the tokenizer of a local model unless `--tokenizer` says otherwise;
# the demo build also keeps one in a `tokenizer/` folder beside the weights.
_TOKENIZER_SUBDIR: Final = "tokenizer"

PLAIN_TAGS_NOTE: Final = (
    f"The model's tokenizer has no {_START_TAG} token: the model writes the tag as several "
    "ordinary tokens, which older vLLM releases' hermes parser cannot find (it looks the tag "
    "up as a token id). The server uses the SDK's buffered Hermes parser instead "
    f"(--tool-call-parser {PARSER_NAME}, loaded with {PLUGIN_FLAG}); pass "
    "--tool-call-parser hermes to use vLLM's own."
)


def hermes_parser(parser: str) -> bool:
    """Say whether a vLLM parser name reads the Hermes format the plugin reads."""
    return parser in _HERMES_PARSERS


def tags_are_plain_tokens(model: str, extra_args: Sequence[str] = ()) -> bool:
    """Say whether a local model's tokenizer writes `<tool_call>` as several tokens.

    Args:
        model: A local model directory (anything else gives False).
        extra_args: vLLM arguments; a `--tokenizer DIR` among them is read instead.

    Returns:
        True only when a `tokenizer.json` was found and it has no `<tool_call>` token
        (neither an added token nor a vocabulary entry); False when unsure.
    """
    for folder in _tokenizer_dirs(model, extra_args):
        vocab = _read_tokens(folder / _TOKENIZER_FILE)
        if vocab is not None:
            return _START_TAG not in vocab
    return False


def loads_plugin(argv: Sequence[str]) -> bool:
    """Say whether a command already loads a tool-parser plugin."""
    return any(flag_name(arg) == PLUGIN_FLAG for arg in argv)


def plugin_flags(
    parser: str, plugin: str | os.PathLike[str] | None, argv: Sequence[str]
) -> list[str]:
    """The `--tool-parser-plugin` flag to add to a command, if any.

    Args:
        parser: The `--tool-call-parser` value.
        plugin: A plugin file the user gave, or None.
        argv: The rest of the command (a plugin flag already there is kept, not repeated).

    Returns:
        `["--tool-parser-plugin", PATH]` with the user's file, or with the SDK's for one of
        its parser names (`toolcall_<format>`); nothing when the command already loads a
        plugin or needs none.
    """
    if loads_plugin(argv):
        return []
    if plugin is not None:
        return [PLUGIN_FLAG, os.fspath(plugin)]
    if parser in _PLUGIN_PARSERS:
        return [PLUGIN_FLAG, str(plugin_path())]
    return []


def _tokenizer_dirs(model: str, extra_args: Sequence[str]) -> list[Path]:
    args = list(extra_args)
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag == "--tokenizer":
            given = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            return [Path(given).expanduser()] if given else []
    path = Path(model).expanduser()
    return [path, path / _TOKENIZER_SUBDIR] if path.is_dir() else []


def _read_tokens(path: Path) -> set[str] | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    tokens: set[str] = set()
    for added in data.get("added_tokens") or ():
        if isinstance(added, dict) and isinstance(added.get("content"), str):
            tokens.add(added["content"])
    model = data.get("model")
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if isinstance(vocab, dict):
        tokens.update(k for k in vocab if isinstance(k, str))
    elif isinstance(vocab, list):  # Unigram: [[piece, score], ...]
        tokens.update(v[0] for v in vocab if isinstance(v, list) and v and isinstance(v[0], str))
    else:
        return None
    return tokens
