"""How vLLM reads a command-line flag's name, to tell whether the user already gave one."""

from __future__ import annotations

__all__ = ["flag_name"]


def flag_name(arg: str) -> str:
    """The flag an argument names, spelled the way vLLM's parser treats it.

    vLLM's argparse accepts `--flag=value` and underscores for dashes, so `--max_model_len=8`
    and `--max-model-len` are the same flag.
    """
    return arg.partition("=")[0].replace("_", "-")
