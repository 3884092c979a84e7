"""Routers that need the model are generators of effects, like the pipeline itself.

A router object may define `route_flow(messages, tools)`: a generator that yields
`AskModel` (a chat request for the served model; it is sent the answer's message dict) or
`Consult` (ask another router object; it is sent that router's raw answer), and returns a
`RouteDecision` or a bool. A composite router is `yield from` of its parts.

Inside a client the pipeline drives the flow, so a routing request goes to the client's
own server and counts in the call's usage. On its own, `drive()` and `drive_async()`
answer `AskModel` through the asking router's `ask()` (its own client). A router without
`route_flow` is consulted as a whole (`decide`, or `adecide` under asyncio).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, assert_never

from toolcall_sdk.routing._decision import RouteDecision

__all__ = ["AskModel", "Consult", "RouteEffect", "RouteFlow", "drive", "drive_async", "route_flow"]


class ModelAsker(Protocol):
    """A router that can send its own routing request when used outside a client."""

    def ask(self, params: dict[str, Any]) -> dict[str, Any]:
        """Send `params` (a chat body without `model`); return the answer's message."""
        ...


@dataclass(frozen=True, slots=True)
class AskModel:
    """Effect: send a routing request to the served model; receive its message dict.

    Attributes:
        params: The chat-completions body without `model` (the driver adds it).
        asker: The router asking; standalone drivers send through its `ask()`.
    """

    params: dict[str, Any]
    asker: ModelAsker


@dataclass(frozen=True, slots=True)
class Consult:
    """Effect: ask a router object as a whole; receive its raw answer (bool or decision)."""

    router: Any


RouteEffect = AskModel | Consult
RouteFlow = Generator[RouteEffect, Any, RouteDecision | bool]


def route_flow(
    router: Any, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]
) -> RouteFlow:
    """The flow of any router: its own `route_flow`, else one `Consult` of it."""
    own = getattr(router, "route_flow", None)
    if own is not None:
        flow: RouteFlow = own(messages, tools)
        return flow
    return _consult(router)


def _consult(router: Any) -> RouteFlow:
    answer: RouteDecision | bool = yield Consult(router)
    return answer


def drive(
    flow: RouteFlow, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]
) -> RouteDecision | bool:
    """Run a route flow outside a client, in this thread."""
    try:
        effect = next(flow)
        while True:
            reply: Any
            match effect:
                case AskModel():
                    reply = effect.asker.ask(effect.params)
                case Consult():
                    reply = effect.router.decide(messages, tools)
                case _:
                    assert_never(effect)
            effect = flow.send(reply)
    except StopIteration as done:
        result: RouteDecision | bool = done.value
        return result


async def drive_async(
    flow: RouteFlow, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]
) -> RouteDecision | bool:
    """Run a route flow outside a client under asyncio (blocking work in threads)."""
    try:
        effect = next(flow)
        while True:
            reply: Any
            match effect:
                case AskModel():
                    reply = await asyncio.to_thread(effect.asker.ask, effect.params)
                case Consult():
                    reply = await consult_async(effect.router, messages, tools)
                case _:
                    assert_never(effect)
            effect = flow.send(reply)
    except StopIteration as done:
        result: RouteDecision | bool = done.value
        return result


async def consult_async(
    router: Any, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]
) -> Any:
    """A router object's answer under asyncio: `adecide` if it has one, else `decide`."""
    if hasattr(router, "adecide"):
        return await router.adecide(messages, tools)
    value = router.decide(messages, tools)
    if inspect.isawaitable(value):
        value = await value
    return value
