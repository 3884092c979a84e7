"""The I/O-free heart of `ScriptedModel`: raw request in, `ServerAction` out.

The in-process transport and the local HTTP server both call `ScriptCore.handle` and
only differ in how they carry out the `ServerAction` (wait, drop the connection, write the
body or flush the stream events one by one), so both behave the same.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias, TypeVar

from ._errors import ScriptError
from ._recording import RecordedRequest
from ._render import (
    CompletionPlan,
    ResolvedCall,
    combined_usage,
    completion_body,
    estimate_usage,
    models_body,
    text_completion_body,
)
from ._replies import (
    Reply,
    _Choices,
    _Cut,
    _Delay,
    _Disconnect,
    _Endless,
    _HttpError,
    _Malformed,
    _Message,
    _Trickle,
    text,
    vllm_error_body,
)
from ._sse import encode_event, stream_events

__all__ = ["ANY_MODEL_LISTED", "RouteAnswer", "Script", "ScriptCore", "ServerAction"]

Script: TypeAlias = Sequence[Reply] | Callable[[RecordedRequest], Reply]
"""Replies served in order, or a callable choosing the reply for each request."""

RouteAnswer: TypeAlias = bool | Callable[[RecordedRequest], bool] | None
"""How route probes are answered: a fixed verdict, a callable, or `None` (the script)."""

_T = TypeVar("_T")

ANY_MODEL_LISTED = "scripted"
"""The name `GET /v1/models` lists when a `ScriptedModel` serves any model name."""

_JSON = (("content-type", "application/json"),)
_NOT_FOUND = json.dumps({"detail": "Not Found"}).encode()
_SSE = (("content-type", "text/event-stream; charset=utf-8"), ("cache-control", "no-cache"))


@dataclasses.dataclass(frozen=True)
class ServerAction:
    """What to do with one request.

    Attributes:
        status: The HTTP status code (unused when `disconnect`).
        headers: The response headers, `Content-Length` and framing excluded.
        body: The whole body, when `events` is `None`.
        events: Server-Sent Events, each to be sent and flushed on its own, or `None`.
        delay: Seconds to wait before answering (the local server only).
        disconnect: Drop the connection instead of answering.
        pace: Seconds between pieces of the body or events (the local server only).
        piece: Bytes per piece when `pace` is set (0: whole events / the whole body).
        repeat: An event sent again and again, without end, after `events`.
        cut: Drop the connection after this many bytes of the body (None: send it all).
    """

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    events: tuple[bytes, ...] | None = None
    delay: float = 0.0
    disconnect: bool = False
    pace: float = 0.0
    piece: int = 0
    repeat: bytes | None = None
    cut: int | None = None


class ScriptCore:
    """Serves a script, records every request; thread-safe.

    Args:
        script: The replies, or a callable choosing one per request.
        route_answer: How `x-toolcall-stage: route` probes are answered.
        model: The only model name served (others get 404, as from vLLM), or `None` to
            serve any name (listed as `scripted`, echoed in responses).
        chunk_size: Characters per streamed content or arguments chunk.
        max_model_len: vLLM's `max_model_len` in `GET /v1/models`, when given.
        root: vLLM's `root` (the model's path) in `GET /v1/models`, when given.
    """

    def __init__(
        self,
        script: Script,
        *,
        route_answer: RouteAnswer,
        model: str | None,
        chunk_size: int,
        max_model_len: int | None = None,
        root: str | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        if callable(script):
            self._callable: Callable[[RecordedRequest], Reply] | None = script
            self._replies: tuple[Reply, ...] = ()
        else:
            self._callable = None
            self._replies = tuple(script)
            for position, reply in enumerate(self._replies):
                if not isinstance(reply, Reply):
                    raise TypeError(
                        f"script[{position}] is {reply!r}, not a Reply; build replies with "
                        "text(), tool_call(), http_error(), ..."
                    )
        self._route_answer = route_answer
        self.served = model
        self.model = model if model is not None else ANY_MODEL_LISTED
        self.chunk_size = chunk_size
        self.max_model_len = max_model_len
        self.root = root
        # Re-entrant: a script callable may read `requests` while the lock is held.
        self._lock = threading.RLock()
        self._served = 0
        self._completions = 0
        self._tool_calls = 0
        self._requests: list[RecordedRequest] = []
        self._errors: list[ScriptError] = []

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the requests received so far, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def errors(self) -> list[ScriptError]:
        """A copy of the errors recorded so far, in order."""
        with self._lock:
            return list(self._errors)

    @property
    def remaining(self) -> int | None:
        """Replies not served yet, or `None` for a callable script."""
        with self._lock:
            return None if self._callable is not None else len(self._replies) - self._served

    def handle(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> ServerAction:
        """Records one request and decides its action.

        Args:
            method: The HTTP method.
            path: The URL path (a query string is ignored).
            headers: The request headers.
            body: The raw request body.

        Returns:
            The action for the transport or server to carry out.
        """
        request = RecordedRequest.from_parts(method, path, dict(headers), body)
        route = (request.method, request.path.rstrip("/"))
        with self._lock:
            self._requests.append(request)
            if route == ("GET", "/health"):
                return ServerAction(200)
            if route == ("GET", "/v1/models"):
                body = models_body(self.model, max_model_len=self.max_model_len, root=self.root)
                return ServerAction(200, _JSON, body)
            if route not in (("POST", "/v1/chat/completions"), ("POST", "/v1/completions")):
                # vLLM's web framework answers an unknown path (one without /v1) like this.
                return ServerAction(404, _JSON, _NOT_FOUND)
            asked = (request.json or {}).get("model")
            if self.served is not None and asked != self.served:
                return _error(
                    404, f"The model `{asked}` does not exist.", type_name="NotFoundError"
                )
            if request.is_completion and request.stream:
                return _error(400, "ScriptedModel does not stream /v1/completions")
            try:
                reply = self._choose(request)
                if request.is_completion:
                    _check_completion_reply(reply, request)
            except ScriptError as error:
                self._errors.append(error)
                return _error(500, str(error), type_name="ScriptError")
            return self._render(reply, request)

    def _choose(self, request: RecordedRequest) -> Reply:
        if request.stage == "route" and self._route_answer is not None:
            route = self._route_answer
            verdict = _call(route, request, "route_answer") if callable(route) else route
            return text(json.dumps({"need_tool": bool(verdict)}))
        if self._callable is not None:
            reply = _call(self._callable, request, "script callable")
            if not isinstance(reply, Reply):
                raise ScriptError(
                    f"ScriptedModel: the script callable returned {reply!r}, not a Reply",
                    request=request,
                )
            return reply
        if self._served >= len(self._replies):
            served = f"{self._served} request{'' if self._served == 1 else 's'}"
            raise ScriptError(
                f"ScriptedModel: script exhausted after {served}; request "
                f"#{len(self._requests)} ({request.method} {request.path}, stage "
                f"{request.stage!r}) has no reply. Add replies to the script.",
                request=request,
            )
        reply = self._replies[self._served]
        self._served += 1
        return reply

    def _render(self, reply: Reply, request: RecordedRequest) -> ServerAction:
        if isinstance(reply, _Delay):
            inner = self._render(reply.reply, request)
            return dataclasses.replace(inner, delay=inner.delay + reply.seconds)
        if isinstance(reply, _Trickle):
            inner = self._render(reply.reply, request)
            return dataclasses.replace(inner, pace=reply.interval, piece=reply.piece)
        if isinstance(reply, _Cut):
            inner = self._render(reply.reply, request)
            return dataclasses.replace(inner, cut=reply.after)
        if isinstance(reply, _Endless):
            role = _endless_chunk(self.model, {"role": "assistant", "content": ""})
            more = _endless_chunk(self.model, {"content": "more "})
            return ServerAction(
                200,
                _SSE,
                events=(encode_event(role),),
                pace=reply.interval,
                repeat=encode_event(more),
            )
        if isinstance(reply, _Disconnect):
            return ServerAction(0, disconnect=True)
        if isinstance(reply, _HttpError):
            return ServerAction(reply.status, reply.headers, reply.body)
        if isinstance(reply, _Malformed):
            return ServerAction(reply.status, _SSE if request.stream else _JSON, reply.raw)
        if isinstance(reply, _Message):
            return self._answer((reply,), request)
        if isinstance(reply, _Choices):
            return self._answer(reply.messages, request)
        raise TypeError(f"unknown reply {reply!r}")  # pragma: no cover - Reply is closed

    def _answer(self, replies: Sequence[_Message], request: RecordedRequest) -> ServerAction:
        # One choice per message (a request's `n`); the ids run on across the choices.
        self._completions += 1
        asked = (request.json or {}).get("model")
        model = self.served or (asked if isinstance(asked, str) and asked else self.model)
        plans: list[CompletionPlan] = []
        for reply in replies:
            calls = []
            for call in reply.tool_calls:
                self._tool_calls += 1
                call_id = call.id if call.id is not None else f"call_{self._tool_calls}"
                calls.append(ResolvedCall(call_id, call.name, call.arguments))
            generated = (reply.content or "") + "".join(c.name + c.arguments for c in calls)
            plans.append(
                CompletionPlan(
                    completion_id=f"chatcmpl-scripted-{self._completions}",
                    model=model,
                    content=reply.content,
                    tool_calls=tuple(calls),
                    finish_reason=reply.finish_reason,
                    usage=reply.usage or estimate_usage(request.json, generated),
                )
            )
        answer = dataclasses.replace(plans[0], others=tuple(plans[1:]), usage=combined_usage(plans))
        if request.is_completion:
            return ServerAction(200, _JSON, text_completion_body(answer))
        if not request.stream:
            return ServerAction(200, _JSON, completion_body(answer))
        options = (request.json or {}).get("stream_options")
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        events = stream_events(answer, chunk_size=self.chunk_size, include_usage=include_usage)
        return ServerAction(200, _SSE, events=tuple(events))


def _call(function: Callable[[RecordedRequest], _T], request: RecordedRequest, what: str) -> _T:
    # A test's callable fails inside the server; turn that into a recorded ScriptError
    # rather than a dead server thread or a traceback the test never sees.
    try:
        return function(request)
    except Exception as exc:
        raise ScriptError(
            f"ScriptedModel: the {what} raised {type(exc).__name__}: {exc}", request=request
        ) from exc


def _check_completion_reply(reply: Reply, request: RecordedRequest) -> None:
    # The Completions API answers text only: a scripted tool call there is a test's mistake.
    inner = reply.reply if isinstance(reply, _Delay) else reply
    if isinstance(inner, _Choices) or (isinstance(inner, _Message) and inner.tool_calls):
        raise ScriptError(
            "ScriptedModel: a /v1/completions request got a tool-call or choices() reply; "
            "script text() for completions",
            request=request,
        )


def _error(status: int, message: str, *, type_name: str | None = None) -> ServerAction:
    body = vllm_error_body(status, message)
    if type_name is not None:
        body["type"] = type_name
    return ServerAction(status, _JSON, json.dumps(body).encode())


def _endless_chunk(model: str, delta: dict[str, str]) -> str:
    chunk = {
        "id": "chatcmpl-endless",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return json.dumps(chunk)
