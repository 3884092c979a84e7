"""`OtelHook`: OpenTelemetry spans for each call, attempt, request and tool execution.

The tree of one call::

    invoke_agent toolcall-sdk          the call (INTERNAL): usage totals, outcome, route
    ├── chat MODEL                     a route request, or the plain answer (CLIENT)
    ├── toolcall.attempt               stage-2 attempt 1 (INTERNAL): problems, parser miss
    │   └── chat MODEL                 its request (CLIENT): gen_ai.* usage, finish reason
    └── toolcall.attempt               attempt 2
        ├── chat MODEL
        └── execute_tool get_weather   a business function (INTERNAL)

The `chat` span's context goes to the server as W3C `traceparent` (with the global
propagator: `tracestate` and `baggage` too), so a vLLM started with
`--otlp-traces-endpoint` puts its own span under it. Span and attribute names follow the
OpenTelemetry GenAI semantic conventions; the SDK's own attributes are `toolcall.*`.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, TracerProvider

from toolcall_sdk._events import (
    AnswerReceived,
    ArgumentsRepaired,
    AttemptFailed,
    CallFinished,
    CallsRecovered,
    CallStarted,
    Escalated,
    FeedbackSent,
    Hook,
    HookEvent,
    RequestSent,
    RouteDecided,
    StepFinished,
    ToolExecuted,
)
from toolcall_sdk._messages import tool_output_content
from toolcall_sdk._version import __version__
from toolcall_sdk.otel._content import input_messages, output_messages

__all__ = ["OtelHook"]

# GenAI semantic conventions (opentelemetry-semantic-conventions' gen_ai attributes, now
# kept in the semantic-conventions-genai repository); `gen_ai.provider.name` replaced
# `gen_ai.system`.
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"


class OtelHook:
    """A hook that records each call as OpenTelemetry spans (extra `otel`).

    ```python
    from toolcall_sdk.otel import OtelHook

    client = ToolCallClient(base_url=..., model=..., tools=[...], hooks=[OtelHook()])
    ```

    Spans start under the caller's current span, if any. No message text, argument or
    output is recorded unless `capture_content=True`; credentials never are.

    Args:
        tracer_provider: Where the spans go (default: the global provider, set by your
            OpenTelemetry setup; without one, spans are dropped and no `traceparent` is sent).
        capture_content: Record the messages sent and received (`gen_ai.input.messages`,
            `gen_ai.output.messages`) and tools' arguments and results. They may hold
            personal data.
        provider_name: `gen_ai.provider.name`: the serving system (`"vllm"` by default;
            `"openai"` when the server is OpenAI's).
        agent_name: `gen_ai.agent.name` of the call span.
        propagate: Send the request span's context to the server (W3C `traceparent`).
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        capture_content: bool = False,
        provider_name: str = "vllm",
        agent_name: str = "toolcall-sdk",
        propagate: bool = True,
    ) -> None:
        self.tracer: Tracer = trace.get_tracer(
            "toolcall_sdk", __version__, tracer_provider=tracer_provider
        )
        self.capture_content = capture_content  # read by the client: message text in events
        self.provider_name = provider_name
        self.agent_name = agent_name
        self.propagate = propagate

    def start_call(self, event: CallStarted) -> Hook:
        """Open the call's span; return the receiver of its events."""
        return _CallTrace(self, event)


class _CallTrace:
    """The spans of one call; called with each of its events, in order, from one thread."""

    def __init__(self, hook: OtelHook, started: CallStarted) -> None:
        self._hook = hook
        self._tracer = hook.tracer
        self._model = started.model
        self._span = self._tracer.start_span(
            f"invoke_agent {hook.agent_name}",
            kind=SpanKind.INTERNAL,
            attributes={
                OPERATION: "invoke_agent",
                PROVIDER: hook.provider_name,
                AGENT_NAME: hook.agent_name,
                REQUEST_MODEL: started.model,
                "toolcall.operation": started.operation,
                "toolcall.streamed": started.streamed,
            },
        )
        self._attempt: Span | None = None
        self._attempt_number = 0
        self._request: Span | None = None

    def __call__(self, event: HookEvent) -> None:
        match event:
            case RequestSent():
                self._request_sent(event)
            case AnswerReceived():
                self._answer_received(event)
            case ToolExecuted():
                self._tool_executed(event)
            case AttemptFailed():
                self._attempt_failed(event)
            case CallFinished():
                self._call_finished(event)
            case _:
                self._note(event)

    def _note(self, event: HookEvent) -> None:
        """The events that only set attributes."""
        match event:
            case RouteDecided():
                self._span.set_attributes(
                    {
                        "toolcall.route.decision": event.call,
                        "toolcall.route.score": event.score,
                        "toolcall.route.router": event.router,
                    }
                )
            case CallsRecovered() if self._attempt is not None:
                self._attempt.set_attribute("toolcall.parser_miss", True)
            case ArgumentsRepaired() if self._attempt is not None:
                self._attempt.set_attribute("toolcall.repairs", list(event.repairs))
            case FeedbackSent() if self._attempt is not None:
                self._attempt.set_attribute("toolcall.feedback_messages", event.messages)
            case Escalated():
                self._span.set_attribute("toolcall.escalated", True)
            case StepFinished():
                self._span.set_attribute("toolcall.steps", event.step)
            case _:
                pass  # CallStarted, StepStarted, ToolCallValidated: nothing to record

    def _request_sent(self, event: RequestSent) -> None:
        parent = self._span
        if event.stage == "call":
            parent = self._open_attempt(event)
        else:
            self._close_attempt()
        attributes: dict[str, Any] = {
            OPERATION: "chat",
            PROVIDER: self._hook.provider_name,
            REQUEST_MODEL: self._model,
            "toolcall.stage": event.stage,
        }
        if event.attempt:
            attributes["toolcall.attempt"] = event.attempt
        if event.request.temperature is not None:
            attributes[REQUEST_TEMPERATURE] = event.request.temperature
        if event.messages is not None:
            attributes[INPUT_MESSAGES] = input_messages(event.messages)
        span = self._tracer.start_span(
            f"chat {self._model}",
            context=trace.set_span_in_context(parent),
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        self._request = span
        if self._hook.propagate:
            propagate.inject(event.headers, context=trace.set_span_in_context(span))

    def _answer_received(self, event: AnswerReceived) -> None:
        span = self._request
        if span is None:
            return
        self._request = None
        span.set_attributes(
            {
                INPUT_TOKENS: event.usage.prompt_tokens,
                OUTPUT_TOKENS: event.usage.completion_tokens,
                FINISH_REASONS: [event.finish_reason or ""],
                "toolcall.tool_calls": event.tool_calls,
            }
        )
        if event.message is not None:
            span.set_attribute(OUTPUT_MESSAGES, output_messages(event.message, event.finish_reason))
        span.end()

    def _open_attempt(self, event: RequestSent) -> Span:
        if self._attempt is not None and self._attempt_number == event.attempt:
            return self._attempt
        self._close_attempt()
        self._attempt_number = event.attempt
        self._attempt = self._tracer.start_span(
            "toolcall.attempt",
            context=trace.set_span_in_context(self._span),
            kind=SpanKind.INTERNAL,
            attributes={
                "toolcall.attempt": event.attempt,
                "toolcall.step": event.step,
                "toolcall.parser_miss": False,
            },
        )
        return self._attempt

    def _close_attempt(self) -> None:
        if self._attempt is not None:
            self._attempt.end()
            self._attempt = None

    def _attempt_failed(self, event: AttemptFailed) -> None:
        if self._attempt is None:
            return
        kinds = event.attempt.error_kinds
        self._attempt.set_attributes(
            {"toolcall.problem_kinds": kinds, "toolcall.retrying": event.retrying}
        )
        self._attempt.set_status(Status(StatusCode.ERROR, ", ".join(kinds)))

    def _tool_executed(self, event: ToolExecuted) -> None:
        call = event.call
        attributes: dict[str, Any] = {
            OPERATION: "execute_tool",
            TOOL_NAME: call.name,
            TOOL_CALL_ID: call.id,
            TOOL_TYPE: "function",
            "toolcall.tool.status": event.status,
        }
        if self._hook.capture_content:
            attributes[TOOL_ARGUMENTS] = call.raw_arguments
            if event.status == "ok":
                attributes[TOOL_RESULT] = tool_output_content(call.output)
        start = int(event.started_at * 1e9)
        parent = self._attempt if self._attempt is not None else self._span
        span = self._tracer.start_span(
            f"execute_tool {call.name}",
            context=trace.set_span_in_context(parent),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=start,
        )
        if event.status in ("error", "timeout"):
            error = type(call.error).__name__ if call.error is not None else event.status
            span.set_attribute(ERROR_TYPE, error)
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=start + int(event.duration_s * 1e9))

    def _call_finished(self, event: CallFinished) -> None:
        if self._request is not None:  # no answer came (a transport error)
            self._request.set_status(Status(StatusCode.ERROR, event.error_type or ""))
            if event.error_type:
                self._request.set_attribute(ERROR_TYPE, event.error_type)
            self._request.end()
            self._request = None
        self._close_attempt()
        span = self._span
        span.set_attributes(
            {
                INPUT_TOKENS: event.usage.prompt_tokens,
                OUTPUT_TOKENS: event.usage.completion_tokens,
                "toolcall.attempts": event.attempts,
                "toolcall.parser_misses": event.parser_misses,
                "toolcall.repair_count": event.repairs,
                "toolcall.outcome": event.outcome,
            }
        )
        if event.outcome in ("failed", "error"):
            span.set_attribute(ERROR_TYPE, event.error_type or event.outcome)
            span.set_status(Status(StatusCode.ERROR, event.error_type or event.outcome))
        span.end()
