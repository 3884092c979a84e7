"""Importing optional dependencies with an error that says which extra to install.

The install command depends on how this copy of toolcall-sdk was installed: an extra of a
copy that came from a package index comes from there (`pip install "toolcall-sdk[cli]"`),
but a checkout, an editable install or an install from a folder has no release to resolve
on an index, and that command fails there (`No matching distribution found`). For those,
`install_command` names the folder (`pip install -e "/path/to/checkout[cli]"`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from toolcall_sdk._errors import ToolCallError

__all__ = [
    "DISTRIBUTION",
    "InstallSource",
    "MissingDependencyError",
    "find_source",
    "install_command",
    "install_source",
    "require",
    "require_installed",
]

# The name the package is published and installed under.
DISTRIBUTION = "toolcall-sdk"
# The folder this module lives in: `toolcall_sdk/`, inside a checkout or site-packages.
_PACKAGE_DIR = Path(__file__).resolve().parent


class _Metadata(Protocol):
    """What is read from an installed distribution (an `importlib.metadata.Distribution`)."""

    def read_text(self, filename: str) -> str | None: ...


@dataclass(frozen=True, slots=True)
class InstallSource:
    """Where a copy of the package was installed from, as pip needs it to add an extra.

    Attributes:
        requirement: What goes in `pip install "..."` before the extra: a folder, the
            distribution name, or `toolcall-sdk @ URL`.
        editable: The folder is installed in place (`pip install -e`).
    """

    requirement: str
    editable: bool = False

    def command(self, extra: str) -> str:
        """The `pip install` command that adds `extra` to this copy."""
        name, at, url = self.requirement.partition(" @ ")
        if at:  # a direct URL: the extra goes on the name
            return f'pip install "{name}[{extra}] @ {url}"'
        flag = "-e " if self.editable else ""
        return f'pip install {flag}"{self.requirement}[{extra}]"'


def find_source(package_dir: Path, metadata: _Metadata | None) -> InstallSource:
    """Find how the package in `package_dir` was installed.

    Args:
        package_dir: The package's folder (`.../toolcall_sdk`).
        metadata: The installed distribution's metadata, or None when none is installed
            (a checkout on `PYTHONPATH`).

    Returns:
        The checkout when the package runs from a source tree (an editable install, or
        `PYTHONPATH`); else the folder or URL the distribution was installed from (its
        `direct_url.json`, PEP 610); else the distribution name, for a package index.
    """
    root = package_dir.parent
    if _is_checkout(root):
        return InstallSource(str(root), editable=True)
    direct = _direct_url(metadata)
    return _from_direct_url(direct) if direct else InstallSource(DISTRIBUTION)


@functools.cache
def install_source() -> InstallSource:
    """How this copy of toolcall-sdk was installed (looked up once)."""
    return find_source(_PACKAGE_DIR, _installed_metadata())


def install_command(extra: str) -> str:
    """The command that installs an extra of this copy of toolcall-sdk.

    `pip install "toolcall-sdk[cli]"` when it came from a package index;
    `pip install -e "/path/to/checkout[cli]"` for a checkout or an editable install.

    Args:
        extra: The extra's name in pyproject.toml (`cli`, `serve`, `embeds`, ...).
    """
    return install_source().command(extra)


# The standard-library modules below are imported when an install command is first asked
# for (an error being raised), not with this module: it is imported by the command line's
# entry point and by every optional feature.


def _installed_metadata() -> _Metadata | None:
    import importlib.metadata

    try:
        return importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def _is_checkout(root: Path) -> bool:
    """`root` is this project's source tree: its pyproject.toml names the distribution."""
    import tomllib

    try:
        with (root / "pyproject.toml").open("rb") as file:
            project = tomllib.load(file).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(project, dict) and project.get("name") == DISTRIBUTION


def _direct_url(metadata: _Metadata | None) -> dict[str, Any] | None:
    """PEP 610's record of a distribution installed from a folder or URL, if any."""
    import json

    try:
        text = metadata.read_text("direct_url.json") if metadata is not None else None
        data = json.loads(text) if text else None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("url"), str) else None


def _from_direct_url(direct: dict[str, Any]) -> InstallSource:
    from urllib.parse import unquote, urlparse

    url: str = direct["url"]
    dir_info = direct.get("dir_info")
    if isinstance(dir_info, dict):
        parsed = urlparse(url)
        folder = Path(unquote(parsed.path)) if parsed.scheme == "file" else None
        if folder is not None and _is_checkout(folder):
            return InstallSource(str(folder), editable=bool(dir_info.get("editable")))
        return InstallSource(DISTRIBUTION)  # the folder is gone: name the distribution
    vcs = direct.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        revision = vcs.get("requested_revision")
        url = f"{vcs['vcs']}+{url}" + (f"@{revision}" if isinstance(revision, str) else "")
    return InstallSource(f"{DISTRIBUTION} @ {url}")


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


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import `module`, or raise `MissingDependencyError` naming the install of `extra`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(module, install_command(extra), feature) from exc


def require_installed(modules: Iterable[str], *, extra: str, feature: str) -> None:
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
            raise MissingDependencyError(module, install_command(extra), feature)
