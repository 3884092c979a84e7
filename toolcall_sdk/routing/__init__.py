"""Stage 1: deciding whether a tool is needed, and which few.

A router is anything with `decide(messages, tools) -> RouteDecision | bool` (and, for the
async client, optionally `async adecide(...)`), or a plain callable of the same shape. A
router that needs the served model (`LLMRouter`, `HybridRouter`) also defines
`route_flow(messages, tools)`, a generator of effects (`AskModel`, `Consult`) that the
client's pipeline drives, so its routing requests go to the client's own server; the same
flow answers `decide()` when the router is used on its own.

    from toolcall_sdk.routing import HybridRouter, LLMRouter, RouteDecision

The client resolves `router="llm" | "always" | "never" | object | callable` through
`resolve_router`. See docs/routing.md.
"""

from toolcall_sdk.routing._basic import AlwaysRouter, NeverRouter, RouterSpec, resolve_router
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
from toolcall_sdk.routing._llm import LLMRouter
from toolcall_sdk.routing._tool_specs import ToolSpec, tool_specs
from toolcall_sdk.routing.embedding import EmbeddingRouter

__all__ = [
    "AlwaysRouter",
    "AskModel",
    "Consult",
    "EmbeddingRouter",
    "HybridRouter",
    "LLMRouter",
    "NeverRouter",
    "RouteDecision",
    "RouteEffect",
    "RouteFlow",
    "Router",
    "RouterSpec",
    "ToolSpec",
    "coerce_decision",
    "consult_async",
    "drive",
    "drive_async",
    "resolve_router",
    "route_flow",
    "tool_specs",
]
