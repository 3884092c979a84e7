"""Install hints name a command that works for the way this copy was installed.

Each install method is simulated: a folder standing for site-packages or a checkout, and a
real `importlib.metadata.PathDistribution` over a `.dist-info` folder written here (with
or without PEP 610's `direct_url.json`). Nothing is installed.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolcall_sdk
from toolcall_sdk import install_command
from toolcall_sdk._extras import InstallSource, find_source

ROOT = Path(__file__).resolve().parents[3]
# This test run imports the package from the checkout it lives in (not a wheel).
FROM_CHECKOUT = Path(toolcall_sdk.__file__).resolve().parents[1] == ROOT


def dist_info(site: Path, direct_url: dict[str, Any] | None = None) -> Any:
    """The metadata of an installed toolcall-sdk in `site`, as importlib reads it."""
    info = site / "toolcall_sdk-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toolcall-sdk\nVersion: 0.1.0\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return importlib.metadata.PathDistribution(info)


def checkout(parent: Path, name: str = "toolcall-sdk checkout") -> Path:
    """A source tree of the project (a space in its path, as users' folders have)."""
    root = parent / name
    (root / "toolcall_sdk").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "toolcall-sdk"\n')
    return root


def installed_package(site: Path) -> Path:
    package = site / "toolcall_sdk"
    package.mkdir(parents=True, exist_ok=True)
    return package


def test_an_index_install_names_the_index_package(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    source = find_source(installed_package(site), dist_info(site))

    assert source == InstallSource("toolcall-sdk")
    assert source.command("cli") == 'pip install "toolcall-sdk[cli]"'
    assert source.command("embeds") == 'pip install "toolcall-sdk[embeds]"'


def test_a_checkout_on_the_path_names_its_folder(tmp_path: Path) -> None:
    root = checkout(tmp_path)

    source = find_source(root / "toolcall_sdk", None)

    assert source.command("cli") == f'pip install -e "{root}[cli]"'
    assert source.command("serve") == f'pip install -e "{root}[serve]"'


def test_an_editable_install_names_the_folder_its_metadata_records(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    site = tmp_path / "site-packages"
    metadata = dist_info(site, {"url": root.as_uri(), "dir_info": {"editable": True}})

    # The package found somewhere else than the folder (an import hook, a src layout):
    # the metadata still says where the project is.
    source = find_source(installed_package(site), metadata)

    assert source.command("cli") == f'pip install -e "{root}[cli]"'


def test_an_install_from_a_folder_names_the_folder_without_e(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    site = tmp_path / "site-packages"
    metadata = dist_info(site, {"url": root.as_uri(), "dir_info": {}})

    source = find_source(installed_package(site), metadata)

    assert source.command("embeds") == f'pip install "{root}[embeds]"'


def test_an_install_from_git_names_the_repository(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    direct = {
        "url": "https://example.invalid/toolcall-sdk.git",
        "vcs_info": {"vcs": "git", "requested_revision": "v0.1.0", "commit_id": "0" * 40},
    }
    source = find_source(installed_package(site), dist_info(site, direct))

    assert source.command("cli") == (
        'pip install "toolcall-sdk[cli] @ git+https://example.invalid/toolcall-sdk.git@v0.1.0"'
    )


def test_a_folder_that_is_gone_or_another_project_falls_back_to_the_name(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    gone = dist_info(site, {"url": (tmp_path / "gone").as_uri(), "dir_info": {"editable": True}})
    assert find_source(installed_package(site), gone) == InstallSource("toolcall-sdk")

    other = tmp_path / "other"
    (other / "toolcall_sdk").mkdir(parents=True)
    (other / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    assert find_source(other / "toolcall_sdk", None) == InstallSource("toolcall-sdk")


@pytest.mark.skipif(not FROM_CHECKOUT, reason="the package is not imported from this checkout")
def test_this_copy_names_this_checkout() -> None:
    assert install_command("cli") == f'pip install -e "{ROOT}[cli]"'


@pytest.mark.skipif(not FROM_CHECKOUT, reason="the package is not imported from this checkout")
def test_the_missing_cli_line_names_this_checkout() -> None:
    code = (
        "import sys; sys.modules['typer'] = None; sys.argv = ['toolcall-sdk', 'doctor']\n"
        "from toolcall_sdk.__main__ import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "toolcall-sdk: the command line needs 'typer', which is not installed: "
        f'run `pip install -e "{ROOT}[cli]"`'
    ]


def _code_strings(path: Path) -> list[str]:
    """The string literals of a module that are not docstrings (what it can print)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_every_printed_install_hint_of_an_extra_comes_from_install_command() -> None:
    # A hint written out by hand names the index, which has no release for a checkout.
    files = sorted([*(ROOT / "toolcall_sdk").rglob("*.py"), *(ROOT / "examples").glob("*.py")])
    written = [
        f"{path.relative_to(ROOT)}: {text!r}"
        for path in files
        for text in _code_strings(path)
        if "toolcall-sdk[" in text
    ]
    assert written == []
