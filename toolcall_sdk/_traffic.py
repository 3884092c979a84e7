"""The traffic entry: one call's conversation, tools, settings and outcome, as JSON (version 1).

A client given `record=` holds a `Traffic`: its recorder, and the part of every entry the
client fixes (model, tools, settings), built once. Each `call()`, `run()`, `resume()` and
`stream()` (`stream_run()`, `stream_resume()` too) begins a `TrafficCall` with the
conversation as the user gave it; `CallWatch` ends it with the result or the error, and the
entry goes to the recorder. One entry per invocation, never per step or attempt::

    {"version": 1, "id": "<uuid4 hex>", "time": "<ISO 8601 UTC, when the call began>",
     "source": "client", "operation": "call" | "run" | "resume" | "stream",
     "model": "...", "messages": [...], "tools": [{"type": "function", "function":
     {"name", "description", "parameters"}}], "settings": {"router", "max_retries",
     "temperature", "max_tokens", "parallel_tool_calls", "tool_choice"},
     "outcome": {"status": "called" | "answered" | "failed" | "error",
                 "calls": [{"name", "arguments"}], "content", "error",
                 "problems": [{"kind", "message", "tool_name"}], "attempts": int},
     "failure_class": null | "<first problem's kind>" | "<error type>",
     "usage": {"prompt_tokens", "completion_tokens"}, "latency_s": float}

`stream_run` and `stream_resume` are recorded as `run` and `resume`: the format names what
was asked, not how it was shown. A call that raised something other than a `ToolCallError`
(a cancelled task, a stream left early, a bug in a callback) has no outcome to record.

Recording never changes a call: an entry that cannot be built or written is logged (logger
`toolcall_sdk`, WARNING, with the traceback) and the call's result or error is untouched.
No header, API key or URL credential is written: entries hold no request options, and an
error's text has the client's key and any `user:password@` of a URL masked.
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from toolcall_sdk._errors import ToolCallError, ToolCallFailed
from toolcall_sdk._events import Operation
from toolcall_sdk._messages import MessagesInput, to_messages
from toolcall_sdk._pipeline import Config
from toolcall_sdk._recorder import Recorder, TrafficRecorder, plain_json
from toolcall_sdk._results import Attempt, ToolCallResult, Usage

__all__ = ["ENTRY_VERSION", "RecordSpec", "Traffic", "TrafficCall", "recorder_for"]

logger = logging.getLogger("toolcall_sdk")

ENTRY_VERSION = 1
RecordedOperation = Literal["call", "run", "resume", "stream"]
Status = Literal["called", "answered", "failed", "error"]
RecordSpec = str | os.PathLike[str] | Recorder | None

_RECORDED: dict[Operation, RecordedOperation] = {
    "call": "call",
    "run": "run",
    "resume": "resume",
    "stream": "stream",
    "stream_run": "run",
    "stream_resume": "resume",
}
# `scheme://user:password@host`: a credential the transport's messages would carry along.
_URL_USERINFO = re.compile(r"(?<=://)[^/\s@]+@")
_MASK = "***"
# Keys too short to be secrets (the placeholder "EMPTY") are not masked: masking them would
# garble ordinary words in the message.
_MIN_SECRET_CHARS = 8
# Built once: `json.dumps` with options builds an encoder on every call.
_COPY = json.JSONEncoder(default=plain_json)


def recorder_for(spec: RecordSpec) -> Recorder | None:
    """The recorder `record=` names: a folder becomes a `TrafficRecorder` on it."""
    if spec is None:
        return None
    if isinstance(spec, (str, os.PathLike)):
        return TrafficRecorder(spec)
    return spec


class Traffic:
    """A client's recording: its recorder and what every entry of the client shares.

    Args:
        recorder: Where the entries go.
        config: The client's configuration (model, tools, settings).
        secrets: Text never to write (the API key), masked in error messages.
    """

    __slots__ = ("_fixed", "_secrets", "recorder")

    def __init__(self, recorder: Recorder, config: Config, *, secrets: Sequence[str] = ()) -> None:
        self.recorder = recorder
        fixed = {
            "model": config.model,
            "tools": [_definition(entry) for entry in _declared(config)],
            "settings": {
                "router": _router_name(config.router),
                "max_retries": config.max_retries,
                "temperature": None if config.temperature is None else float(config.temperature),
                "max_tokens": config.max_tokens,
                "parallel_tool_calls": config.parallel_tool_calls,
                "tool_choice": config.tool_choice,
            },
        }
        # Kept as text and parsed per entry: every entry gets its own copy, so a redact hook
        # that edits one entry's tools cannot change the next entry's.
        self._fixed = _COPY.encode(fixed)
        self._secrets = tuple(s for s in secrets if len(s) >= _MIN_SECRET_CHARS)

    def start(self, operation: Operation, messages: MessagesInput) -> TrafficCall | None:
        """Begin one call's entry; None (logged) when its conversation cannot be copied."""
        try:
            # A copy of JSON values taken now: what the user sent, whatever happens to their
            # objects during the call.
            copied = json.loads(_COPY.encode(to_messages(messages)))
            return TrafficCall(self, _RECORDED[operation], copied)
        except Exception:
            logger.warning("traffic: the %s call could not be recorded", operation, exc_info=True)
            return None

    def entry(
        self,
        call: TrafficCall,
        ending: ToolCallResult | ToolCallError,
        *,
        attempts: Sequence[Attempt],
        usage: Usage,
        latency_s: float,
    ) -> dict[str, Any]:
        """The version-1 entry of `call`, ended by a result or an error."""
        fixed = json.loads(self._fixed)
        failure_class: str | None = None
        if isinstance(ending, ToolCallResult):
            outcome = _result_outcome(ending, len(attempts))
        else:
            outcome, failure_class = self._error_outcome(ending, len(attempts))
        return {
            "version": ENTRY_VERSION,
            "id": call.id,
            "time": call.time,
            "source": "client",
            "operation": call.operation,
            "model": fixed["model"],
            "messages": call.messages,
            "tools": fixed["tools"],
            "settings": fixed["settings"],
            "outcome": outcome,
            "failure_class": failure_class,
            "usage": {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
            },
            "latency_s": latency_s,
        }

    def _error_outcome(
        self, error: ToolCallError, attempts: int
    ) -> tuple[dict[str, Any], str | None]:
        status: Status = "error"
        problems: list[dict[str, Any]] = []
        failure_class = type(error).__name__
        if isinstance(error, ToolCallFailed):
            status = "failed"
            last = error.attempts[-1].problems if error.attempts else []
            problems = [
                {"kind": p.kind, "message": p.message, "tool_name": p.tool_name} for p in last
            ]
            if problems:
                failure_class = problems[0]["kind"]
        outcome = {
            "status": status,
            "calls": [],
            "content": None,
            "error": self._masked(f"{type(error).__name__}: {error}"),
            "problems": problems,
            "attempts": attempts,
        }
        return outcome, failure_class

    def _masked(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, _MASK)
        return _URL_USERINFO.sub(f"{_MASK}@", text)


class TrafficCall:
    """One call's entry in the making: what was asked, and when."""

    __slots__ = ("_traffic", "id", "messages", "operation", "time")

    def __init__(
        self, traffic: Traffic, operation: RecordedOperation, messages: list[dict[str, Any]]
    ) -> None:
        self._traffic = traffic
        self.operation = operation
        self.messages = messages
        self.id = uuid.uuid4().hex
        # Microseconds always written, so the times of entries sort as text.
        self.time = datetime.now(UTC).isoformat(timespec="microseconds")

    def end(
        self,
        ending: ToolCallResult | BaseException,
        *,
        attempts: Sequence[Attempt],
        usage: Usage,
        latency_s: float,
    ) -> None:
        """Record the call's entry; any failure is logged, never raised."""
        if not isinstance(ending, (ToolCallResult, ToolCallError)):
            return  # cancelled, left early, or a bug outside the SDK: no outcome to record
        traffic = self._traffic
        try:
            entry = traffic.entry(self, ending, attempts=attempts, usage=usage, latency_s=latency_s)
            traffic.recorder.record(entry)
        except Exception:
            logger.warning(
                "traffic: %r could not record %s %s; the call goes on",
                traffic.recorder,
                self.operation,
                self.id,
                exc_info=True,
            )


def _declared(config: Config) -> list[dict[str, Any]]:
    # The tools as declared: the strict form sent to the server drops defaults and marks
    # every field required; `strict` (a client setting) makes it again from this one.
    return [tool.openai_schema(strict=False) for tool in config.tools.values()]


def _definition(entry: dict[str, Any]) -> dict[str, Any]:
    function = entry.get("function") or {}
    return {
        "type": "function",
        "function": {
            "name": function.get("name"),
            "description": function.get("description") or "",
            "parameters": function.get("parameters") or {},
        },
    }


def _router_name(router: Any) -> str:
    name = getattr(router, "name", None)
    return name if isinstance(name, str) else repr(router)


def _result_outcome(result: ToolCallResult, attempts: int) -> dict[str, Any]:
    calls = [
        {"name": call.name, "arguments": call.arguments.model_dump(mode="json")}
        for call in result.calls
    ]
    return {
        "status": "called" if calls else "answered",
        "calls": calls,
        "content": result.content,
        "error": None,
        "problems": [],
        "attempts": attempts,
    }
