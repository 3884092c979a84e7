"""Stage 1: deciding whether a tool is needed, and which few.

A router is anything with `decide(messages, tools) -> RouteDecision | bool` (and, for the
async client, optionally `async adecide(...)`), or a plain callable of the same shape. A
router that needs the served model (`LLMRouter`, `HybridRouter`) also defines
`route_flow(messages, tools)`, a generator of effects (`AskModel`, `Consult`) that the
client's pipeline drives, so its routing requests go to the client's own server; the same
flow answers `decide()` when the router is used on its own.

    from toolcall_sdk.routing import HybridRouter, LLMRouter, RouteDecision

The client resolves `router="llm" | "probe" | "always" | "never" | object | callable` through
`resolve_router`. `HybridRouter.for_costs` sizes the hybrid's band from a request cost and
an error cost (`band_for_costs`, `hybrid_curve`); `decision_record` and `read_routing_cases`
turn traffic into labelled cases for `EmbeddingRouter.fit` and `refresh`. See
docs/routing.md.
"""

from toolcall_sdk.routing._band import (
    BAND_WIDTHS,
    CurvePoint,
    LLMAccuracy,
    band_for_costs,
    hybrid_curve,
)
from toolcall_sdk.routing._basic import (
    ROUTER_NAMES,
    AlwaysRouter,
    NeverRouter,
    RouterSpec,
    resolve_router,
)
from toolcall_sdk.routing._decision import RouteDecision, Router, coerce_decision
from toolcall_sdk.routing._flow import (
    AskModel,
    Consult,
    RouteEffect,
    RouteFlow,
    consult_async,
    drive,
    drive_async,
    route_flow,
)
from toolcall_sdk.routing._hybrid import HybridRouter
from toolcall_sdk.routing._llm import ROUTER_MODES, LLMRouter, RouterMode
from toolcall_sdk.routing._tool_specs import ToolSpec, tool_specs
from toolcall_sdk.routing.embedding import EmbeddingRouter, decision_record, read_routing_cases

__all__ = [
    "BAND_WIDTHS",
    "ROUTER_MODES",
    "ROUTER_NAMES",
    "AlwaysRouter",
    "AskModel",
    "Consult",
    "CurvePoint",
    "EmbeddingRouter",
    "HybridRouter",
    "LLMAccuracy",
    "LLMRouter",
    "NeverRouter",
    "RouteDecision",
    "RouteEffect",
    "RouteFlow",
    "Router",
    "RouterMode",
    "RouterSpec",
    "ToolSpec",
    "band_for_costs",
    "coerce_decision",
    "consult_async",
    "decision_record",
    "drive",
    "drive_async",
    "hybrid_curve",
    "read_routing_cases",
    "resolve_router",
    "route_flow",
    "tool_specs",
]
