"""Reading the sync and async twins of a module side by side (for `test_twin_parity`).

Each async twin is turned into sync code by fixed rules, on its syntax tree: `await x`
becomes `x`; `async def`, `async for` and `async with` lose `async`; a name with an async
mark (`aX`, `_aX`, `_AX`, `__aX__`, `AsyncX`, `async_X`, `X_async`) becomes the unmarked name
when the sync twin uses that name. Docstrings are dropped (they say "the async twin of"),
and both sides are printed by `ast.unparse`, so layout and comments do not count. What is
left of the difference is the twins' real difference, line by line.

Twins are found by name: in a module or a class, a function or class whose name, unmarked,
is another's name there; in a pair of twin classes, the methods of the same unmarked name.
"""

from __future__ import annotations

import ast
import copy
import difflib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_Unit = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True)
class TwinPair:
    """One sync unit and its async twin, and what differs once the twin is made sync.

    Attributes:
        name: `module:Qualname` of the sync twin (the key of the allow-list).
        lines: The sync twin's line count in the source.
        diff: `- line` (the sync twin's) and `+ line` (the converted async twin's).
    """

    name: str
    lines: int
    diff: tuple[str, ...]


def unmarked(name: str, known: set[str]) -> str:
    """`name` without its async mark, when the sync side knows the result; else `name`."""
    candidates = []
    if name.startswith("__a") and name.endswith("__"):
        candidates.append("__" + name[3:])
    if name.startswith("Async"):
        candidates.append(name[5:])
    if name.startswith("async_"):
        candidates.append(name[6:])
    if name.endswith("_async"):
        candidates.append(name[:-6])
    if name.startswith("_a") or (name.startswith("_A") and name[2:3].isupper()):
        candidates.append("_" + name[2:])
    if name.startswith("a"):
        candidates.append(name[1:])
    return next((c for c in candidates if c and c in known), name)


class _ToSync(ast.NodeTransformer):
    def __init__(self, known: set[str]) -> None:
        self.known = known

    def _name(self, name: str) -> str:
        return unmarked(name, self.known)

    def visit_Await(self, node: ast.Await) -> ast.AST:
        value: ast.AST = self.visit(node.value)
        return value

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        self.generic_visit(node)
        sync = ast.FunctionDef(**{f: getattr(node, f) for f in node._fields})
        sync.name = self._name(node.name)
        return ast.copy_location(sync, node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self._name(node.name)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self._name(node.name)
        return node

    def visit_AsyncFor(self, node: ast.AsyncFor) -> ast.AST:
        self.generic_visit(node)
        return ast.copy_location(ast.For(**{f: getattr(node, f) for f in node._fields}), node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> ast.AST:
        self.generic_visit(node)
        return ast.copy_location(ast.With(**{f: getattr(node, f) for f in node._fields}), node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._name(node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self._name(node.attr)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        self.generic_visit(node)
        node.arg = self._name(node.arg)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        if node.arg is not None:
            node.arg = self._name(node.arg)
        return node


class _NoDocstrings(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if (
            isinstance(node, _Unit)
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
        return node


def _names(node: ast.AST) -> set[str]:
    found: set[str] = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Name):
            found.add(item.id)
        elif isinstance(item, ast.Attribute):
            found.add(item.attr)
        elif isinstance(item, _Unit):
            found.add(item.name)
        elif isinstance(item, ast.arg | ast.keyword) and item.arg is not None:
            found.add(item.arg)
    return found


def _code(node: ast.AST) -> list[str]:
    return ast.unparse(_NoDocstrings().visit(node)).splitlines()


def _compare(name: str, sync: _Unit, twin: _Unit) -> TwinPair:
    known = _names(sync)
    converted = _ToSync(known).visit(copy.deepcopy(twin))
    left, right = _code(copy.deepcopy(sync)), _code(converted)
    diff = tuple(
        f"{line[0]} {line[1:].strip()}"
        for line in difflib.unified_diff(left, right, n=0, lineterm="")
        if line[:1] in "-+" and not line.startswith(("---", "+++"))
    )
    assert sync.end_lineno is not None
    return TwinPair(name, sync.end_lineno - sync.lineno + 1, diff)


def _units(body: list[ast.stmt]) -> dict[str, _Unit]:
    return {n.name: n for n in body if isinstance(n, _Unit)}


def _scope_pairs(prefix: str, units: dict[str, _Unit]) -> list[tuple[str, _Unit, _Unit]]:
    pairs = []
    for name, unit in units.items():
        sync_name = unmarked(name, set(units) - {name})
        if sync_name != name:
            pairs.append((f"{prefix}{sync_name}", units[sync_name], unit))
    return pairs


@dataclass(frozen=True)
class ModuleTwins:
    """Every twin pair of a module, and the methods of twin classes that only one has."""

    pairs: list[TwinPair]
    one_sided: list[str]


def module_twins(path: str) -> ModuleTwins:
    """The twins of the module at `path` (relative to the repository root)."""
    tree = ast.parse((ROOT / path).read_text())
    module = path.removesuffix(".py").replace("/", ".")
    pairs: list[TwinPair] = []
    one_sided: list[str] = []
    top = _units(tree.body)
    paired_classes: set[str] = set()
    for name, sync, twin in _scope_pairs(f"{module}:", top):
        if isinstance(sync, ast.ClassDef) and isinstance(twin, ast.ClassDef):
            paired_classes |= {sync.name, twin.name}
            sync_methods, twin_methods = _units(sync.body), _units(twin.body)
            matched: set[str] = set()
            for method_name, method in twin_methods.items():
                plain = unmarked(method_name, set(sync_methods))
                if plain in sync_methods and (plain == method_name or plain not in twin_methods):
                    matched.add(plain)
                    pairs.append(_compare(f"{name}.{plain}", sync_methods[plain], method))
                else:
                    one_sided.append(f"{module}:{twin.name}.{method_name}")
            one_sided += [f"{name}.{m}" for m in sync_methods if m not in matched]
        else:
            pairs.append(_compare(name, sync, twin))
    for class_name, unit in top.items():
        if isinstance(unit, ast.ClassDef) and class_name not in paired_classes:
            for name, sync, twin in _scope_pairs(f"{module}:{class_name}.", _units(unit.body)):
                pairs.append(_compare(name, sync, twin))
    return ModuleTwins(pairs, one_sided)
