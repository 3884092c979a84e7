"""`--limit N`: N cases spread over a source's categories, not its first N.

Case files are often sorted by category (the bundled set is), and BFCL's files by topic, so
the first N cases would measure one or two kinds of request. The pick is deterministic:
categories take turns in the order they first appear in the file, one case per turn,
skipping a category once it has given all its cases; when a turn cannot go round every
category, the categories that take it are spaced evenly over the file. Within a category
the cases taken are spaced evenly over it. The result keeps file order.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolcall_sdk.evals._cases import EvalCase

__all__ = ["spread", "spread_group"]


def spread_group(case: EvalCase) -> str:
    """The group a case takes turns in: its BFCL sub-group where it has one, else its category."""
    group = case.extra.get("bfcl_group")
    return f"{case.category}#{group}" if group is not None else case.category


def spread(cases: Sequence[EvalCase], limit: int | None) -> list[EvalCase]:
    """At most `limit` of `cases`, spread over their groups (`spread_group`).

    Args:
        cases: One source's cases, in file order.
        limit: How many to keep; None (or at least the number of cases) keeps every case.

    Raises:
        ValueError: `limit` is below 1.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be at least 1 (got {limit})")
    if limit is None or limit >= len(cases):
        return list(cases)
    groups: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault(spread_group(case), []).append(index)
    members = list(groups.values())
    quotas = [0] * len(members)
    left = limit
    while left:
        turn = [g for g, indices in enumerate(members) if quotas[g] < len(indices)]
        if len(turn) > left:
            turn = [turn[k * len(turn) // left] for k in range(left)]
        for g in turn:
            quotas[g] += 1
        left -= len(turn)
    chosen = sorted(
        indices[k * len(indices) // quota]
        for indices, quota in zip(members, quotas, strict=True)
        for k in range(quota)
    )
    return [cases[i] for i in chosen]
