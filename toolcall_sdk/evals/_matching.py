"""Comparing the calls a model made with the calls a case expects.

Arguments are compared in JSON-normal form (what `model_dump(mode="json")` gives after
validation: dates as ISO strings, enums as their values). Numbers compare by value
(`5 == 5.0`), booleans never equal numbers. The calls of one answer match in any order.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolcall_sdk.evals._cases import OMITTED, ExpectedCall

__all__ = ["MadeCall", "Matcher", "Mismatch", "json_equal", "match_calls"]

# Above this many calls of one tool in one answer, order-free matching stops trying every
# pairing (n! grows fast) and pairs them in order.
_MAX_PERMUTED_CALLS = 6


@dataclass(frozen=True, slots=True)
class MadeCall:
    """A call the model made, arguments in JSON-normal form.

    Attributes:
        name: The tool name the model used.
        arguments: The arguments (after validation for the SDK pipelines).
    """

    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why the calls made are not the calls expected.

    Attributes:
        kind: `wrong_tool` (other tools, or another number of calls) or `wrong_args`.
        message: A short reason that groups across cases (`due_date: value not accepted`).
        detail: The specifics of this case (the value sent and the values accepted).
        field: The parameter at fault for `wrong_args`.
        tool: The tool concerned.
    """

    kind: Literal["wrong_tool", "wrong_args"]
    message: str
    detail: str = ""
    field: str | None = None
    tool: str | None = None


Matcher = Callable[[Sequence[ExpectedCall], Sequence[MadeCall]], Mismatch | None]
"""Compares expected and made calls; None means they match."""


def json_equal(left: Any, right: Any) -> bool:
    """Deep equality of JSON values; `1 == 1.0`, but `True != 1`."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return float(left) == float(right)
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        if len(left) != len(right):
            return False
        return all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and bool(left == right)


def match_calls(expected: Sequence[ExpectedCall], made: Sequence[MadeCall]) -> Mismatch | None:
    """The exact matcher: same tools, each argument among its acceptable values.

    Returns:
        None when the calls match; else the first reason they do not.
    """
    wanted = Counter(call.name for call in expected)
    got = Counter(call.name for call in made)
    if wanted != got:
        return _tool_mismatch(expected, made)
    first: Mismatch | None = None
    for name in wanted:
        exp = [c for c in expected if c.name == name]
        mine = [c for c in made if c.name == name]
        found = _pair(exp, mine)
        if found is not None and first is None:
            first = found
    return first


def _pair(expected: list[ExpectedCall], made: list[MadeCall]) -> Mismatch | None:
    orders: Any = (
        itertools.permutations(made) if len(made) <= _MAX_PERMUTED_CALLS else [tuple(made)]
    )
    first: Mismatch | None = None
    for order in orders:
        problem = None
        for exp, call in zip(expected, order, strict=True):
            problem = check_arguments(exp, call.arguments)
            if problem is not None:
                break
        if problem is None:
            return None
        if first is None:
            first = problem
    return first


def check_arguments(expected: ExpectedCall, arguments: Mapping[str, Any]) -> Mismatch | None:
    """Compare one call's arguments with the acceptable values.

    Returns:
        None when they are acceptable, else a `wrong_args` mismatch naming the field.
    """
    name = expected.name
    for key in arguments:
        if key not in expected.accept:
            return Mismatch(
                "wrong_args",
                f"{key}: unexpected parameter",
                f"{key}={arguments[key]!r} was sent but is not expected",
                field=key,
                tool=name,
            )
    for key, values in expected.accept.items():
        if key not in arguments:
            if any(_is_omitted(v) for v in values):
                continue
            return Mismatch(
                "wrong_args",
                f"{key}: missing",
                f"{key} is required; accepted: {_short(values)}",
                field=key,
                tool=name,
            )
        value = arguments[key]
        if value is None and any(_is_omitted(v) for v in values):
            continue  # null for an optional parameter means "not given"
        if not any(json_equal(value, v) for v in values if not _is_omitted(v) or value == ""):
            return Mismatch(
                "wrong_args",
                f"{key}: value not accepted",
                f"{key}={_short(value)}; accepted: {_short(values)}",
                field=key,
                tool=name,
            )
    return None


def _is_omitted(value: Any) -> bool:
    return isinstance(value, str) and value == OMITTED


def _tool_mismatch(expected: Sequence[ExpectedCall], made: Sequence[MadeCall]) -> Mismatch:
    want = [c.name for c in expected]
    got = [c.name for c in made]
    if sorted(set(want)) == sorted(set(got)):
        message = f"{len(got)} call(s) instead of {len(want)}"
    else:
        message = f"called {', '.join(sorted(set(got)))} instead of {', '.join(sorted(set(want)))}"
    return Mismatch(
        "wrong_tool",
        message,
        f"expected {want}, got {got}",
        tool=want[0] if want else None,
    )


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
