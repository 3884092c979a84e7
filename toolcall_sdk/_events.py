"""The events `client.stream()` yields, for UIs that show a call as it is being made.

One `stream()` gives, in order: for each model answer, its `ContentDelta`s and, per call,
a `ToolCallStarted` and `ToolArgumentsDelta`s as the server streams them; then either an
`AttemptFailed` (a retry follows unless it was the last attempt) or one `ToolCallValidated`
per accepted call; and last a `StreamCompleted` carrying the same `ToolCallResult` that
`call()` returns. When every attempt fails, `ToolCallFailed` is raised after the last
`AttemptFailed`, exactly as `call()` raises it.

The deltas are a live preview of what the model writes; `ToolCallValidated` and the result are
what was accepted. Each event names its `attempt` (1 for the first stage-2 request, 0 for a
plain answer), so a UI can drop what it showed for an attempt that then failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolcall_sdk._results import Attempt, ToolCall, ToolCallResult

__all__ = [
    "AttemptFailed",
    "ContentDelta",
    "StreamCompleted",
    "ToolArgumentsDelta",
    "ToolCallEvent",
    "ToolCallStarted",
    "ToolCallValidated",
]


@dataclass(frozen=True, slots=True)
class ContentDelta:
    """A piece of the answer's text.

    Call markup that a server's parser left in the text (`<tool_call>`, `[TOOL_CALLS]`,
    `<function=`) is never sent as text, not even a partial tag: it comes as call events.

    Attributes:
        text: The new text.
        attempt: The stage-2 attempt it belongs to; 0 for a plain (no tool) answer.
    """

    text: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model began a call; its name is known.

    Attributes:
        index: The call's position in the answer, from 0.
        id: The tool-call id (the server's, or the id given to a call recovered from text).
        name: The tool name as the model wrote it (not yet checked against the tools).
        attempt: The stage-2 attempt it belongs to.
    """

    index: int
    id: str
    name: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ToolArgumentsDelta:
    """A piece of call `index`'s argument text, as the model writes it.

    Attributes:
        index: The call it belongs to (see `ToolCallStarted.index`).
        text: The new argument text; the pieces of a call join to its argument JSON.
        attempt: The stage-2 attempt it belongs to.
    """

    index: int
    text: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ToolCallValidated:
    """A call passed validation; it is in the final result.

    Attributes:
        call: The validated call (`.name`, `.arguments` as the Pydantic model, `.id`).
        attempt: The attempt whose answer was accepted.
    """

    call: ToolCall
    attempt: int


@dataclass(frozen=True, slots=True)
class AttemptFailed:
    """An answer was rejected.

    Attributes:
        attempt: The record: `.problems` says why, `.feedback` what is sent back.
        retrying: True when another request follows; False on the last attempt, after which
            `ToolCallFailed` is raised (or `on_escalate`'s result completes the stream).
    """

    attempt: Attempt
    retrying: bool


@dataclass(frozen=True, slots=True)
class StreamCompleted:
    """The last event: the result, equal to what `call()` returns for the same answers.

    Attributes:
        result: The `ToolCallResult`.
    """

    result: ToolCallResult


ToolCallEvent = (
    ContentDelta
    | ToolCallStarted
    | ToolArgumentsDelta
    | ToolCallValidated
    | AttemptFailed
    | StreamCompleted
)
"""Any event `stream()` yields."""
