"""The fixed routers and the resolution of the client's `router=` argument."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from typing import Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._tools import Tool
from toolcall_sdk.routing._decision import RouteDecision, Router
from toolcall_sdk.routing._llm import LLMRouter

__all__ = ["ROUTER_NAMES", "AlwaysRouter", "NeverRouter", "RouterSpec", "resolve_router"]


class AlwaysRouter:
    """Always call a tool (stage 2 runs for every request)."""

    name = "always"

    def decide(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool[..., Any]]
    ) -> RouteDecision:
        """Decide "call" whenever there is a tool."""
        return RouteDecision(call=bool(tools), router=self.name, reason="router='always'")


class NeverRouter:
    """Never call a tool: every request gets a plain answer, asked without the tools.

    The plain-answer request carries no `tools` (and so no `tool_choice`): with the tools in
    its prompt a small model tends to write a call as its text answer.
    """

    name = "never"

    def decide(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool[..., Any]]
    ) -> RouteDecision:
        """Decide "no call"."""
        return RouteDecision(call=False, score=0.0, router=self.name, reason="router='never'")


RouterSpec = str | Router | Callable[..., Any]


class _CallableRouter:
    """Wraps a plain `(messages, tools) -> bool | RouteDecision` callable (sync or async)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.name = getattr(function, "__name__", "callable")
        self.is_async = inspect.iscoroutinefunction(function)

    def decide(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool[..., Any]]) -> Any:
        return self.function(messages, tools)


# The routers a name selects (the client's `router=`, the CLI's and the proxy's `--router`):
# "llm" is `LLMRouter()` (the stage-2 answer under auto decides), "both" and "probe" its
# other modes (a routing question first, then the answer; the question alone); "screen" is
# `HybridRouter.screen()`, the embedding router's floor in front of "llm" (the `router` extra).
def _screen() -> Any:
    from toolcall_sdk.routing._hybrid import HybridRouter  # imports the embedding router

    return HybridRouter.screen(embedding=_shared_embedding())


@cache
def _shared_embedding() -> Any:
    """One embedding router for every router named "screen": the proxy and the eval build a
    client (and so a named router) per tool set or case, and each would otherwise load its
    own copy of the encoder. The router is safe to share (it locks its own cache)."""
    from toolcall_sdk.routing.embedding import EmbeddingRouter

    return EmbeddingRouter()


_NAMED: dict[str, Callable[[], Any]] = {
    "llm": LLMRouter,
    "both": partial(LLMRouter, mode="both"),
    "probe": partial(LLMRouter, mode="probe"),
    "always": AlwaysRouter,
    "never": NeverRouter,
    "screen": _screen,
}
ROUTER_NAMES: tuple[str, ...] = tuple(_NAMED)


def resolve_router(spec: RouterSpec) -> Any:
    """Turn the client's `router=` argument into a router object."""
    if isinstance(spec, str):
        if spec not in _NAMED:
            raise RouterError(
                f"unknown router {spec!r}: use {', '.join(map(repr, ROUTER_NAMES))}, a router "
                "object or a callable (messages, tools) -> bool | RouteDecision"
            )
        return _NAMED[spec]()
    if hasattr(spec, "decide") or hasattr(spec, "adecide"):
        return spec
    if callable(spec):
        return _CallableRouter(spec)
    raise RouterError(f"router={spec!r} is neither a name, a router object nor a callable")
