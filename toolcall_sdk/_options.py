"""The client's options, declared once for both twins (and for anything that builds a client).

`ClientOptions` is the keyword surface of `ToolCallClient` and `AsyncToolCallClient` besides
`base_url`, `model` and the twin-specific `openai_client`/`http_client`; `DEFAULTS` holds
the value of every option left out. Each option is documented on `ToolCallClient`.
`RunOptions` are the agent loop's bounds, taken by both twins' `run()`.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import urlsplit

from pydantic import BaseModel

from toolcall_sdk._balancer import BalancePolicy
from toolcall_sdk._body import MAX_RESPONSE_BYTES
from toolcall_sdk._call_tags import CALL_TAG_MODES, CallTagMode
from toolcall_sdk._errors import InvalidArgumentError, ToolCallFailed
from toolcall_sdk._events import CallHook, Hook
from toolcall_sdk._example_bank import ExamplesSpec, as_example_bank
from toolcall_sdk._listed_values import LISTED_VALUES, ListedValues
from toolcall_sdk._pipeline import TOOL_CHOICES, ToolChoice
from toolcall_sdk._resume_ledger import ResumeLedger
from toolcall_sdk._run_state import FORCES, Force, RunLimits
from toolcall_sdk._sampling import MAX_SAMPLES
from toolcall_sdk._tools import Tool
from toolcall_sdk._traffic import RecordSpec
from toolcall_sdk._transport import RetryPolicy
from toolcall_sdk.grounding import GroundingSpec
from toolcall_sdk.grounding._decoding import DECODING_MODES, DecodingMode
from toolcall_sdk.grounding._policy import resolve_grounding
from toolcall_sdk.grounding._unstated import OPTIONAL_VALUES, OptionalValues

if TYPE_CHECKING:
    from toolcall_sdk._results import ToolCallResult
    from toolcall_sdk.routing import RouterSpec

__all__ = [
    "DEFAULTS",
    "ClientOptions",
    "Escalation",
    "RunOptions",
    "ToolChoice",
    "api_key_for",
    "base_urls_from",
    "resolve_options",
    "run_limits",
]

Escalation = Callable[[ToolCallFailed], "ToolCallResult | Awaitable[ToolCallResult]"]
DEFAULT_BASE_URL = "http://localhost:8000/v1"
# A whole call()/run() — routing, attempts, backoffs, reading answers, running tools — ends
# within this: a few worst-case requests (the 120 s request timeout) and their retries.
DEFAULT_DEADLINE = 600.0
# vLLM accepts any key unless started with --api-key; the openai client insists on one.
PLACEHOLDER_KEY = "EMPTY"
# An OpenAI key is only ever sent to OpenAI: a self-hosted server must not receive it.
_OPENAI_HOSTS = ("api.openai.com",)


class ClientOptions(TypedDict, total=False):
    """Keyword options shared by `ToolCallClient` and `AsyncToolCallClient`."""

    tools: Iterable[Any]
    api_key: str | None
    max_retries: int
    router: RouterSpec
    strict: bool
    temperature: float | None
    max_tokens: int | None
    parallel_tool_calls: bool | None
    timeout: float
    retry: RetryPolicy | None
    validation_context: Any
    on_escalate: Escalation | None
    extra_body: Mapping[str, Any] | None
    default_headers: Mapping[str, str] | None
    recover: bool
    tool_choice: ToolChoice
    force: Force
    resume_ledger: ResumeLedger | None
    deadline: float
    max_response_bytes: int
    hidden_size: int | None
    balance: BalancePolicy | None
    hooks: Iterable[Hook | CallHook]
    grounding: GroundingSpec
    grounded_decoding: DecodingMode
    call_tags: CallTagMode
    listed_values: ListedValues
    optional_values: OptionalValues
    samples: int
    record: RecordSpec
    examples: ExamplesSpec


DEFAULTS: ClientOptions = {
    "tools": (),
    "api_key": None,
    "max_retries": 2,
    "router": "llm",
    "strict": True,
    "temperature": 0.0,
    "max_tokens": None,
    "parallel_tool_calls": None,
    "timeout": 120.0,
    "retry": None,
    "validation_context": None,
    "on_escalate": None,
    "extra_body": None,
    "default_headers": None,
    "recover": True,
    "tool_choice": "required",
    "force": "first_step",
    "resume_ledger": None,
    "deadline": DEFAULT_DEADLINE,
    "max_response_bytes": MAX_RESPONSE_BYTES,
    "hidden_size": None,
    "balance": None,
    "hooks": (),
    # Off unless asked for: it changes what a scripted or recorded conversation that never
    # states its ids and dates gets back (docs/grounding.md, "The default").
    "grounding": False,
    # Measured on both demo models (docs/grounding.md, "Grounded decoding").
    "grounded_decoding": "off",
    # Measured on both demo models: +1 case in 60 on the 0.5B, the same calls in 30 of 30 on
    # the 1.5B (docs/pipeline.md, "Calls held once they start", "Measured").
    "call_tags": "off",
    # Measured on both demo models: BFCL parallel 0 -> 19 of 50 (0.5B) and 0 -> 25 of 50
    # (1.5B) on the ladder, the other sources level, 1.32 and 1.28 requests per case
    # (docs/pipeline.md, "`continue_listed`", "Measured"; docs/ladder.md).
    "listed_values": "continue_listed",
    # Measured on both demo models (docs/grounding.md, "Optional values nobody gave").
    "optional_values": "stated",
    # Measured on the 0.5B demo model: 24 -> 23 of 48 cases for 2.4 times the completion
    # tokens (docs/pipeline.md, "Several answers to one request", "Measured").
    "samples": 1,
    # Nothing is written unless asked for: entries hold the users' conversations.
    "record": None,
    # The user's accepted cases: there are none to show until they are given (measured on
    # both demo models: docs/traffic-evals.md, "Accepted cases teach the model").
    "examples": None,
}


def resolve_options(owner: str, options: Mapping[str, Any]) -> ClientOptions:
    """Check every given option's name, type and value; fill in the defaults.

    `examples` comes back as an `ExampleBank` (or None), its file read.

    Raises:
        TypeError: An option that `ClientOptions` does not declare.
        InvalidArgumentError: An option of the wrong type or value (says what to pass).
        ExamplesError: The `examples` case file is missing or holds a malformed case.
    """
    unknown = sorted(set(options) - set(ClientOptions.__annotations__))
    if unknown:
        raise TypeError(
            f"{owner}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"options are: {', '.join(sorted(ClientOptions.__annotations__))}"
        )
    resolved: ClientOptions = {**DEFAULTS, **options}  # type: ignore[typeddict-item]
    _check_tools(resolved["tools"])
    _check_int("max_retries", resolved["max_retries"], minimum=0)
    _check_int("max_tokens", resolved["max_tokens"], minimum=1, optional=True)
    _check_number("temperature", resolved["temperature"], optional=True)
    _check_number("timeout", resolved["timeout"], positive=True)
    _check_number("deadline", resolved["deadline"], positive=True)
    _check_int("max_response_bytes", resolved["max_response_bytes"], minimum=1024)
    _check_int("hidden_size", resolved["hidden_size"], minimum=1, optional=True)
    for name in ("strict", "recover"):
        if not isinstance(resolved[name], bool):
            raise InvalidArgumentError(f"{name} must be True or False (got {resolved[name]!r})")
    parallel = resolved["parallel_tool_calls"]
    if parallel not in (None, True, False):
        raise InvalidArgumentError(
            f"parallel_tool_calls must be True, False or None ({parallel!r})"
        )
    if resolved["tool_choice"] not in TOOL_CHOICES:
        raise InvalidArgumentError(
            f"tool_choice must be one of {', '.join(map(repr, TOOL_CHOICES))} "
            f"(got {resolved['tool_choice']!r}); use 'auto' for servers without 'required' support"
        )
    _check_force(resolved["force"])
    _check_ledger(resolved["resume_ledger"])
    if resolved["retry"] is not None and not isinstance(resolved["retry"], RetryPolicy):
        raise InvalidArgumentError(f"retry must be a RetryPolicy (got {resolved['retry']!r})")
    if resolved["balance"] is not None and not isinstance(resolved["balance"], BalancePolicy):
        raise InvalidArgumentError(
            f"balance must be a BalancePolicy, e.g. BalancePolicy(affinity='none') "
            f"(got {resolved['balance']!r})"
        )
    for name in ("extra_body", "default_headers"):
        value = resolved[name]  # type: ignore[literal-required]
        if value is not None and not isinstance(value, Mapping):
            raise InvalidArgumentError(f"{name} must be a dict (got {type(value).__name__})")
    if resolved["on_escalate"] is not None and not callable(resolved["on_escalate"]):
        raise InvalidArgumentError("on_escalate must be a function taking the ToolCallFailed")
    resolve_grounding(resolved["grounding"])
    _check_choice("grounded_decoding", resolved["grounded_decoding"], DECODING_MODES)
    _check_choice("call_tags", resolved["call_tags"], CALL_TAG_MODES)
    _check_choice("listed_values", resolved["listed_values"], LISTED_VALUES)
    _check_choice("optional_values", resolved["optional_values"], OPTIONAL_VALUES)
    _check_int("samples", resolved["samples"], minimum=1, maximum=MAX_SAMPLES)
    _check_record(resolved["record"])
    # Read here, once: a missing file or a malformed case fails the client's construction
    # (`ExamplesError`, with the file and line), never a request.
    resolved["examples"] = as_example_bank(resolved["examples"])
    if resolved["api_key"] is not None and not isinstance(resolved["api_key"], str):
        raise InvalidArgumentError("api_key must be a string")
    return resolved


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise InvalidArgumentError(
            f"{name} must be one of {', '.join(map(repr, choices))} (got {value!r})"
        )


def base_urls_from(base_url: str | Sequence[str] | None) -> list[str]:
    """The servers to use: the given URL(s), else `$TOOLCALL_BASE_URL`, else localhost:8000.

    Raises:
        InvalidArgumentError: No server, or a URL without `http://` or `https://`.
    """
    if base_url is None:
        base_url = os.environ.get("TOOLCALL_BASE_URL") or DEFAULT_BASE_URL
    urls = [base_url] if isinstance(base_url, str) else list(base_url)
    if not urls:
        raise InvalidArgumentError("base_url must name at least one server")
    for url in urls:
        if not isinstance(url, str):
            raise InvalidArgumentError(f"base_url must be a string or a list of strings ({url!r})")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            rest = url.split("://")[-1].rstrip("/") or "localhost:8000"
            suggestion = f"http://{rest}" if rest.endswith("/v1") else f"http://{rest}/v1"
            raise InvalidArgumentError(
                f"base_url {url!r} is not an http(s) URL: write it in full, e.g. {suggestion!r}"
            )
    return urls


def api_key_for(given: str | None, base_urls: Sequence[str]) -> str:
    """The key to send: the given one, else `$TOOLCALL_API_KEY`; `$OPENAI_API_KEY` only to
    OpenAI itself, so a real OpenAI key never reaches a self-hosted server by default."""
    if given:
        return given
    key = os.environ.get("TOOLCALL_API_KEY")
    if key:
        return key
    if all(urlsplit(url).hostname in _OPENAI_HOSTS for url in base_urls):
        return os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY
    return PLACEHOLDER_KEY


def _check_force(force: Any) -> None:
    if force not in FORCES:
        raise InvalidArgumentError(
            f"force must be one of {', '.join(map(repr, FORCES))} (got {force!r}): "
            "'first_step' forces a call in a run's first step only, 'every_step' in each step"
        )


def _check_ledger(ledger: Any) -> None:
    if ledger is not None and not callable(getattr(ledger, "claim", None)):
        raise InvalidArgumentError(
            "resume_ledger must have a claim(state_id) -> bool method, e.g. "
            f"SQLiteResumeLedger('resumed.db') (got {ledger!r})"
        )


def _check_record(record: Any) -> None:
    if isinstance(record, str) and not record:
        raise InvalidArgumentError("record must name a folder (got an empty string)")
    if record is None or isinstance(record, (str, os.PathLike)):
        return
    if not callable(getattr(record, "record", None)):
        raise InvalidArgumentError(
            "record must be a folder (str or Path) or an object with a record(entry) method, "
            f"such as TrafficRecorder('traffic/', redact=...) (got {record!r})"
        )


def _check_tools(tools: Any) -> None:
    single = (
        isinstance(tools, (str, bytes, Mapping, Tool))
        or (isinstance(tools, type) and issubclass(tools, BaseModel))
        or callable(tools)
    )
    if single or not isinstance(tools, Iterable):
        raise InvalidArgumentError(
            f"tools must be a list of tools, e.g. tools=[{getattr(tools, '__name__', 'fn')}] "
            f"(got {type(tools).__name__})"
        )


def _check_int(
    name: str, value: Any, *, minimum: int, maximum: int | None = None, optional: bool = False
) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be an int (got {value!r})")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be >= {minimum} (got {value})")
    if maximum is not None and value > maximum:
        raise InvalidArgumentError(f"{name} must be <= {maximum} (got {value})")


def _check_number(name: str, value: Any, *, optional: bool = False, positive: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgumentError(f"{name} must be a number (got {value!r})")
    if value != value or value in (float("inf"), float("-inf")):
        raise InvalidArgumentError(f"{name} must be finite (got {value!r})")
    if positive and value <= 0:
        raise InvalidArgumentError(f"{name} must be positive (got {value!r})")
    if not positive and value < 0:
        raise InvalidArgumentError(f"{name} must be >= 0 (got {value!r})")


class RunOptions(TypedDict, total=False):
    """The bounds of `run()` and what it forces (both twins); see `ToolCallClient.run`."""

    max_steps: int
    max_requests: int | None
    max_tokens_total: int | None
    loop_guard: int | None
    force: Force


def run_limits(owner: str, options: Mapping[str, Any], *, force: Force) -> RunLimits:
    """Check `run()`'s options and return them as `RunLimits` (the defaults filled in).

    `force` is the client's, used when the run does not give its own.

    Raises:
        TypeError: An option `RunOptions` does not declare.
        InvalidArgumentError: A bound of the wrong type or out of range.
    """
    unknown = sorted(set(options) - set(RunOptions.__annotations__))
    if unknown:
        raise TypeError(
            f"{owner}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"options are: {', '.join(sorted(RunOptions.__annotations__))}"
        )
    limits = RunLimits(**{"force": force, **options})
    _check_force(limits.force)
    _check_int("max_steps", limits.max_steps, minimum=1)
    _check_int("max_requests", limits.max_requests, minimum=1, optional=True)
    _check_int("max_tokens_total", limits.max_tokens_total, minimum=1, optional=True)
    # 1 would answer the first call of a run with "you already called it".
    _check_int("loop_guard", limits.loop_guard, minimum=2, optional=True)
    return limits
