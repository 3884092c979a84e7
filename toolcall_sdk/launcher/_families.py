"""The model-family registry as the launcher offers it: its lookups raise `LaunchError`s.

The registry itself is `toolcall_sdk._families` (data and lookups, standard library only), so
the parsers and the doctor read it without importing the launcher. Here the two lookups that
can fail are wrapped: an unknown model becomes `UnknownModelFamilyError`, a `LaunchError`
whose message says how to name a parser on `toolcall-sdk launch`'s command line.
"""

from __future__ import annotations

import os

from toolcall_sdk import _families
from toolcall_sdk._families import FAMILIES, ModelFamily, UnknownFamilyError, known_tool_parsers
from toolcall_sdk.launcher._errors import UnknownModelFamilyError

__all__ = [
    "FAMILIES",
    "ModelFamily",
    "get_family",
    "known_tool_parsers",
    "resolve_family",
]


def get_family(name: str) -> ModelFamily:
    """Look a family up by its registry name.

    Args:
        name: A `ModelFamily.name`, e.g. `"llama-3.2-json"` (case-insensitive).

    Returns:
        The family.

    Raises:
        UnknownModelFamilyError: No family has that name; the message lists them all.
    """
    try:
        return _families.get_family(name)
    except UnknownFamilyError as exc:
        raise UnknownModelFamilyError(
            str(exc), model=exc.model, known_parsers=exc.known_parsers
        ) from exc


def resolve_family(model: str | os.PathLike[str]) -> ModelFamily:
    """Find the family of a model from its id or its local directory.

    A Hugging Face id is matched by its repository name. A local directory is matched by
    the `_name_or_path` in its `config.json`, then by its own name, then by the
    `model_type` and `architectures` in `config.json`.

    Args:
        model: A model id such as `Qwen/Qwen2.5-7B-Instruct`, or a local model directory.

    Returns:
        The first family (most specific first) that matches.

    Raises:
        UnknownModelFamilyError: Nothing matches; the message says how to pass
            `--tool-call-parser` and lists the known parser names.
    """
    try:
        return _families.resolve_family(model)
    except UnknownFamilyError as exc:
        raise UnknownModelFamilyError(
            _launch_hint(exc), model=exc.model, known_parsers=exc.known_parsers
        ) from exc


def _launch_hint(exc: UnknownFamilyError) -> str:
    return (
        f"{exc.summary}\n"
        "Name it yourself:\n"
        f"    toolcall-sdk launch {exc.model} --tool-call-parser NAME [--chat-template FILE]\n"
        "or pick a registry entry with --family NAME (families: "
        f"{', '.join(f.name for f in FAMILIES)}).\n"
        f"Parsers used by the registry: {', '.join(exc.known_parsers)}. Your vLLM may know more "
        "(see `vllm serve --help=Frontend`); a custom parser loads with "
        "`-- --tool-parser-plugin FILE`."
    )
