"""Importing optional dependencies with an error that says which extra to install."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable
from types import ModuleType

from toolcall_sdk._errors import ToolCallError

__all__ = ["MissingDependencyError", "require", "require_installed"]


class MissingDependencyError(ToolCallError, ImportError):
    """An optional dependency is not installed.

    Attributes:
        module: The module that could not be imported.
        install: The command that installs it.
    """

    def __init__(self, module: str, install: str, feature: str) -> None:
        super().__init__(f"{feature} needs {module!r}, which is not installed: run `{install}`")
        self.module = module
        self.install = install


def require(module: str, *, install: str, feature: str) -> ModuleType:
    """Import `module`, or raise `MissingDependencyError` naming `install`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(module, install, feature) from exc


def require_installed(modules: Iterable[str], *, install: str, feature: str) -> None:
    """Check that `modules` are installed without importing them.

    For constructors that import heavy modules on first use: the error names the extra when
    the object is made, not at its first call, and construction stays cheap.

    Raises:
        MissingDependencyError: The first module that is not installed.
    """
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package missing, or a broken entry
            found = False
        if not found:
            raise MissingDependencyError(module, install, feature)
