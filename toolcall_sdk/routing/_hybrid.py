"""`HybridRouter`: the embedding router decides the clear cases, the model the rest.

Most requests are plainly "call" or plainly small talk, and a local embedding decision
costs milliseconds; the served model is asked (one constrained routing request) only when
the embedding router's probability falls in an uncertain band around its threshold.
`llm_share` reports which fraction of decisions needed the model.

With a `floor` instead of a band (`HybridRouter.screen()`, `router="screen"`), the
embedding router only screens: below the floor no tool is called, and everything at or
above it goes to the LLM router (by default the stage-2 answer under `auto`, which costs no
request). It never forces a call.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from toolcall_sdk._errors import RouterError
from toolcall_sdk._tools import Tool
from toolcall_sdk.routing._band import LLMAccuracy, band_for_costs
from toolcall_sdk.routing._decision import RouteDecision, coerce_decision
from toolcall_sdk.routing._flow import Consult, RouteFlow, drive, drive_async
from toolcall_sdk.routing._llm import LLMRouter
from toolcall_sdk.routing.embedding import EmbeddingRouter

__all__ = ["HybridRouter"]

# The band is a distance on the probability scale around the threshold. With the bundled
# calibration, 0.15 either side holds about a quarter of the non-live development cases
# out of fold (the least certain quarter) and half of BFCL's live ones; `for_costs` sizes it
# from what a request and an error cost instead.
DEFAULT_BAND = 0.15
# Measured on both demo models (docs/routing.md, "The hybrid from real runs"): under the
# default answer-decides LLM stage, 0.02 cut needless calls on the development sample out
# of fold and lost no needed call there, nor any of the 47 invoice requests (out of the
# calibration's data), whose lowest probabilities sit near 0.05.
DEFAULT_FLOOR = 0.02

Tools = Sequence[Tool[..., Any] | Mapping[str, Any]]


class HybridRouter:
    """Embedding router first; the LLM router only inside the uncertain band.

    Args:
        embedding: The embedding router (default: `EmbeddingRouter()`).
        llm: The LLM router (default: `LLMRouter()`; inside a client it is answered by the
            client's server, standalone it needs `client=` and `model=`).
        band: Probabilities within `band` of the embedding threshold go to the LLM.
        floor: Instead of a band: below this probability, no call; at or above it, the LLM
            router decides. The embedding router then never forces a call.

    Attributes:
        decisions: Decisions made so far.
        llm_decisions: How many of them asked the LLM.
    """

    name = "hybrid"

    def __init__(
        self,
        embedding: EmbeddingRouter | None = None,
        llm: LLMRouter | None = None,
        *,
        band: float = DEFAULT_BAND,
        floor: float | None = None,
    ) -> None:
        if band < 0:
            raise ValueError("band must be 0 or more")
        if floor is not None and not 0 <= floor <= 1:
            raise ValueError("floor must be between 0 and 1")
        self.embedding = embedding if embedding is not None else EmbeddingRouter()
        self.llm = llm if llm is not None else LLMRouter()
        self.band = band
        self.floor = floor
        self.decisions = 0
        self.llm_decisions = 0
        self._lock = threading.Lock()

    @classmethod
    def screen(
        cls,
        embedding: EmbeddingRouter | None = None,
        llm: LLMRouter | None = None,
        *,
        floor: float = DEFAULT_FLOOR,
    ) -> HybridRouter:
        """The embedding router as a screen in front of the model (`router="screen"`).

        A request whose embedding probability is below `floor` gets a plain answer with no
        tools and no request spent on routing; every other request goes to the LLM router,
        by default `LLMRouter()`, where the model's own answer under `auto` decides.

        Args:
            embedding: The embedding router (default: `EmbeddingRouter()`).
            llm: The LLM router (default: `LLMRouter()`).
            floor: The probability below which no tool is called.
        """
        return cls(embedding, llm, floor=floor)

    @classmethod
    def for_costs(
        cls,
        embedding: EmbeddingRouter | None = None,
        llm: LLMRouter | None = None,
        *,
        request_cost: float,
        error_cost: float,
        llm_accuracy: LLMAccuracy | None = None,
    ) -> HybridRouter:
        """A hybrid whose band has the lowest expected cost per decision.

        The cost is `request_cost` per LLM routing request plus `error_cost` per wrong
        decision, estimated from the calibration's out-of-fold histogram (its development
        data) and the LLM's assumed accuracy on the cases it is asked about.

        Args:
            embedding: The embedding router (default: `EmbeddingRouter()`).
            llm: The LLM router (default: `LLMRouter()`).
            request_cost: The cost of one routing request (any unit).
            error_cost: The cost of one wrong decision, in the same unit.
            llm_accuracy: The LLM router's assumed recall and correct-skip rate.

        Raises:
            RouterError: The calibration holds no histogram (fitted by `fit`; see
                docs/routing.md for making one).
        """
        embedding = embedding if embedding is not None else EmbeddingRouter()
        histogram = embedding.calibration.info.get("histogram")
        if not isinstance(histogram, dict):
            raise RouterError(
                "this calibration has no out-of-fold histogram to size the band from; "
                "pass band= yourself"
            )
        band = band_for_costs(
            histogram,
            embedding.threshold,
            request_cost=request_cost,
            error_cost=error_cost,
            llm=llm_accuracy,
        )
        return cls(embedding, llm, band=band)

    @property
    def llm_share(self) -> float:
        """The fraction of decisions that asked the LLM (0 before the first)."""
        return self.llm_decisions / self.decisions if self.decisions else 0.0

    def uncertain(self, decision: RouteDecision) -> bool:
        """Whether an embedding decision is too close to call alone."""
        if self.floor is not None:
            return decision.score >= self.floor
        return abs(decision.score - self.embedding.threshold) < self.band

    def settle(self, decision: RouteDecision) -> RouteDecision:
        """Keep a confident embedding decision (and count it)."""
        with self._lock:
            self.decisions += 1
        if self.floor is not None:  # a screen settles only what falls below its floor
            return RouteDecision(
                call=False,
                score=decision.score,
                router=self.name,
                reason=f"embedding p(call)={decision.score:.3f} below the floor {self.floor:g}",
            )
        return RouteDecision(
            call=decision.call,
            tools=decision.tools,
            score=decision.score,
            router=self.name,
            reason=f"embedding, confident: {decision.reason}",
        )

    def combine(self, first: RouteDecision, second: RouteDecision) -> RouteDecision:
        """The LLM's call-or-not, with its named tools ahead of the embedding ranking."""
        with self._lock:
            self.decisions += 1
            self.llm_decisions += 1
        tools: list[str] = []
        if self.floor is not None:
            # A screen only takes requests away; what passes it sees the LLM router's own
            # shortlist (every tool, under the default answer-decides stage).
            tools = list(second.tools)
        elif second.call:
            limit = self.embedding.shortlist
            tools = list(dict.fromkeys([*second.tools, *first.tools[:limit]]))[:limit]
        return RouteDecision(
            call=second.call,
            tools=tools,
            score=second.score if second.call else min(first.score, second.score),
            router=self.name,
            reason=f"uncertain embedding p(call)={first.score:.2f}; {second.reason}",
            # The default LLM router leaves the band's decision to the stage-2 answer.
            answer_decides=second.answer_decides,
        )

    def route_flow(self, messages: Sequence[Mapping[str, Any]], tools: Tools) -> RouteFlow:
        """The embedding router first; the LLM router's flow only when it is uncertain."""
        first = coerce_decision((yield Consult(self.embedding)), self.embedding)
        if not tools or not self.uncertain(first):
            return self.settle(first)
        second = coerce_decision((yield from self.llm.route_flow(messages, tools)), self.llm)
        return self.combine(first, second)

    def decide(self, messages: Sequence[Mapping[str, Any]], tools: Tools) -> RouteDecision:
        """Decide with the embedding router, asking the LLM router when uncertain."""
        return coerce_decision(drive(self.route_flow(messages, tools), messages, tools), self)

    async def adecide(self, messages: Sequence[Mapping[str, Any]], tools: Tools) -> RouteDecision:
        """The async twin of `decide`."""
        flow = self.route_flow(messages, tools)
        return coerce_decision(await drive_async(flow, messages, tools), self)
