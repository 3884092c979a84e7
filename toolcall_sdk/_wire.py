"""Names on the wire that every layer shares: the stage header and its values."""

from __future__ import annotations

__all__ = ["STAGE_ANSWER", "STAGE_CALL", "STAGE_HEADER", "STAGE_ROUTE"]

# The header every request carries with its pipeline stage, for logs, proxies and
# `toolcall_sdk.testing` (which answers route probes without consuming its script).
STAGE_HEADER = "x-toolcall-stage"
STAGE_ROUTE = "route"  # stage 1: is a tool needed, and which
STAGE_CALL = "call"  # stage 2: the forced call (and its feedback retries)
STAGE_ANSWER = "answer"  # the plain answer when no tool is needed
