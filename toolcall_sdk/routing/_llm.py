"""`LLMRouter`: the served model decides whether a tool is needed.

Three ways to ask it:
- `mode="answer"` (the default): no question before stage 2. The model is offered every
  tool under `tool_choice="auto"` and its answer is the decision: a call (validated, and
  retried forced after feedback) or a text answer.
- `mode="both"`: a tiny routing question about the user's last message first ("is a tool
  needed?", a constrained JSON answer). "No" gives a plain answer without tools; "yes" goes
  on as `answer`, so a call happens only when both say so. After a tool result there is no
  question.
- `mode="probe"`: the question over the recent transcript, and a "call" forces stage 2
  (`required`, or named) over the tools it names.

Measured on Qwen2.5-Coder-0.5B-Instruct (benchmarks/router_live.py, docs/routing.md): over
166 non-live BFCL examples and variants, `probe` reached accuracy 0.62 (recall 0.78, 0.50 of
the no-call cases left alone), `answer` 0.70 (0.92, 0.53) with no extra request, `both`
0.73 (0.81, 0.67); but on the ladder's call cases the question said "no" to 15 of 47
invoice requests and 17 of 50 BFCL `multiple` ones, where `answer` loses none to stage 1.
A question reworded as yes/no or multiple choice and read from the answer token's
log-probabilities did not separate the classes (ROC AUC 0.58-0.64).
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Mapping, Sequence
from typing import Any, Literal, get_args

from toolcall_sdk._errors import RouterError
from toolcall_sdk._tools import Tool
from toolcall_sdk._wire import STAGE_HEADER, STAGE_ROUTE
from toolcall_sdk.routing._decision import RouteDecision, coerce_decision
from toolcall_sdk.routing._flow import AskModel, RouteEffect, drive, drive_async
from toolcall_sdk.routing._tool_specs import tool_specs

__all__ = ["ROUTER_MODES", "LLMRouter", "RouterMode"]

RouterMode = Literal["answer", "both", "probe"]
ROUTER_MODES: tuple[RouterMode, ...] = get_args(RouterMode)

# The router's question is asked in a fresh two-message conversation (system + user) so
# it renders under every chat template, including those that demand strict alternation.
_ROUTE_SYSTEM = (
    "You decide whether the assistant must call a tool to answer the user's last message.\n"
    "Tools:\n{tools}\n"
    'Answer with JSON: {{"need_tool": true}} if one of these tools is needed, '
    '{{"need_tool": false}} if the assistant can answer directly (greetings, thanks, '
    "general questions, requests no tool can serve)."
)
_ROUTE_SYSTEM_SHORTLIST = (
    "You decide whether the assistant must call a tool to answer the user's last message, "
    "and which.\n"
    "Tools:\n{tools}\n"
    'Answer with JSON: {{"need_tool": true, "tools": [up to {k} tool names, most needed '
    "first]}} if these tools are needed now and the conversation gives what they require; "
    '{{"need_tool": false, "tools": []}} if the assistant can answer directly (greetings, '
    "thanks, general questions, a request no tool can serve, or a tool result that already "
    "answers it)."
)
_ROUTE_USER = "Conversation:\n{transcript}\n\nIs a tool call needed now?"
_ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"need_tool": {"type": "boolean"}},
    "required": ["need_tool"],
    "additionalProperties": False,
}
# Only the recent turns matter for "is a tool needed now"; older ones cost tokens.
_TRANSCRIPT_MESSAGES = 6
_TRANSCRIPT_CHARS = 2000
# `{"need_tool": true, "tools": ["a", "b", "c"]}` with names of up to ~20 tokens each.
_SHORTLIST_TOKENS_PER_TOOL = 24
_BASE_TOKENS = 16


class LLMRouter:
    """Let the served model itself decide whether a tool is needed.

    `mode="answer"` (the default) sends no routing request: the decision says
    `answer_decides`, and stage 2 offers every tool under `tool_choice="auto"`. A call the
    model makes (read from its text too, offered tools only) is validated and, when wrong,
    fed back and retried forced (named when one tool is left); a text answer ends the step.
    A model that answers in text where a call was needed, or calls where none was, is what
    this mode cannot catch.

    `mode="both"` first asks one short routing question about the user's last message
    (structured output, temperature 0, a handful of tokens): a "no" ends in a plain answer
    without tools, a "yes" goes on as `answer`. A conversation that ends with a tool result
    gets no question. Fewer needless calls, more missed ones on a small model.
    `mode="probe"` asks the question over the recent transcript and forces stage 2 on "yes".

    The question's answer is `{"need_tool": bool, "tools": [names]}` with `shortlist` (the
    default), the names restricted by the schema to the offered tools (in `probe` mode the
    named tools are stage 2's shortlist), or `{"need_tool": bool}` with `shortlist=0`. An
    answer that cannot be read is taken as "call" with every tool: a call is validated
    afterwards, while a wrong "no" would silently drop the request.

    Inside a client the routing request goes to the client's server. Used on its own
    (`decide`, e.g. in a benchmark or a `HybridRouter` outside a client), it needs
    `client` (an `openai.OpenAI`) and `model`, and it counts what it spent in
    `requests`, `prompt_tokens`, `completion_tokens` and `latency_s`.

    Args:
        mode: `"answer"` (the stage-2 answer decides), `"both"` (a question, then the
            answer) or `"probe"` (the question alone, then a forced call).
        max_tokens: Token budget of the question's answer; None sizes it from `shortlist`.
        shortlist: How many tools the model may name (0: only "call or not").
        client: An OpenAI-compatible client for standalone use.
        model: The served model name for standalone use.
    """

    name = "llm"

    def __init__(
        self,
        *,
        mode: RouterMode = "answer",
        max_tokens: int | None = None,
        shortlist: int = 3,
        client: Any = None,
        model: str | None = None,
    ) -> None:
        if mode not in ROUTER_MODES:
            raise ValueError(f"mode must be one of {', '.join(ROUTER_MODES)}, not {mode!r}")
        if shortlist < 0:
            raise ValueError("shortlist must be 0 or more")
        self.mode: RouterMode = mode
        self.shortlist = shortlist
        self.max_tokens = (
            max_tokens
            if max_tokens is not None
            else _BASE_TOKENS + _SHORTLIST_TOKENS_PER_TOOL * shortlist
        )
        self.client = client
        self.model = model
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.latency_s = 0.0

    def request_params(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> dict[str, Any]:
        """The body of the routing request (without `model`)."""
        specs = tool_specs(tools)
        listing = "\n".join(f"- {spec.name}: {_first_line(spec.description)}" for spec in specs)
        names = [spec.name for spec in specs]
        if self.shortlist and names:
            system = _ROUTE_SYSTEM_SHORTLIST.format(tools=listing, k=self.shortlist)
            schema = _shortlist_schema(names, self.shortlist)
        else:
            system = _ROUTE_SYSTEM.format(tools=listing)
            schema = _ROUTE_SCHEMA
        return {
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": _ROUTE_USER.format(transcript=_transcript(messages))},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "route", "schema": schema, "strict": True},
            },
            "temperature": 0.0,
            "max_tokens": self.max_tokens,
        }

    def interpret(self, message: Mapping[str, Any]) -> RouteDecision:
        """Read the routing answer (an assistant message dict)."""
        if message.get("tool_calls"):
            return RouteDecision(call=True, router=self.name, reason="the model answered a call")
        content = message.get("content") or ""
        try:
            answer = json.loads(content)
        except (json.JSONDecodeError, TypeError):
            answer = None
        if not isinstance(answer, dict) or not ("need_tool" in answer or "tools" in answer):
            return RouteDecision(
                call=True,
                score=0.5,
                router=self.name,
                reason=f"unreadable router answer {content[:40]!r}; calling to be safe",
            )
        named = answer.get("tools")
        shortlist = (
            [str(n) for n in dict.fromkeys(named) if isinstance(n, str)]
            if isinstance(named, list)
            else []
        )
        need = answer.get("need_tool", bool(shortlist))
        if not isinstance(need, bool):
            return RouteDecision(call=True, score=0.5, router=self.name, reason="non-boolean")
        if not need:
            return RouteDecision(
                call=False, score=0.0, router=self.name, reason="model: no tool needed"
            )
        return RouteDecision(
            call=True,
            tools=shortlist[: self.shortlist] if self.shortlist else [],
            score=1.0,
            router=self.name,
            reason=f"model: tool needed ({', '.join(shortlist) or 'unnamed'})",
        )

    def route_flow(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> Generator[RouteEffect, Any, RouteDecision]:
        """The routing question (`AskModel`) and its reading; none in `answer` mode."""
        if not tools:
            return RouteDecision(call=False, score=0.0, router=self.name, reason="no tools")
        if self.mode == "answer" or (self.mode == "both" and not _ends_with_user(messages)):
            # After a tool result the question is "answer now or call again": the answer
            # itself says it, and a probe of the last user turn would only repeat it.
            return RouteDecision(
                call=True,
                score=0.5,
                router=self.name,
                reason="the model decides in its answer (tool_choice=auto)",
                answer_decides=True,
            )
        if self.mode == "probe":
            message = yield AskModel(self.request_params(messages, tools), asker=self)
            return self.interpret(message)
        # "both": the probe sees the user's last message alone (with the turns before it,
        # a small model reads an earlier call and its result as "already answered"), and a
        # "call" still lets the answer decide, among every tool.
        message = yield AskModel(self.request_params(messages[-1:], tools), asker=self)
        decision = self.interpret(message)
        if not decision.call:
            return decision
        return RouteDecision(
            call=True,
            score=decision.score,
            router=self.name,
            reason=f"{decision.reason}; the answer decides",
            answer_decides=True,
        )

    def ask(self, params: dict[str, Any]) -> dict[str, Any]:
        """Send a routing request through `client` (standalone use); count what it cost.

        Raises:
            RouterError: No `client`/`model` was given.
        """
        if self.client is None or self.model is None:
            raise RouterError(
                "LLMRouter.decide() on its own needs client= and model=; inside "
                "ToolCallClient the client's own server answers the routing request"
            )
        started = time.perf_counter()
        completion = self.client.chat.completions.create(
            model=self.model, extra_headers={STAGE_HEADER: STAGE_ROUTE}, **params
        )
        self.latency_s += time.perf_counter() - started
        self.requests += 1
        usage = getattr(completion, "usage", None)
        if usage is not None:
            self.prompt_tokens += int(usage.prompt_tokens or 0)
            self.completion_tokens += int(usage.completion_tokens or 0)
        message: dict[str, Any] = completion.choices[0].message.model_dump(exclude_none=True)
        return message

    def decide(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> RouteDecision:
        """Ask the model directly (standalone use: needs `client` and `model`).

        Raises:
            RouterError: No `client`/`model` was given.
        """
        return coerce_decision(drive(self.route_flow(messages, tools), messages, tools), self)

    async def adecide(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool[..., Any] | Mapping[str, Any]],
    ) -> RouteDecision:
        """`decide` with the request in a worker thread (standalone use with a sync client)."""
        flow = self.route_flow(messages, tools)
        return coerce_decision(await drive_async(flow, messages, tools), self)


def _ends_with_user(messages: Sequence[Mapping[str, Any]]) -> bool:
    return bool(messages) and messages[-1].get("role") == "user"


def _shortlist_schema(names: Sequence[str], limit: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "need_tool": {"type": "boolean"},
            "tools": {
                "type": "array",
                "items": {"type": "string", "enum": list(dict.fromkeys(names))},
                "maxItems": limit,
            },
        },
        "required": ["need_tool", "tools"],
        "additionalProperties": False,
    }


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "(no description)"


def _transcript(messages: Sequence[Mapping[str, Any]]) -> str:
    lines: list[str] = []
    for message in list(messages)[-_TRANSCRIPT_MESSAGES:]:
        role = message.get("role", "user")
        if role == "system":
            continue
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = " ".join(
                str(part.get("text", "")) for part in content if isinstance(part, Mapping)
            )
        text = str(content or "").strip()
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            text += f" [called {function.get('name')}({function.get('arguments', '')})]"
        label = "tool result" if role == "tool" else role
        lines.append(f"{label}: {text.strip()}")
    transcript = "\n".join(lines)
    return transcript[-_TRANSCRIPT_CHARS:]
