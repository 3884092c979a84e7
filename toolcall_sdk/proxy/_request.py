"""Reading a chat-completions request that carries tools into the pipeline's terms.

The caller's `tool_choice` decides stage 1: `"none"` is a plain answer, `"required"` a forced
call among every tool, a named function a forced call of that one tool, and `"auto"` (or
nothing) goes to the proxy's router. The caller's other fields travel on: `temperature`,
`max_tokens` and `parallel_tool_calls` as the client's options, everything else (`top_p`,
`seed`, `stop`, `max_completion_tokens`, vLLM's own sampling fields ...) in the body of the
forced-call and plain-answer requests (the router's short probe keeps its own settings).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolcall_sdk import ToolCallError

__all__ = [
    "MAX_BODY_DEPTH",
    "BadRequest",
    "ToolRequest",
    "has_tools",
    "read_body",
    "read_tool_request",
]

# JSON nesting a chat request body may have. A tool's schema costs two levels per nested
# object (`properties`, then the name) below the four of `tools[i].function.parameters`, so
# this leaves room for schemas ~60 objects deep, far beyond any real tool. Every later step
# (the Pydantic model, the strict form, the client's canonical JSON) recurses over the body;
# the cap keeps them all far from Python's recursion limit.
MAX_BODY_DEPTH = 128

# Fields the proxy reads itself; the rest of the body goes to the upstream as is.
_OWN_FIELDS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "stream",
        "stream_options",
        "temperature",
        "max_tokens",
        "parallel_tool_calls",
        "n",
    }
)
# With no temperature given, forced calls run at the SDK's 0: small models call tools
# reliably only near it.
_DEFAULT_TEMPERATURE = 0.0


class BadRequest(ToolCallError, ValueError):
    """The caller's request cannot be served as given (answered with HTTP 400).

    Attributes:
        param: The request field at fault, if one is.
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """One tool-carrying request, in the pipeline's terms.

    Attributes:
        model: The model name the caller asked for.
        messages: The conversation.
        tools: The tool definitions the pipeline offers (only the named one when the
            caller named a function).
        router: `"always"`, `"never"` or the proxy's router.
        call_tool_choice: The forced call's `tool_choice`: `"required"` (named when one tool
            is left) when the caller asked for a call, else the proxy's `call_tool_choice`.
        route_by: What decided the route, for the headers: `tool_choice=...` or
            `router=...`.
        temperature: Sent with every forced-call and plain-answer request.
        max_tokens: Token limit of each answer, if the caller set one.
        parallel_tool_calls: The caller's setting, if any.
        extra_body: The caller's other fields, sent on as they are.
        stream: Whether the caller wants Server-Sent Events.
        include_usage: Whether the caller asked for a final usage chunk.
    """

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    router: str
    route_by: str
    temperature: float | None
    max_tokens: int | None
    parallel_tool_calls: bool | None
    extra_body: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    include_usage: bool = False
    call_tool_choice: str = "required"

    def client_key(self, authorization: str | None) -> str:
        """Canonical JSON of what makes a pipeline client: requests that agree share one.

        The credential enters as a digest, so equal keys never hold it in clear.
        """
        digest = hashlib.sha256((authorization or "").encode()).hexdigest()
        identity = {
            "model": self.model,
            "tools": self.tools,
            "router": self.router,
            "call_tool_choice": self.call_tool_choice,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "parallel_tool_calls": self.parallel_tool_calls,
            "extra_body": self.extra_body,
            "authorization": digest,
        }
        return json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def read_body(raw: bytes) -> Any:
    """Parse a chat request's body; None when it is not JSON.

    A body that is not JSON is not the proxy's to judge: the upstream answers it as it
    would directly.

    Raises:
        BadRequest: The body nests deeper than `MAX_BODY_DEPTH`.
    """
    too_deep = BadRequest(
        f"the request body nests JSON more than {MAX_BODY_DEPTH} levels deep; "
        "no chat request needs that many (check the tools' schemas)"
    )
    try:
        body = json.loads(raw)
    except RecursionError:
        # Deeper than the parser's own limit; raised from here, outside the parser's frames.
        raise too_deep from None
    except ValueError:
        return None
    if _nests_deeper_than(body, MAX_BODY_DEPTH):
        raise too_deep
    return body


def _nests_deeper_than(value: Any, limit: int) -> bool:
    # A loop, not recursion: the value may nest as deep as the parser allowed.
    pending = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        children = node.values() if isinstance(node, dict) else node
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def has_tools(body: Any) -> bool:
    """Whether a parsed request body offers tools (anything else is passed through)."""
    return isinstance(body, dict) and isinstance(body.get("tools"), list) and bool(body["tools"])


def read_tool_request(
    body: Mapping[str, Any], *, router: str, call_tool_choice: str = "required"
) -> ToolRequest:
    """Read a chat-completions body that carries tools.

    Args:
        body: The parsed JSON body.
        router: The proxy's router for `tool_choice="auto"`.
        call_tool_choice: The forced call's `tool_choice` when the router (not the caller)
            decided a call.

    Raises:
        BadRequest: A field the pipeline cannot serve (with the field named).
    """
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("'model' is required: the name the upstream serves", param="model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list of messages", param="messages")
    if not all(isinstance(m, dict) and "role" in m for m in messages):
        raise BadRequest("every message needs a 'role'", param="messages")
    tools = _tool_definitions(body["tools"])
    n = body.get("n")
    if n not in (None, 1):
        raise BadRequest(
            "'n' must be 1 with tools: the proxy validates one answer per request", param="n"
        )
    choice = body.get("tool_choice")
    tools, chosen_router, route_by = _route(choice, tools, router)
    # A caller who asked for a call gets a forced one; otherwise the proxy's setting holds.
    forced = choice is None or choice == "auto"
    stage_two = call_tool_choice if forced else "required"
    temperature = body.get("temperature")
    if temperature is not None and not _is_number(temperature):
        raise BadRequest("'temperature' must be a finite number", param="temperature")
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and not (isinstance(max_tokens, int) and max_tokens > 0):
        raise BadRequest("'max_tokens' must be a positive integer", param="max_tokens")
    parallel = body.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        raise BadRequest("'parallel_tool_calls' must be true or false", param="parallel_tool_calls")
    stream = body.get("stream") is True
    options = body.get("stream_options")
    include_usage = stream and isinstance(options, dict) and options.get("include_usage") is True
    return ToolRequest(
        model=model,
        messages=[dict(m) for m in messages],
        tools=tools,
        router=chosen_router,
        route_by=route_by,
        temperature=_DEFAULT_TEMPERATURE if temperature is None else float(temperature),
        max_tokens=max_tokens,
        parallel_tool_calls=parallel,
        extra_body={k: v for k, v in body.items() if k not in _OWN_FIELDS},
        stream=stream,
        include_usage=include_usage,
        call_tool_choice=stage_two,
    )


def _tool_definitions(tools: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(tools):
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if (
            not isinstance(item, dict)
            or item.get("type") != "function"
            or not isinstance(name, str)
            or not name
        ):
            raise BadRequest(
                f'tools[{index}] must be {{"type": "function", "function": {{"name": ...}}}}',
                param=f"tools[{index}]",
            )
        if name in seen:
            raise BadRequest(f"two tools are named {name!r}", param=f"tools[{index}]")
        seen.add(name)
        out.append(item)
    return out


def _route(
    choice: Any, tools: list[dict[str, Any]], router: str
) -> tuple[list[dict[str, Any]], str, str]:
    if choice is None or choice == "auto":
        return tools, router, f"router={router}"
    if choice == "none":
        return tools, "never", "tool_choice=none"
    if choice == "required":
        return tools, "always", "tool_choice=required"
    name = _named(choice)
    if name is None:
        raise BadRequest(
            "'tool_choice' must be 'auto', 'none', 'required' or "
            '{"type": "function", "function": {"name": ...}}',
            param="tool_choice",
        )
    named = [t for t in tools if t["function"]["name"] == name]
    if not named:
        raise BadRequest(
            f"tool_choice names {name!r}, which is not in 'tools'", param="tool_choice"
        )
    return named, "always", f"tool_choice=function:{name}"


def _named(choice: Any) -> str | None:
    if not isinstance(choice, dict) or choice.get("type") != "function":
        return None
    function = choice.get("function")
    # The Responses API spells it {"type": "function", "name": ...}.
    name = function.get("name") if isinstance(function, dict) else choice.get("name")
    return name if isinstance(name, str) and name else None


def _is_number(value: Any) -> bool:
    # Sent on as a float: NaN, the infinities and an integer too large for a float (JSON
    # allows 1 followed by 400 zeros) are no temperature.
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False
