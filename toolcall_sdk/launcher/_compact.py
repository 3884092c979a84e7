"""Compact JSON under structured outputs: the server flag that stops whitespace runaways.

vLLM's default JSON grammar (xgrammar) allows any amount of whitespace between tokens. A
small model under `tool_choice="required"`, a named call or a `response_format` schema can
then emit newlines and spaces until `max_tokens`: every token is legal, none ends the
object. The SDK's forced calls and its LLM router rely on those constrained requests, so
the launcher asks vLLM for compact JSON (no free whitespace) wherever vLLM can do it.

The flag's spelling changed across vLLM releases:

| vLLM            | flag                                                              |
|-----------------|-------------------------------------------------------------------|
| >= 0.10.2       | `--structured-outputs-config '{"backend": "xgrammar", ...}'`      |
| 0.9.0 - 0.10.1  | `--guided-decoding-backend xgrammar --guided-decoding-disable-any-whitespace` |
| 0.8.2 - 0.8.5   | `--guided-decoding-backend xgrammar:disable-any-whitespace`       |

Only the current spelling is added by default; the older ones are added only when asked
for, because they cannot be checked against a running server here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolcall_sdk.launcher._flags import flag_name

__all__ = [
    "COMPACT_JSON_CONFIG",
    "STRUCTURED_OUTPUTS_MIN_VERSION",
    "CompactJson",
    "compact_json_args",
    "user_sets_structured_outputs",
]

# `disable_any_whitespace` is only accepted with the xgrammar or guidance backends (vLLM
# rejects it with "auto"); xgrammar is the backend vLLM picks by default anyway.
COMPACT_JSON_CONFIG = json.dumps({"backend": "xgrammar", "disable_any_whitespace": True})
# vLLM 0.10.2 replaced the `--guided-decoding-*` flags with `--structured-outputs-config`.
STRUCTURED_OUTPUTS_MIN_VERSION = (0, 10, 2)
# 0.9.0 split the backend options of `--guided-decoding-backend` into their own flags.
_SEPARATE_FLAGS_MIN_VERSION = (0, 9, 0)
# 0.8.2 brought the `:disable-any-whitespace` backend option to the V1 engine.
_BACKEND_OPTION_MIN_VERSION = (0, 8, 2)
# Any of these in the user's own arguments means they chose the structured-outputs settings.
_USER_FLAGS = ("--structured-outputs-config", "--guided-decoding")


@dataclass(frozen=True)
class CompactJson:
    """The compact-JSON flags for one launch, and what to tell the user about them.

    Attributes:
        args: The vLLM arguments to add (empty when none).
        note: A warning for the user, or None.
    """

    args: list[str] = field(default_factory=list)
    note: str | None = None


def user_sets_structured_outputs(extra_args: Sequence[str]) -> bool:
    """Tell whether the user's own vLLM arguments already configure structured outputs.

    Args:
        extra_args: The arguments given after `--`.

    Returns:
        True when one of them is a `--structured-outputs-config...` or
        `--guided-decoding...` flag (any spelling: `=value`, `.backend`, underscores).
    """
    return any(flag_name(arg).startswith(_USER_FLAGS) for arg in extra_args)


def compact_json_args(
    requested: bool | None,
    version: tuple[int, ...] | None,
    extra_args: Sequence[str] = (),
) -> CompactJson:
    """Choose the flags that make vLLM's JSON grammars whitespace-free.

    Args:
        requested: True to ask for compact JSON, False to leave vLLM's default, None for
            the default: on when the installed vLLM has `--structured-outputs-config` (or
            its version is unknown, which assumes a current vLLM).
        version: The vLLM version that will run, or None when it is not known here.
        extra_args: The user's vLLM arguments; a structured-outputs flag there wins.

    Returns:
        The arguments to add and a note for the user.
    """
    if requested is False:
        return CompactJson()
    if user_sets_structured_outputs(extra_args):
        note = (
            "compact JSON was asked for, but your own structured-outputs flag after -- is "
            "kept as given; add disable_any_whitespace to it yourself if you need it."
        )
        return CompactJson(note=note if requested else None)
    if version is None or version >= STRUCTURED_OUTPUTS_MIN_VERSION:
        return CompactJson(["--structured-outputs-config", COMPACT_JSON_CONFIG])
    shown = ".".join(map(str, version))
    if not requested:
        return CompactJson(
            note=(
                f"vLLM {shown} predates --structured-outputs-config, so JSON grammars allow "
                "free whitespace and a small model may fill max_tokens with it under "
                "tool_choice='required'; pass --compact-json to use this version's flag."
            )
        )
    if version >= _SEPARATE_FLAGS_MIN_VERSION:
        return CompactJson(
            ["--guided-decoding-backend", "xgrammar", "--guided-decoding-disable-any-whitespace"]
        )
    if version >= _BACKEND_OPTION_MIN_VERSION:
        return CompactJson(["--guided-decoding-backend", "xgrammar:disable-any-whitespace"])
    return CompactJson(
        note=(
            f"vLLM {shown} cannot disable whitespace in JSON grammars (that came in 0.8.2); "
            "--compact-json is ignored. Upgrade vLLM to use it."
        )
    )
