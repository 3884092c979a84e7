"""The drawn error trees (docs/errors.md, `toolcall_sdk._errors`' docstring) match the classes."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import toolcall_sdk
import toolcall_sdk._errors
from toolcall_sdk import ModelRetry, ToolCallError

ERRORS_MD = Path(__file__).parents[2] / "docs" / "errors.md"
# A node: the drawing (`│   ├── `), then the class name. Four characters per level.
NODE = re.compile(r"^(?P<drawing>[│├└─ ]*)(?P<name>[A-Z]\w+)")


def _all_errors() -> dict[str, type[ToolCallError]]:
    """Every `ToolCallError` subclass the package defines, by name (each module imported)."""
    for module in pkgutil.walk_packages(toolcall_sdk.__path__, "toolcall_sdk."):
        try:
            importlib.import_module(module.name)
        except ImportError:  # an optional dependency (vllm) this machine lacks
            continue
    found: dict[str, type[ToolCallError]] = {}
    todo = [ToolCallError]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("toolcall_sdk"):
                assert found.setdefault(sub.__name__, sub) is sub, f"two errors {sub.__name__}"
                todo.append(sub)
    return found


def _trees(text: str) -> list[list[tuple[int, str]]]:
    """Each drawn tree in `text` (a block whose first line is `ToolCallError`), as
    (depth, name) nodes in order."""
    trees: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] | None = None
    for raw in text.splitlines():
        line = raw.strip("\n")
        stripped = line.lstrip(" ")
        if stripped == "ToolCallError" or stripped.startswith("ToolCallError "):
            indent = len(line) - len(stripped)
            current = [(0, "ToolCallError")]
            trees.append(current)
            continue
        if current is None:
            continue
        match = NODE.match(line[indent:])
        if match is None or not match["drawing"].strip():
            current = None  # the tree ended
            continue
        current.append((len(match["drawing"]) // 4, match["name"]))
    return trees


def _check(tree: list[tuple[int, str]], errors: dict[str, type[ToolCallError]]) -> set[str]:
    """Assert each drawn parent is a direct base of its child; return the names drawn."""
    parents: list[str] = []
    drawn: set[str] = set()
    for depth, name in tree:
        del parents[depth:]
        if depth:
            cls = errors[name] if name != "ToolCallError" else ToolCallError
            parent = errors.get(parents[-1], ToolCallError)
            assert parent in cls.__bases__, f"{name} is drawn under {parents[-1]}"
            drawn.add(name)
        parents.append(name)
    return drawn


def test_the_errors_page_draws_every_error() -> None:
    errors = _all_errors()
    trees = _trees(ERRORS_MD.read_text())
    assert len(trees) == 2  # the library's, the tooling's
    drawn = set().union(*(_check(tree, errors) for tree in trees))
    assert drawn == set(errors)


def test_the_errors_module_draws_every_error() -> None:
    errors = _all_errors()
    trees = _trees(toolcall_sdk._errors.__doc__ or "")
    assert len(trees) == 2
    library, tooling = (_check(tree, errors) for tree in trees)
    assert library == {
        name for name, cls in errors.items() if cls.__module__ == "toolcall_sdk._errors"
    }
    assert library | tooling == set(errors)


def test_every_error_has_the_one_root_and_retry_is_not_one() -> None:
    # Rooted together on purpose (docs/errors.md, "The tooling's errors").
    assert all(issubclass(cls, ToolCallError) for cls in _all_errors().values())
    assert not issubclass(ModelRetry, ToolCallError)
