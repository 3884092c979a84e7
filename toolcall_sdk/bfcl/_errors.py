"""Errors of the BFCL data loader."""

from __future__ import annotations

from toolcall_sdk._errors import ToolCallError

__all__ = ["BfclDataError", "BfclNotInstalledError"]

#: The install line for the BFCL data; `--no-deps` because a plain install pulls CUDA torch
#: and every provider SDK, none of which the data needs.
BFCL_INSTALL = "pip install --no-deps bfcl-eval==2026.3.23"


class BfclDataError(ToolCallError):
    """The BFCL data could not be read (unknown category, malformed file)."""


class BfclNotInstalledError(BfclDataError):
    """The `bfcl-eval` package, which carries the BFCL data files, is not installed."""

    def __init__(self) -> None:
        super().__init__(
            f"the BFCL data comes from the bfcl-eval package, which is not installed: "
            f"run `{BFCL_INSTALL}`"
        )
