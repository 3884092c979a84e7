"""The case files that come with toolcall-sdk, and what to say when a case file is missing.

They live in the repository's `evals/` folder, next to the package in a checkout (or an
editable install); a wheel does not carry them (they are data, not the library).
"""

from __future__ import annotations

import os
from pathlib import Path

from toolcall_sdk._errors import ToolCallError

__all__ = ["CaseFileNotFoundError", "bundled_case_files", "missing_case_file"]

_EVALS = Path(__file__).resolve().parents[2] / "evals"


class CaseFileNotFoundError(ToolCallError, FileNotFoundError):
    """No case file at the path given; the message lists the bundled ones."""


def bundled_case_files() -> list[Path]:
    """The bundled case files, shown relative to the working directory when under it."""
    found = sorted(_EVALS.glob("*.jsonl")) if _EVALS.is_dir() else []
    here = Path.cwd().resolve()
    return [path.relative_to(here) if path.is_relative_to(here) else path for path in found]


def missing_case_file(path: str | os.PathLike[str]) -> CaseFileNotFoundError:
    """The error for a case file that is not there: what to give instead, and the choices."""
    bundled = bundled_case_files()
    listed = (
        "Bundled case files: " + ", ".join(str(p) for p in bundled)
        if bundled
        else "The bundled case files are in the evals/ folder of a toolcall-sdk checkout"
    )
    return CaseFileNotFoundError(
        f"no case file at {os.fspath(path)}; give a JSONL case file or --bfcl CATEGORY. {listed}"
    )
