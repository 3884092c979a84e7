"""Every error the SDK raises.

The tree::

    ToolCallError                      root: catches everything the SDK raises
    ├── InvalidArgumentError           an argument given to the SDK has the wrong type or value
    ├── ClientClosedError              the client was used after close()
    ├── ToolDefinitionError            a function or model cannot become a tool
    │   ├── StrictSchemaError          a schema cannot be made strict (free-form mapping)
    │   └── ToolValidatorError         a tool's validator crashed on a call (a bug in the tool)
    ├── ToolCallFailed                 no valid call within the retries; `.attempts`
    ├── NoAnswerError                  no text where only a text answer could end the step
    ├── RouterError                    a router raised or returned no decision
    ├── PromptEmbedsError              a prompt-embeddings tensor refused before sending
    ├── ExamplesError                  a demonstration case or its file is unusable; `.source`
    ├── ToolExecutionError             a business function raised (`raise_for_errors()`)
    │   └── ToolTimeoutError           a tool ran past its `@tool(timeout=...)`; `.timeout`
    ├── RunStopped                     the agent loop stopped before a text answer; `.steps`
    │   ├── MaxStepsExceeded           still calling tools after `max_steps` steps
    │   ├── UsageLimitExceeded         the next request would pass `max_requests`/`max_tokens_total`
    │   ├── LoopDetected               the same call again after the loop guard's feedback
    │   └── ApprovalRequired           paused before a `requires_approval` tool; `.pending` `.state`
    ├── ResumeError                    `resume()` got a state or approvals it cannot use
    │   └── AlreadyResumed             that state was resumed before; `.state_id`
    └── TransportError                 the server could not be used; `.executed` says what ran
        ├── ServerConnectionError      the connection failed or dropped (after transport retries)
        ├── ServerTimeoutError         no answer in time, or 408 (after transport retries)
        │   └── DeadlineExceededError  the call's overall deadline passed
        ├── ResponseTooLargeError      the answer passed the size cap (max_response_bytes)
        ├── MalformedResponseError     HTTP 200 whose body is not a chat completion
        └── ServerError                the server answered with an HTTP error; `.status_code`
            ├── RateLimitedError       429, still limited after transport retries
            ├── ServerUnavailableError 5xx, still failing after transport retries
            └── RequestRejectedError   never retried: 4xx other than 408/429, 501/505/...
                ├── AuthenticationError        401/403: wrong or missing api_key
                ├── ModelNotFoundError         404: the model name is not served
                ├── EndpointNotFoundError      404: no chat endpoint at base_url (no /v1?)
                └── ContextLengthExceededError 400: prompt or max_tokens over max_model_len

The tooling's errors (launcher, proxy, MCP, eval, BFCL, the model-family registry) live in
their own modules, above this one, and derive from the same root on purpose: DESIGN.md
promises that every error the SDK raises is a `ToolCallError`, so a script that drives
`launch` or `eval` from Python catches one class. Their tree, with each one's home::

    ToolCallError
    ├── MissingDependencyError         an extra is not installed; `.install`   toolcall_sdk
    ├── UnknownFamilyError             no model family matches      toolcall_sdk._families
    │   └── UnknownModelFamilyError    (also a LaunchError, below)
    ├── LaunchError                    vLLM could not be planned or started    .launcher
    │   ├── UnknownModelFamilyError    no family matches; pass --tool-call-parser
    │   ├── ChatTemplateNotFoundError  the family's chat template is not on this machine
    │   ├── VLLMNotFoundError          no way to start vLLM was found on this machine
    │   ├── PortInUseError             something already listens on the host and port
    │   ├── ParallelLayoutError        the parallel / multi-node options contradict
    │   └── ServerStartError           the server process did not become ready
    │       ├── ServerExitedError      it exited before /health answered; `.log_tail`
    │       └── ServerStartTimeout     /health did not answer within the startup timeout
    ├── ProxyConfigError               the proxy cannot start with these options  .proxy
    ├── BadRequest                     a proxied request answered with HTTP 400   .proxy (internal)
    ├── McpToolError                   an MCP server's error result for a call     .mcp
    ├── CaseFormatError                a case file does not follow the case format .evals
    ├── CaseFileNotFoundError          no case file at that path                   .evals
    ├── PreflightError                 the eval's server check failed     .evals (internal)
    ├── OutDirConflictError            --out holds a run with other settings .evals (internal)
    ├── TrafficFormatError             a traffic folder or line cannot be read .evals (internal)
    ├── NotAnEvalRunError              eval compare: not a finished run's folder .evals (internal)
    └── BfclDataError                  the BFCL data could not be read             .bfcl
        └── BfclNotInstalledError      bfcl-eval is not installed

tests/unit/test_error_tree.py checks both trees, and docs/errors.md, against the classes.

Raised by `run()` or `resume()`, every error carries the run so far: `.steps` (the steps
finished before it) and `.executed` (every call of the run whose business function ran).
Outside a run both are empty.

`ModelRetry` is not an error: a tool raises it to send a message back to the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Errors are the bottom layer: `_results` imports this module, never the reverse at run
    # time (not even lazily). These names are for annotations only.
    from toolcall_sdk._results import Attempt, PendingCall, Step, ToolCall, Usage

__all__ = [
    "AlreadyResumed",
    "ApprovalRequired",
    "AuthenticationError",
    "ClientClosedError",
    "ContextLengthExceededError",
    "DeadlineExceededError",
    "EndpointNotFoundError",
    "ExamplesError",
    "InvalidArgumentError",
    "LoopDetected",
    "MalformedResponseError",
    "MaxStepsExceeded",
    "ModelNotFoundError",
    "ModelRetry",
    "NoAnswerError",
    "PromptEmbedsError",
    "RateLimitedError",
    "RequestRejectedError",
    "ResponseTooLargeError",
    "ResumeError",
    "RouterError",
    "RunStopped",
    "ServerConnectionError",
    "ServerError",
    "ServerTimeoutError",
    "ServerUnavailableError",
    "StrictSchemaError",
    "ToolCallError",
    "ToolCallFailed",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolTimeoutError",
    "ToolValidatorError",
    "TransportError",
    "UsageLimitExceeded",
]


class ToolCallError(Exception):
    """Root of every error raised by toolcall-sdk.

    Attributes:
        steps: Raised by `run()`/`resume()`: the steps finished before the error, in order
            (empty outside a run).
        executed: Raised by `run()`/`resume()`: every call of the run whose business
            function ran, in order, earlier steps' included (empty when none ran).
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.steps: list[Step] = []
        self.executed: list[ToolCall] = []


class InvalidArgumentError(ToolCallError, TypeError, ValueError):
    """An argument given to the SDK has the wrong type or value; the message says what to pass.

    Also a `TypeError` and a `ValueError`, so code written against the builtin errors keeps
    catching it.
    """


class ClientClosedError(ToolCallError, RuntimeError):
    """The client was used after `close()` (or after its `with` block ended)."""


class ToolDefinitionError(ToolCallError, TypeError):
    """A function or class cannot be turned into a tool.

    Attributes:
        tool_name: The name of the tool being defined, when known.
    """

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class StrictSchemaError(ToolDefinitionError):
    """A JSON schema cannot be converted to the strict form.

    Attributes:
        path: JSON-pointer-like location of the offending sub-schema.
    """

    def __init__(self, message: str, *, tool_name: str | None = None, path: str = "") -> None:
        super().__init__(message, tool_name=tool_name)
        self.path = path


class ToolValidatorError(ToolDefinitionError):
    """A validator of a tool's arguments raised something other than a validation failure.

    Pydantic turns `ValueError` and `AssertionError` raised in a validator into a validation
    error, which goes back to the model as feedback. Any other exception (`KeyError`,
    `ZeroDivisionError`, ...) is a bug in the tool that no answer of the model can fix, so it
    is raised instead of spending retries; it is chained as `__cause__`. No business function
    of the answer being validated has run.

    Attributes:
        tool_name: The tool whose validator raised.
        call_id: The id of the call being validated.
    """

    def __init__(self, message: str, *, tool_name: str, call_id: str) -> None:
        super().__init__(message, tool_name=tool_name)
        self.call_id = call_id


class ToolCallFailed(ToolCallError):
    """The model did not produce a valid tool call within the retry budget.

    No business function of the failed step has run when validation never succeeded. Under
    `run()`, `executed` holds the calls that ran before: those of earlier steps, and those
    of this step that ran before a tool asked for a retry (`ModelRetry`); `steps` holds the
    steps finished before this one.

    Attributes:
        attempts: One record per model answer of the failed step, in order, each saying
            what failed and why.
        executed: Calls whose business function already ran (empty after `call()`).
        steps: The steps finished before the failed one (empty outside a run).
    """

    def __init__(
        self,
        message: str,
        *,
        attempts: Sequence[Attempt],
        executed: Sequence[ToolCall] = (),
    ) -> None:
        super().__init__(message)
        self.attempts = list(attempts)
        self.executed = list(executed)


class NoAnswerError(ToolCallError):
    """The model gave no text where only a text answer could end the step.

    A step ends in an answer or an error, never in nothing: an empty answer (asked again
    once, without tools), or an answer that holds only a call where no tool could be
    called (`router="never"`, a plain answer after the router said "no tool"), raises
    this. No business function ran for it; under `run()`, `.executed` holds what ran before.

    Attributes:
        message: The assistant message as the server sent it (a dict).
        finish_reason: The server's finish reason.
    """

    def __init__(
        self, text: str, *, message: dict[str, Any], finish_reason: str | None = None
    ) -> None:
        super().__init__(text)
        self.message = message
        self.finish_reason = finish_reason


class RouterError(ToolCallError):
    """A router failed or returned something that is not a decision."""


class PromptEmbedsError(ToolCallError, ValueError):
    """A prompt-embeddings tensor was refused before any request was sent.

    Raised by `toolcall_sdk.embeds` and by the clients when a tensor has the wrong rank,
    width, dtype or size, holds NaN or infinity, or does not fit the server's context: a
    tensor of the wrong shape can crash a vLLM engine, so it never leaves the client.

    Attributes:
        where: Which tensor: `prompt_embeds`, or `messages[i].content[j]`.
        shape: The tensor's shape, when it could be read.
    """

    def __init__(
        self, message: str, *, where: str = "prompt_embeds", shape: tuple[int, ...] | None = None
    ) -> None:
        super().__init__(message)
        self.where = where
        self.shape = shape


class ExamplesError(ToolCallError, ValueError):
    """A demonstration case (`examples=`, `ExampleBank`) cannot be used: the file is missing,
    a line is not JSON, or a case does not follow the case format.

    Attributes:
        source: Where: `FILE:LINE`, `FILE` (the whole file), or `examples[i]` for the i-th
            case of a list.
        path: The case file; None for cases given as a list.
        line: The file's line (from 1), or the case's position in a given list (from 0);
            None for a problem with the whole file.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        if path is None:
            source = f"examples[{line}]" if line is not None else "examples"
        else:
            source = f"{path}:{line}" if line is not None else path
        super().__init__(f"{source}: {message}")
        self.source = source
        self.path = path
        self.line = line


class ToolExecutionError(ToolCallError):
    """A business function raised while `run()` executed it.

    Attributes:
        tool_name: The tool whose function raised.
        call_id: The id of the tool call.
    """

    def __init__(self, message: str, *, tool_name: str, call_id: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.call_id = call_id


class ToolTimeoutError(ToolExecutionError):
    """A tool did not finish within its `@tool(timeout=...)`.

    Recorded as that call's `.error` and reported to the model; the call is never run again.
    A sync function cannot be stopped: it keeps running in its worker thread, unwatched.

    Attributes:
        timeout: The tool's limit, in seconds.
    """

    def __init__(self, message: str, *, tool_name: str, call_id: str, timeout: float) -> None:
        super().__init__(message, tool_name=tool_name, call_id=call_id)
        self.timeout = timeout


class RunStopped(ToolCallError):
    """The agent loop (`run(..., max_steps=N)`) stopped before the model answered in text.

    Attributes:
        steps: The steps finished so far, in order (their calls ran, unless a step says not).
        executed: Every call of the run whose business function ran, in order.
    """

    def __init__(self, message: str, *, steps: Sequence[Step] = ()) -> None:
        super().__init__(message)
        self.steps = list(steps)


class MaxStepsExceeded(RunStopped):
    """The model was still calling tools when the run reached `max_steps` steps.

    Attributes:
        max_steps: The bound that was reached.
    """

    def __init__(self, message: str, *, max_steps: int, steps: Sequence[Step] = ()) -> None:
        super().__init__(message, steps=steps)
        self.max_steps = max_steps


class UsageLimitExceeded(RunStopped):
    """The next request would have passed `max_requests` or `max_tokens_total`; it was not sent.

    Attributes:
        limit: `"max_requests"` or `"max_tokens_total"`.
        value: The limit's value.
        requests: Requests sent in the run so far.
        usage: Tokens used in the run so far.
    """

    def __init__(
        self,
        message: str,
        *,
        limit: str,
        value: int,
        requests: int,
        usage: Usage,
        steps: Sequence[Step] = (),
    ) -> None:
        super().__init__(message, steps=steps)
        self.limit = limit
        self.value = value
        self.requests = requests
        self.usage = usage


class LoopDetected(RunStopped):
    """The model made the same call (tool and arguments) again after the loop guard's feedback.

    Attributes:
        tool_name: The repeated tool.
        arguments: The repeated arguments, as sorted-key JSON.
        count: How many steps made this call, the stopped one included.
    """

    def __init__(
        self,
        message: str,
        *,
        tool_name: str,
        arguments: str,
        count: int,
        steps: Sequence[Step] = (),
    ) -> None:
        super().__init__(message, steps=steps)
        self.tool_name = tool_name
        self.arguments = arguments
        self.count = count


class ApprovalRequired(RunStopped):
    """The run paused before running a `@tool(requires_approval=True)` call.

    Nothing of the paused answer has run. Show `.pending` to a person, then continue with
    `client.resume(err.state, approvals={call_id: True | False})`.

    Attributes:
        pending: The calls waiting for a decision (`.id`, `.name`, `.arguments`).
        state: What `resume()` needs, as a JSON string (no pickle); store it as text.
        state_id: The state's unique id (also inside `state`): a key to store it under.
            `resume()` accepts each state once (see `AlreadyResumed`).
    """

    def __init__(
        self,
        message: str,
        *,
        pending: Sequence[PendingCall],
        state: str,
        state_id: str = "",
        steps: Sequence[Step] = (),
    ) -> None:
        super().__init__(message, steps=steps)
        self.pending = list(pending)
        self.state = state
        self.state_id = state_id


class ResumeError(ToolCallError):
    """`resume()` was given a state it cannot read, or approvals that do not match it.

    Nothing of the paused run has run when it is raised.
    """


class AlreadyResumed(ResumeError):
    """`resume()` was given a state that was resumed before; nothing ran this time.

    A paused run's state is single-use: the first `resume()` that accepts it (approving or
    denying) claims its id in the client's `resume_ledger`, and every later one raises this.
    The calls it approved ran then, once.

    Attributes:
        state_id: The state's id (`ApprovalRequired.state_id`).
    """

    def __init__(self, message: str, *, state_id: str) -> None:
        super().__init__(message)
        self.state_id = state_id


class TransportError(ToolCallError):
    """The server could not be used. No model attempt was counted for it.

    Raised mid-call, it says what had happened before: no business function runs after a
    transport error, but under `run()` some may have run before it (a tool's `ModelRetry`
    asked for another answer, and the request for it failed).

    Attributes:
        attempts: The stage-2 attempts made before the failure, in order.
        executed: Calls whose business function ran before the failure (usually none).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.attempts: list[Attempt] = []


class ServerConnectionError(TransportError):
    """The connection to the server failed or dropped, after the transport retries."""


class ServerTimeoutError(TransportError):
    """The server did not answer within the timeout (or answered 408), after the retries."""


class DeadlineExceededError(ServerTimeoutError):
    """The call's overall deadline (`deadline=`) passed: routing, attempts, backoffs and
    reading the answers all count. Never retried."""


class ResponseTooLargeError(TransportError):
    """The server's answer passed the size cap (`max_response_bytes=`); it was dropped.

    Attributes:
        limit: The cap in bytes.
    """

    def __init__(self, message: str, *, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class MalformedResponseError(TransportError):
    """The server answered HTTP 200 with a body that is not a chat completion.

    Attributes:
        body: The start of what the server sent.
    """

    def __init__(self, message: str, *, body: str = "") -> None:
        super().__init__(message)
        self.body = body


class ServerError(TransportError):
    """The server answered with an HTTP error status.

    Attributes:
        status_code: The HTTP status.
        server_message: The error message the server gave, if any.
    """

    def __init__(self, message: str, *, status_code: int, server_message: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.server_message = server_message


class RateLimitedError(ServerError):
    """HTTP 429 persisted after the transport retries."""


class ServerUnavailableError(ServerError):
    """HTTP 5xx persisted after the transport retries."""


class RequestRejectedError(ServerError):
    """The server rejected the request; retrying the same request cannot help.

    Raised for 4xx other than 408 and 429, and for the 5xx that describe the server rather
    than a passing state (501 Not Implemented, 505 HTTP Version Not Supported, 506, 508,
    510, 511).
    """


class AuthenticationError(RequestRejectedError):
    """HTTP 401/403: the api_key is missing or wrong."""


class ModelNotFoundError(RequestRejectedError):
    """HTTP 404: the server does not serve this model name."""


class EndpointNotFoundError(RequestRejectedError):
    """HTTP 404 for the endpoint itself: `base_url` does not point at the `/v1` API."""


class ContextLengthExceededError(RequestRejectedError):
    """The prompt plus max_tokens does not fit the server's max_model_len."""


class ModelRetry(Exception):
    """Raised by a tool to send a message back to the model and ask for another call.

    Not a `ToolCallError`: it never escapes the client. The message becomes the `tool`
    message for that call, and the attempt counts against `max_retries`.

    Example:
        ```python
        @tool
        def get_order(order_id: str) -> dict:
            if order_id not in ORDERS:
                raise ModelRetry(f"no order {order_id}; ask the user to check the id")
            return ORDERS[order_id]
        ```
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
