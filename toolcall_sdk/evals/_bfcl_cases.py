"""BFCL categories as eval cases (`toolcall-sdk eval --bfcl simple_python,multiple`).

The data comes from `toolcall_sdk.bfcl` (the `bfcl-eval` package's files); tools are the
converted OpenAI definitions, and scoring uses BFCL's AST-checker rules
(`toolcall_sdk.bfcl._checker`) instead of this package's exact matcher.
"""

from __future__ import annotations

from typing import Final

from toolcall_sdk.evals._cases import EvalCase, ExpectedCall
from toolcall_sdk.evals._schema_tool import tool_from_openai

__all__ = ["SUPPORTED_BFCL", "bfcl_cases"]

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
    from toolcall_sdk.bfcl import load_category

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
                },
            )
        )
    return cases
