"""The events `client.stream()` yields, and the events hooks receive.

    from toolcall_sdk.events import ContentDelta, StreamCompleted, ToolCallStarted
    from toolcall_sdk.events import CallFinished, HookEvent, RequestSent, ToolExecuted

`ToolCallEvent` is what `stream()` yields (for UIs); `HookEvent` is what a hook given to
`ToolCallClient(..., hooks=[...])` receives: every stage of every call, sharing the
classes where the two overlap (`AttemptFailed`, `ToolCallValidated`). See
docs/observability.md.

Why `toolcall_sdk.parsing` has events of its own (`TextDelta`, `CallStarted`,
`ArgumentsDelta`, `CallFinished`): those describe the text of one model answer as a
parser reads it, position by position, with no notion of a request, an attempt or a
check. These are the client's: each names its stage-2 attempt, call ids are the ones the
validated result carries, and they include what only the pipeline knows (a call was
validated, an attempt failed and is retried, the final result). The client builds them
from the parser's events; a UI needs only these.
"""

from toolcall_sdk._events import *  # noqa: F403  (the public home of the stream events)
from toolcall_sdk._events import __all__ as __all__
