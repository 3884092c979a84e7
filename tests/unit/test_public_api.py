"""The public surface: exported names, import cost, the CLI entry point."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

from typer.testing import CliRunner

import toolcall_sdk
from toolcall_sdk import ToolCallError
from toolcall_sdk.cli import app

DOCS = Path(__file__).parents[2] / "docs"

# The public homes docs link to (STYLE.md: layout); some names are re-exported at the top.
PUBLIC_HOMES = ("errors", "events", "grounding", "parsing", "routing", "testing")
DOCUMENTED = [Path(__file__).parents[2] / "README.md", *sorted(DOCS.glob("*.md"))]
# `from toolcall_sdk.X import a, b` or `from toolcall_sdk.X import (a, b, ...)`.
IMPORT = re.compile(r"from (toolcall_sdk(?:\.\w+)*) import (\([^)]*\)|[\w, ]+)")


def test_exported_members() -> None:
    # `_LAZY` is the one list of exported names; `__all__` adds only the version.
    assert set(toolcall_sdk.__all__) == set(toolcall_sdk._LAZY) | {"__version__"}
    assert toolcall_sdk.__all__ == sorted(toolcall_sdk.__all__)
    assert list(toolcall_sdk._LAZY) == sorted(toolcall_sdk._LAZY)
    for name in toolcall_sdk.__all__:
        assert hasattr(toolcall_sdk, name), name


def test_api_v0_names_are_exported() -> None:
    # DESIGN.md's public API v0: a contract, so a rename fails here as well as in the docs.
    v0 = {"ToolCallClient", "AsyncToolCallClient", "tool", "ToolCallError", "ToolCallFailed"}
    v0 |= {"MaxStepsExceeded", "UsageLimitExceeded", "LoopDetected", "ApprovalRequired"}
    v0 |= {"PromptEmbedsError"}
    assert v0 <= set(toolcall_sdk.__all__)


def test_each_name_is_exported_by_its_home() -> None:
    # A lazy name whose module is a public home (not `_private`) must be in that home's
    # `__all__` and be the same object there, so docs can link to the home.
    for name, module_name in toolcall_sdk._LAZY.items():
        if any(part.startswith("_") for part in module_name.split(".")[1:]):
            continue
        home = importlib.import_module(module_name)
        assert name in home.__all__, f"{module_name} does not export {name}"
        assert getattr(home, name) is getattr(toolcall_sdk, name), name


def test_public_homes_export_what_they_hold() -> None:
    # No public name is imported into a home without being exported, nor exported twice.
    for home_name in PUBLIC_HOMES:
        home = importlib.import_module(f"toolcall_sdk.{home_name}")
        held = {
            name
            for name, value in vars(home).items()
            if not name.startswith("_")
            and not isinstance(value, types.ModuleType)
            and name != "annotations"
        }
        assert set(home.__all__) == held, home_name
        assert len(home.__all__) == len(set(home.__all__)), home_name


def test_names_the_docs_import_are_exported_there() -> None:
    # Every `from toolcall_sdk... import name` in README.md and docs/ names a module that
    # exports it: a doc that imports a private or renamed name fails here.
    seen = 0
    for page in DOCUMENTED:
        for module_name, names in IMPORT.findall(page.read_text()):
            module = importlib.import_module(module_name)
            exported = getattr(module, "__all__", None)
            for name in re.findall(r"\w+", names):
                seen += 1
                assert hasattr(module, name), f"{page.name}: {module_name}.{name}"
                if exported is not None:
                    assert name in exported, f"{page.name}: {module_name} does not export {name}"
    assert seen > 50


def test_every_error_derives_from_the_root() -> None:
    exported = [getattr(toolcall_sdk, name) for name in toolcall_sdk.__all__]
    errors = [
        obj
        for obj in exported
        if isinstance(obj, type)
        and issubclass(obj, Exception)
        and obj is not toolcall_sdk.ModelRetry
    ]
    assert len(errors) > 30
    assert all(issubclass(error, ToolCallError) for error in errors)
    assert not issubclass(toolcall_sdk.ModelRetry, ToolCallError)  # a signal, not an error


def test_import_stays_light() -> None:
    code = (
        "import sys, toolcall_sdk; "
        "heavy = [m for m in ('torch', 'vllm', 'transformers', 'sentence_transformers') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_names_load_on_first_use() -> None:
    # `import toolcall_sdk` (and so `toolcall-sdk --help`) does not pay for openai; the
    # first exported name that needs it brings it in, and `import *` gives every name.
    code = (
        "import sys, toolcall_sdk; before = 'openai' in sys.modules; "
        "from toolcall_sdk import *; "
        "print(before, 'openai' in sys.modules, ToolCallClient.__module__, "
        "sorted(set(toolcall_sdk.__all__) - set(dir(toolcall_sdk))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True toolcall_sdk._client []"


def test_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(toolcall_sdk, "NoSuchName")


def test_cli_version_and_help() -> None:
    runner = CliRunner()
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0
    assert version.stdout.strip() == f"toolcall-sdk {toolcall_sdk.__version__}"
    helptext = runner.invoke(app, ["--help"])
    assert helptext.exit_code == 0
    for command in ("launch", "doctor", "eval"):
        assert command in helptext.stdout
    assert "not yet available" not in helptext.stdout


def test_eval_without_cases_says_what_to_give() -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "m"])
    assert result.exit_code == 2
    assert "give a case file" in result.output


def test_public_homes_hold_the_same_objects_as_the_package() -> None:
    import toolcall_sdk.errors
    import toolcall_sdk.events
    import toolcall_sdk.parsing
    import toolcall_sdk.routing
    import toolcall_sdk.testing

    homes = {
        "errors": toolcall_sdk.errors,
        "events": toolcall_sdk.events,
        "routing": toolcall_sdk.routing,
    }
    for home in homes.values():
        for name in home.__all__:
            if name in toolcall_sdk.__all__:
                assert getattr(home, name) is getattr(toolcall_sdk, name), name
    assert "ToolCallFailed" in toolcall_sdk.errors.__all__
    assert "StreamCompleted" in toolcall_sdk.events.__all__
    assert {"LLMRouter", "HybridRouter", "EmbeddingRouter", "RouteDecision"} <= set(
        toolcall_sdk.routing.__all__
    )
    assert "StreamParser" in toolcall_sdk.parsing.__all__
    assert "ScriptedModel" in toolcall_sdk.testing.__all__
