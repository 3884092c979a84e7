"""What a tool's schema and arguments model say about each argument, by field path.

Built once per tool: the schema sent to the server gives a field's `pattern` (an
identifier), its `format` (`date`, `email`, ...), the date layout its description asks
for, and whether its values are fixed choices
(`enum`, `const`: the schema itself gives them, so they are grounded by definition); the
arguments model adds the `Grounded()`/`Derived()` markers and the defaults (a default is
the developer's value, never an invention of the model).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from toolcall_sdk._date_layouts import DateLayout, parameter_layout
from toolcall_sdk.grounding._markers import ANY_ITEM, Mark, markers_of

__all__ = ["Plan", "Rule", "plan_for"]

# Schemas nest a few levels; a recursive one must not be walked forever.
_MAX_DEPTH = 16


@dataclass(frozen=True, slots=True)
class Rule:
    """What is known of one field path.

    Attributes:
        mark: `grounded`, `derived` or None.
        default: The field's default (`PydanticUndefined` when it has none).
        pattern: The schema's `pattern`, if any.
        prefix: The literal start the pattern fixes (`CUS-` for `^CUS-\\d{6}$`): the
            schema gives it, so only the rest must come from the conversation.
        choices: The schema fixes the values (`enum`, `const`).
        format: The schema's string `format`, if any.
        layout: The date layout a free string's description asks for (`mm-dd-yyyy`), if
            any: a value written so is a date (`_date_layouts`).
    """

    mark: Mark | None = None
    default: Any = PydanticUndefined
    pattern: str | None = None
    prefix: str = ""
    choices: bool = False
    format: str | None = None
    layout: DateLayout | None = None


Plan = Mapping[tuple[str, ...], Rule]


def plan_for(model: type[BaseModel] | None, parameters: Mapping[str, Any]) -> Plan:
    """The rules of every field path of a tool with this schema and arguments model."""
    rules: dict[tuple[str, ...], Rule] = {}
    _walk(parameters, parameters, (), rules, 0)
    if model is not None:
        for path, marks in markers_of(model).items():
            rule = rules.get(path, Rule())
            # An optional field's None default says nothing; a stated one does.
            given = marks.default is not PydanticUndefined and marks.default is not None
            default = marks.default if given else rule.default
            rules[path] = replace(rule, mark=marks.mark or rule.mark, default=default)
    return rules


def _walk(
    node: Any,
    root: Mapping[str, Any],
    path: tuple[str, ...],
    rules: dict[tuple[str, ...], Rule],
    depth: int,
) -> None:
    if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
        return
    node = _resolve(node, root)
    branches = [b for key in ("anyOf", "oneOf", "allOf") for b in node.get(key) or ()]
    if branches:
        for branch in branches:
            _walk(branch, root, path, rules, depth + 1)
    if path and not _is_null(node):
        rules[path] = _merge(rules.get(path), _rule_of(node), bool(branches))
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        for key, child in properties.items():
            _walk(child, root, (*path, str(key)), rules, depth + 1)
    items = node.get("items")
    if isinstance(items, Mapping):
        _walk(items, root, (*path, ANY_ITEM), rules, depth + 1)
    for item in node.get("prefixItems") or ():
        _walk(item, root, (*path, ANY_ITEM), rules, depth + 1)


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part) if isinstance(target, Mapping) else None
    return target if isinstance(target, Mapping) else node


def _is_null(node: Mapping[str, Any]) -> bool:
    return node.get("type") == "null"


def _rule_of(node: Mapping[str, Any]) -> Rule:
    pattern = node.get("pattern")
    pattern = pattern if isinstance(pattern, str) else None
    fmt = node.get("format")
    return Rule(
        default=node["default"] if "default" in node else _described_default(node),
        pattern=pattern,
        prefix=literal_prefix(pattern) if pattern else "",
        choices="enum" in node or "const" in node,
        format=fmt if isinstance(fmt, str) else None,
        layout=parameter_layout(node),
    )


# `Default is 2.`, `default value is 9.81 m/s^2`, `Default factor is 355.48`, `defaults to
# 'NASDAQ'`, `(default: 10)`: a tool that states its default in words gives that value as
# surely as a `default` key. The first number (or quoted word) soon after "default" is it.
_DESCRIBED_DEFAULT = re.compile(
    r"\bdefault(?:s|ed)?\b[^.;'\"\d]{0,40}?"
    r"(?:(?P<number>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.]\w)|['\"](?P<text>[^'\"]{1,64})['\"])",
    re.IGNORECASE,
)


def _described_default(node: Mapping[str, Any]) -> Any:
    description = node.get("description")
    if not isinstance(description, str):
        return PydanticUndefined
    match = _DESCRIBED_DEFAULT.search(description)
    if match is None:
        return PydanticUndefined
    if match["number"] is not None:
        return Decimal(match["number"])
    return match["text"]


def _merge(known: Rule | None, new: Rule, has_branches: bool) -> Rule:
    if known is None:
        return new
    return Rule(
        default=known.default if known.default is not PydanticUndefined else new.default,
        pattern=known.pattern or new.pattern,
        prefix=known.prefix or new.prefix,
        # Fixed only when every branch fixes it (`enum | free string` is free); the node
        # holding the `anyOf` fixes nothing itself, its branches decide.
        choices=known.choices if has_branches else known.choices and new.choices,
        format=known.format or new.format,
        layout=known.layout or new.layout,
    )


_LITERAL = re.compile(r"(?:[A-Za-z0-9 _\-#/:@]|\\[-./#:@_ ])+")


def literal_prefix(pattern: str) -> str:
    """The fixed text a `pattern` starts with: `CUS-` for `^CUS-\\d{6}$`; empty when
    the pattern starts with anything but literal text."""
    if not pattern.startswith("^"):
        return ""
    match = _LITERAL.match(pattern, 1)
    if match is None:
        return ""
    literal = match.group()
    # A quantifier right after the run applies to its last character: not fixed.
    rest = pattern[match.end() :]
    if rest[:1] in ("*", "+", "?", "{"):
        literal = literal[:-1]
    return literal.replace("\\", "")
