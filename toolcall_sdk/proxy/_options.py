"""The proxy's options, declared once for `create_app` and `serve_proxy`, and their checks."""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import httpx2

from toolcall_sdk import RetryPolicy, ToolCallError
from toolcall_sdk._call_tags import CALL_TAG_MODES, CallTagMode
from toolcall_sdk._listed_values import LISTED_VALUES, ListedValues
from toolcall_sdk._options import DEFAULTS
from toolcall_sdk._recorder import Recorder
from toolcall_sdk._traffic import recorder_for
from toolcall_sdk.grounding import GroundingPolicy, GroundingSpec
from toolcall_sdk.grounding._policy import named_grounding, resolve_grounding
from toolcall_sdk.grounding._unstated import OPTIONAL_VALUES, OptionalValues
from toolcall_sdk.routing import ROUTER_NAMES

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "ROUTERS",
    "ProxyConfig",
    "ProxyConfigError",
    "ProxyOptions",
    "is_loopback",
    "resolve_config",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8100
# The routers a command line can name; an auto `tool_choice` goes through this one.
ROUTERS = ROUTER_NAMES
# Distinct (tools, options, credential) combinations kept as ready clients. Agents reuse
# one tool set per conversation, so a few hundred cover many concurrent applications.
DEFAULT_MAX_CLIENTS = 256


class ProxyConfigError(ToolCallError, ValueError):
    """The proxy cannot start with these options (the message says which one to change)."""


class ProxyOptions(TypedDict, total=False):
    """The keyword options of `create_app` and `serve_proxy`.

    Attributes:
        api_key: The key callers must send (`Authorization: Bearer KEY`); required when
            the proxy binds beyond loopback.
        upstream_api_key: Sent to the upstream instead of the caller's `Authorization`.
        max_retries: Feedback retries after the first forced call (as in the client).
        router: How a request with `tool_choice` `"auto"` (or none) is routed: `"llm"`,
            `"always"` or `"never"`.
        call_tool_choice: The `tool_choice` of the call the router decided on: `"required"`
            (forced, named when one tool is left; the default) or `"auto"`, for servers or
            models that call worse under grammar-constrained decoding (the CPU demo model,
            trained on its own markup): the answer's calls are then read, recovered from the
            text if the server's parser missed them, validated and retried as usual. A
            caller's own `tool_choice="required"` or named function is always forced.
        timeout: Seconds per upstream request.
        retry: Transport retries toward the upstream(s) (429, 5xx, dropped connections).
        max_clients: Ready pipeline clients kept (one per tool set and options).
        http_client: The `httpx2.AsyncClient` used toward the upstream (tests inject a
            `ScriptedModel` transport here); the proxy then does not close it.
        grounding: The grounding check of validated calls against the request's messages
            (user and tool messages, the system prompt): `True`, `False`, a
            `GroundingPolicy`, or a command line's name (`default`, `all`, `off`).
            Default: off, as in the client (the checks it makes even then are the
            client's: a switched tool, an example id, a slip).
        call_tags: What an `auto` answer's call is held to once the model starts it
            (`"off"`, `"schema"`, `"grounded"`: the client's `call_tags=`); the request's
            messages, tool results included, are the stated values.
        listed_values: What an answer that gives fewer calls than the request asks for
            gets (`"off"`, `"ask"`, `"complete"`, `"continue"`, `"continue_listed"`: the client's
            `listed_values=`, and its default `"continue_listed"`); only a conversation that
            ends with the user's request is read.
        optional_values: Whether an optional free-text value no message states is left
            out where its tool documents the default (`"stated"`, the default) or kept
            (`"any"`: the client's `optional_values=`).
        record: Record each tool request the pipeline served: a folder (a
            `TrafficRecorder` on it, one JSON line per request, `source: "proxy"`,
            `operation: "chat"`) or a recorder object; None records nothing. See
            docs/recording.md.
    """

    api_key: str | None
    upstream_api_key: str | None
    max_retries: int
    router: str
    call_tool_choice: str
    timeout: float
    retry: RetryPolicy | None
    max_clients: int
    http_client: httpx2.AsyncClient | None
    grounding: GroundingSpec | str
    call_tags: str
    listed_values: str
    optional_values: str
    record: str | os.PathLike[str] | Recorder | None


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    """Checked options of one proxy app."""

    upstreams: tuple[str, ...]
    api_key: str | None = None
    upstream_api_key: str | None = None
    max_retries: int = 2
    router: str = "llm"
    call_tool_choice: str = "required"
    timeout: float = 120.0
    retry: RetryPolicy | None = None
    max_clients: int = DEFAULT_MAX_CLIENTS
    http_client: httpx2.AsyncClient | None = None
    grounding: GroundingPolicy | None = None
    call_tags: CallTagMode = DEFAULTS["call_tags"]
    listed_values: ListedValues = DEFAULTS["listed_values"]
    optional_values: OptionalValues = DEFAULTS["optional_values"]
    recorder: Recorder | None = None


def resolve_config(upstream: str | Sequence[str], options: ProxyOptions) -> ProxyConfig:
    """Check the options and fix them in a `ProxyConfig`.

    Raises:
        ProxyConfigError: No upstream, an upstream that is not an http(s) URL, an unknown
            router, a negative retry count, a timeout that is not a positive number, or an
            unknown grounding, call tags, listed values or optional values.
    """
    upstreams = (upstream,) if isinstance(upstream, str) else tuple(upstream)
    if not upstreams:
        raise ProxyConfigError("give at least one --upstream, e.g. http://127.0.0.1:8000/v1")
    for url in upstreams:
        if not url.startswith(("http://", "https://")):
            raise ProxyConfigError(
                f"--upstream {url!r} is not an http(s) URL; give the server's /v1 URL, "
                "e.g. http://127.0.0.1:8000/v1"
            )
    router = options.get("router", "llm")
    if router not in ROUTERS:
        raise ProxyConfigError(f"--router must be one of {', '.join(ROUTERS)} (got {router!r})")
    call_tool_choice = options.get("call_tool_choice", "required")
    if call_tool_choice not in ("required", "auto"):
        raise ProxyConfigError(
            f"--call-tool-choice must be required or auto (got {call_tool_choice!r})"
        )
    max_retries = options.get("max_retries", 2)
    if max_retries < 0:
        raise ProxyConfigError(f"--max-retries must be 0 or more (got {max_retries})")
    timeout = options.get("timeout", 120.0)
    if not (math.isfinite(timeout) and timeout > 0):
        raise ProxyConfigError(f"--timeout must be a positive number of seconds (got {timeout})")
    max_clients = options.get("max_clients", DEFAULT_MAX_CLIENTS)
    if max_clients < 1:
        raise ProxyConfigError(f"max_clients must be at least 1 (got {max_clients})")
    # The client's defaults, as `toolcall-sdk proxy` gives them.
    call_tags = _choice(options, "call_tags", DEFAULTS["call_tags"], CALL_TAG_MODES)
    listed_values = _choice(options, "listed_values", DEFAULTS["listed_values"], LISTED_VALUES)
    optional_values = _choice(
        options, "optional_values", DEFAULTS["optional_values"], OPTIONAL_VALUES
    )
    try:
        given = options.get("grounding", False)
        grounding = named_grounding(given) if isinstance(given, str) else resolve_grounding(given)
    except ToolCallError as exc:
        raise ProxyConfigError(str(exc)) from None
    return ProxyConfig(
        upstreams=tuple(url.rstrip("/") for url in upstreams),
        api_key=options.get("api_key") or None,
        upstream_api_key=options.get("upstream_api_key") or None,
        max_retries=max_retries,
        router=router,
        call_tool_choice=call_tool_choice,
        timeout=timeout,
        retry=options.get("retry"),
        max_clients=max_clients,
        http_client=options.get("http_client"),
        grounding=grounding,
        call_tags=call_tags,
        listed_values=listed_values,
        optional_values=optional_values,
        recorder=_recorder(options.get("record")),
    )


def _choice(options: ProxyOptions, name: str, default: str, choices: Sequence[str]) -> Any:
    """The option `name`, one of `choices` (its command line flag in the error)."""
    value = options.get(name, default)
    if value not in choices:
        flag = "--" + name.replace("_", "-")
        raise ProxyConfigError(f"{flag} must be one of {', '.join(choices)} (got {value!r})")
    return value


def _recorder(spec: Any) -> Recorder | None:
    """One recorder for every pipeline client: their entries say they came through here."""
    if spec is None:
        return None
    try:
        recorder = recorder_for(spec)
    except ToolCallError as exc:
        raise ProxyConfigError(f"--record: {exc}") from None
    return None if recorder is None else ProxyRecorder(recorder)


class ProxyRecorder:
    """Marks each entry as the proxy's (`source: "proxy"`, `operation: "chat"`)."""

    def __init__(self, inner: Recorder) -> None:
        self.inner = inner

    def record(self, entry: dict[str, Any]) -> None:
        self.inner.record({**entry, "source": "proxy", "operation": "chat"})


def is_loopback(host: str) -> bool:
    """Whether `host` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere
