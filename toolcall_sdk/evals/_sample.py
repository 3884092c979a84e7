"""Which traffic groups to review, in which order: failures first, a sample spread out.

Review order puts the failures first (failed or errored requests, and any the recorder gave a
failure class), then the rest; within each, by tool, outcome class and time, so a reviewer
sees one tool's requests together.

`--sample N` draws N groups spread over strata, one stratum per (tool, outcome class): the
strata take turns, the failure strata first in each turn, one group per turn each, until N
are drawn; a stratum with nothing left drops out. Which group a stratum gives is random but
fixed by the seed (`--seed`): the same traffic and seed give the same sample on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from toolcall_sdk.evals._near_duplicates import EntryGroup

__all__ = ["review_order", "sample", "stratum"]


def stratum(group: EntryGroup) -> tuple[str, str]:
    """The stratum a group is drawn from: (tool, outcome class)."""
    return group.entry.tool, group.entry.outcome_class


def review_order(groups: Sequence[EntryGroup]) -> list[EntryGroup]:
    """Failures first, then by tool, outcome class and time."""
    return sorted(
        groups,
        key=lambda g: (not g.entry.failed, *stratum(g), g.entry.time, g.entry.id),
    )


def sample(groups: Sequence[EntryGroup], size: int, *, seed: int = 0) -> list[EntryGroup]:
    """`size` groups spread over the strata (all of them when there are no more), in review
    order.

    Raises:
        ValueError: `size` is below 1.
    """
    if size < 1:
        raise ValueError(f"--sample must be at least 1 (got {size})")
    if size >= len(groups):
        return review_order(groups)
    strata: dict[tuple[str, str], list[EntryGroup]] = {}
    for group in review_order(groups):
        strata.setdefault(stratum(group), []).append(group)
    draw = random.Random(seed)
    # Strata in review order (failures first), each shuffled by the seed alone. Shuffled by
    # keys from `random()`, the one method whose sequence Python keeps from release to
    # release (`shuffle` and `sample` may change theirs), so a seed means the same sample.
    queues = []
    for members in strata.values():
        keys = [draw.random() for _ in members]
        queues.append([g for _, g in sorted(zip(keys, members, strict=True), key=lambda p: p[0])])
    picked: list[EntryGroup] = []
    while len(picked) < size:
        for queue in queues:
            if queue and len(picked) < size:
                picked.append(queue.pop(0))
    return review_order(picked)
