"""BFCL categories as eval cases (`toolcall-sdk eval --bfcl simple_python,multiple`).

The data comes from `toolcall_sdk.bfcl` (the `bfcl-eval` package's files); tools are the
converted OpenAI definitions, and scoring uses BFCL's AST-checker rules
(`toolcall_sdk.bfcl.bfcl_check`) instead of this package's exact matcher.

The dependency runs one way: the eval harness uses `toolcall_sdk.bfcl` (data and checker,
which know nothing of evals); this module is the adapter between the two.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolcall_sdk.bfcl import bfcl_check, load_category
from toolcall_sdk.evals._cases import EvalCase, ExpectedCall
from toolcall_sdk.evals._matching import MadeCall, Matcher, Mismatch
from toolcall_sdk.evals._schema_tool import tool_from_openai

__all__ = ["SUPPORTED_BFCL", "bfcl_cases", "bfcl_matcher"]

SUPPORTED_BFCL: Final[tuple[str, ...]] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
)
"""Python-language categories with a ground truth (or a no-call answer). Java and
JavaScript need BFCL's type converters; live_relevance has no ground truth to score."""


def bfcl_cases(category: str) -> list[EvalCase]:
    """Load one BFCL category as eval cases.

    Raises:
        ValueError: The category is not supported by the eval (see `SUPPORTED_BFCL`).
        BfclNotInstalledError: `bfcl-eval` is not installed
            (`pip install --no-deps bfcl-eval==2026.3.23`).
    """
    if category not in SUPPORTED_BFCL:
        raise ValueError(
            f"BFCL category {category!r} is not supported by eval; use one of "
            + ", ".join(SUPPORTED_BFCL)
        )
    cases: list[EvalCase] = []
    for item in load_category(category):
        to_openai = {bfcl: name for name, bfcl in item.name_map.items()}
        expected: list[ExpectedCall] = []
        if item.should_call:
            for answer in item.ground_truth or []:
                for name, params in answer.items():
                    expected.append(
                        ExpectedCall(name=to_openai.get(name, name), accept=dict(params))
                    )
        cases.append(
            EvalCase(
                id=item.id,
                messages=tuple(item.messages),
                tools=tuple(tool_from_openai(t) for t in item.tools),
                expected=tuple(expected),
                category=f"bfcl/{category}",
                source=f"bfcl:{category}",
                checker="bfcl",
                extra={
                    "bfcl_functions": item.functions,
                    "bfcl_category": category,
                    "bfcl_name_map": item.name_map,
                    "bfcl_group": _group(item.id, category),
                },
            )
        )
    return cases


def _group(case_id: str, category: str) -> str | None:
    """The sub-group of a live case: `live_simple_3-2-1` is case 3 of group 2 (cases
    written from one user's session share its functions). Non-live ids have none."""
    parts = case_id.removeprefix(f"{category}_").split("-")
    return parts[1] if len(parts) == 3 else None


def bfcl_matcher(
    functions: Sequence[Mapping[str, Any]],
    category: str,
    name_map: Mapping[str, str],
) -> Matcher:
    """A `Matcher` for the eval runner that scores with BFCL's rules.

    Args:
        functions: The case's BFCL function documents.
        category: The BFCL category.
        name_map: OpenAI tool name -> BFCL function name (dotted names were renamed).
    """

    to_openai = {bfcl: name for name, bfcl in name_map.items()}

    def match(expected: Sequence[ExpectedCall], made: Sequence[MadeCall]) -> Mismatch | None:
        truth = [{name_map.get(c.name, c.name): dict(c.accept)} for c in expected]
        output = [{name_map.get(c.name, c.name): dict(c.arguments)} for c in made]
        verdict = bfcl_check(functions, output, truth, category)
        if verdict.valid:
            return None
        # Reports name tools as the model saw them (dotted BFCL names were renamed).
        tool = to_openai.get(verdict.function or "", verdict.function)
        names_differ = Counter(c.name for c in expected) != Counter(c.name for c in made)
        if verdict.kind in ("wrong_count", "wrong_func_name") or names_differ:
            return Mismatch("wrong_tool", verdict.kind, verdict.message, tool=tool)
        label = f"{verdict.param}: {verdict.kind}" if verdict.param else verdict.kind
        return Mismatch("wrong_args", label, verdict.message, field=verdict.param, tool=tool)

    return match
