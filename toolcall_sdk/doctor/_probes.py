"""The checks `toolcall-sdk doctor` runs against a live server.

Each check sends one or two small requests (temperature 0, few tokens) and records a
finding with the fix — usually the exact vLLM flag. The probes talk HTTP directly (httpx2)
rather than through the SDK's client, because they must see what the server really does:
a 400 body, tool calls left in `content`, prompt token counts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2

from toolcall_sdk._families import UnknownFamilyError, resolve_family
from toolcall_sdk._feedback import CUT_OFF
from toolcall_sdk._transport import error_body_message
from toolcall_sdk.doctor._embeds_probe import check_prompt_embeds
from toolcall_sdk.doctor._findings import Report
from toolcall_sdk.doctor._markup import detect_markup
from toolcall_sdk.vllm_plugin import plugin_path

__all__ = ["run_doctor"]

# vLLM added tool_choice="required" in 0.8.3; older servers reject it.
_MIN_REQUIRED_VERSION = (0, 8, 3)
_PROBE_MAX_TOKENS = 96
# A cut answer ending in this much whitespace was not cut mid-value: the grammar let the
# model pad the JSON and it never stopped (a real value is a few characters from its end).
_RUNAWAY_MIN_WHITESPACE = 16
_COMPACT_JSON_FIX = (
    "start vLLM with --structured-outputs-config "
    '\'{"backend": "xgrammar", "disable_any_whitespace": true}\' (`toolcall-sdk launch` adds '
    "it); vLLM 0.8.2-0.10.1: --guided-decoding-backend xgrammar:disable-any-whitespace"
)
# The weather tool is the canonical example every tool-tuned model has seen.
_PROBE_PROMPT = "What is the weather in Paris right now, in celsius? Use the get_weather tool."


def _probe_tool(name: str = "get_weather", parameter: str = "city") -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    parameter: {"type": "string", "description": "City name, e.g. Paris"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": [parameter, "unit"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


@dataclass(slots=True)
class _ProbeReply:
    status: int
    body: dict[str, Any] | None
    seconds: float
    error: str = ""

    @property
    def message(self) -> dict[str, Any]:
        choices = (self.body or {}).get("choices") or [{}]
        message = choices[0].get("message") or {}
        return message if isinstance(message, dict) else {}

    @property
    def server_message(self) -> str:
        return error_body_message(self.body)


class _Session:
    def __init__(
        self, http: httpx2.Client, base_url: str, model: str, clock: Callable[[], float]
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.clock = clock

    def chat(self, **body: Any) -> _ProbeReply:
        payload = {
            "model": self.model,
            "messages": [{"role": "user", "content": _PROBE_PROMPT}],
            "temperature": 0,
            "max_tokens": _PROBE_MAX_TOKENS,
            **body,
        }
        started = self.clock()
        try:
            response = self.http.post(f"{self.base_url}/chat/completions", json=payload)
        except httpx2.HTTPError as exc:
            return _ProbeReply(0, None, self.clock() - started, f"{type(exc).__name__}: {exc}")
        elapsed = self.clock() - started
        try:
            parsed = response.json()
        except ValueError:
            parsed = None
        return _ProbeReply(
            response.status_code, parsed if isinstance(parsed, dict) else None, elapsed
        )


def run_doctor(
    base_url: str,
    *,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float = 120.0,
    http_client: httpx2.Client | None = None,
    clock: Callable[[], float] = time.perf_counter,
    hidden_size: int | None = None,
) -> Report:
    """Probe a running OpenAI-compatible server and report what works for tool calling.

    Args:
        base_url: The server's `/v1` URL.
        model: The served model name; the first one the server lists when omitted.
        api_key: The server's `--api-key`, if it has one (never printed).
        timeout: Seconds per request (the first strict call compiles a grammar).
        http_client: An `httpx2.Client` to use (tests pass the scripted model's).
        clock: Time source for the latency figures.
        hidden_size: The model's hidden size, to probe prompt embeddings with a tensor of
            the right width (read from the model's config.json when it is on this machine).

    Returns:
        The report; `report.exit_code` is non-zero when a check failed.
    """
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    owned = http_client is None
    http = http_client or httpx2.Client(timeout=timeout)
    try:
        report = Report(base_url=base_url, model=model)
        served = _check_models(http, base_url, headers, report)
        if served is None:
            return report
        chosen = _choose_model(model, served, report)
        if chosen is None:
            return report
        report.model = chosen
        _check_version(http, base_url, headers, report)
        if headers:
            http.headers.update(headers)
        session = _Session(http, base_url, chosen, clock)
        parser = _family_parser(chosen)
        _check_auto(session, report, parser)
        _check_forced(session, report, parser, named=False)
        _check_forced(session, report, parser, named=True)
        _check_template(session, report)
        _check_grammar_latency(session, report)
        check_prompt_embeds(http, base_url, chosen, report, hidden_size=hidden_size)
        return report
    finally:
        if owned:
            http.close()


def _check_models(
    http: httpx2.Client, base_url: str, headers: dict[str, str], report: Report
) -> list[str] | None:
    url = f"{base_url.rstrip('/')}/models"
    try:
        response = http.get(url, headers=headers)
    except httpx2.HTTPError as exc:
        report.add(
            "server reachable",
            "fail",
            f"GET {url} failed: {type(exc).__name__}: {exc}",
            "start a server (`toolcall-sdk launch MODEL`) or fix --base-url",
        )
        return None
    if response.status_code in (401, 403):
        report.add(
            "server reachable",
            "fail",
            f"GET {url} answered {response.status_code}: the server wants an API key",
            "pass --api-key (the key vLLM was started with)",
        )
        return None
    if response.status_code != 200:
        report.add(
            "server reachable",
            "fail",
            f"GET {url} answered HTTP {response.status_code}",
            "check that --base-url ends in /v1 and points at an OpenAI-compatible server",
        )
        return None
    try:
        data = response.json().get("data") or []
        served = [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]
    except (ValueError, AttributeError):
        served = []
    report.add("server reachable", "ok", f"{url} lists {len(served)} model(s)")
    return served


def _choose_model(model: str | None, served: list[str], report: Report) -> str | None:
    if model is None:
        if not served:
            report.add("model", "fail", "the server lists no model", "pass --model")
            return None
        report.add("model", "info", f"probing {served[0]!r} (first listed; --model to choose)")
        return served[0]
    if served and model not in served:
        report.add(
            "model",
            "fail",
            f"{model!r} is not served; the server lists {', '.join(served)}",
            "use one of the listed names (vLLM's --served-model-name)",
        )
        return None
    report.add("model", "ok", f"{model!r} is served")
    return model


def _check_version(
    http: httpx2.Client, base_url: str, headers: dict[str, str], report: Report
) -> None:
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        response = http.get(f"{root}/version", headers=headers)
        version = str(response.json().get("version", "")) if response.status_code == 200 else ""
    except (httpx2.HTTPError, ValueError, AttributeError):
        version = ""
    if not version:
        report.add("vLLM version", "info", "no /version endpoint: not vLLM, or behind a proxy")
        return
    numbers = tuple(int(part) for part in _leading_numbers(version))
    if numbers and numbers < _MIN_REQUIRED_VERSION:
        report.add(
            "vLLM version",
            "fail",
            f"vLLM {version} predates tool_choice='required' (0.8.3)",
            "upgrade vLLM to 0.8.3 or newer",
        )
        return
    report.add("vLLM version", "ok", f"vLLM {version}")


def _check_auto(session: _Session, report: Report, parser: str) -> None:
    reply = session.chat(tools=[_probe_tool()], tool_choice="auto")
    if reply.status != 200:
        message = reply.server_message or reply.error
        if "auto" in message.lower() and "tool" in message.lower():
            report.add(
                "auto tool choice",
                "fail",
                f"HTTP {reply.status}: {message}",
                f"start vLLM with --enable-auto-tool-choice --tool-call-parser {parser}",
            )
        else:
            report.add("auto tool choice", "fail", f"HTTP {reply.status}: {message}")
        return
    report.add("auto tool choice", "ok", "enabled on the server")
    _check_parser(reply, report, parser)


def plugin_flags(parser: str) -> str:
    """The vLLM flags that load the SDK's plugin and select one of its parsers."""
    return f"--tool-parser-plugin {plugin_path()} --tool-call-parser {parser}"


def _check_parser(reply: _ProbeReply, report: Report, parser: str) -> None:
    message = reply.message
    if message.get("tool_calls"):
        report.add("tool-call parser", "ok", "the model's call came back as tool_calls")
        return
    offered = [_probe_tool()["function"]["name"]]
    for text in (message.get("content"), message.get("reasoning_content")):
        found = detect_markup(text if isinstance(text, str) else None, parser=parser, tools=offered)
        if found is not None:
            name, suggested = found
            if suggested.startswith("toolcall_"):
                # Only the SDK's plugin reads this form; `launch` loads it by itself.
                report.add(
                    "tool-call parser",
                    "fail",
                    f"the call landed in content as {name} call objects, which no vLLM parser "
                    "reads: the server needs the SDK's parser plugin",
                    f"restart with `toolcall-sdk launch MODEL`, or add {plugin_flags(suggested)}; "
                    "until then the SDK's forced calls and its recovery still work",
                )
                return
            if suggested == "hermes":
                # Fine-tunes whose tags are ordinary tokens are better served by the SDK's
                # buffered parser plugin (docs/parsing.md); `launch` picks it by itself.
                suggested += " (or the SDK's toolcall_hermes plugin, docs/parsing.md)"
            report.add(
                "tool-call parser",
                "fail",
                f"the call landed in content as {name} markup: the server's "
                "--tool-call-parser does not match the model's format",
                f"restart with --tool-call-parser {suggested} (or `toolcall-sdk launch MODEL`); "
                "until then the SDK's forced calls still work",
            )
            return
    report.add(
        "tool-call parser",
        "warn",
        "with tool_choice='auto' the model answered in plain text; the parser could not be checked",
        f"the model's family expects --tool-call-parser {parser}",
    )


def _check_forced(session: _Session, report: Report, parser: str, *, named: bool) -> None:
    check = "named tool_choice" if named else "required tool_choice"
    choice: Any = {"type": "function", "function": {"name": "get_weather"}} if named else "required"
    reply = session.chat(tools=[_probe_tool()], tool_choice=choice)
    if reply.status != 200:
        report.add(
            check,
            "fail",
            f"HTTP {reply.status}: {reply.server_message or reply.error}",
            "use vLLM 0.8.3 or newer with structured outputs available",
        )
        return
    calls = reply.message.get("tool_calls") or []
    finish = ((reply.body or {}).get("choices") or [{}])[0].get("finish_reason")
    if finish == "length" and _ends_in_whitespace_run(reply.message):
        report.add(
            check,
            "fail",
            f"{CUT_OFF} (max_tokens={_PROBE_MAX_TOKENS}) inside the JSON, emitting "
            "whitespace: the server's grammar allows free whitespace and the model never "
            "closes the call",
            _COMPACT_JSON_FIX,
        )
        return
    if not calls:
        if finish == "length":
            detail = (
                f"no tool_calls: {CUT_OFF} (max_tokens={_PROBE_MAX_TOKENS}) before the call "
                "closed; the server did not constrain the arguments, or the model rambles"
            )
            fix = (
                "send tools with strict=true (the SDK's default) or start vLLM with "
                "--tool-strict-level parameter"
            )
        else:
            detail = f"no tool_calls in the answer (finish_reason={finish})"
            fix = f"check --tool-call-parser {parser} and the chat template"
        report.add(check, "fail", detail, fix)
        return
    report.add(check, "ok", f"{calls[0].get('function', {}).get('name')} in {reply.seconds:.2f}s")


def _ends_in_whitespace_run(message: dict[str, Any]) -> bool:
    """Whether the text or the arguments of a cut answer end in a long run of whitespace."""
    texts = [message.get("content"), message.get("reasoning_content")]
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            texts.append(function.get("arguments"))
    return any(
        isinstance(text, str) and len(text) - len(text.rstrip()) >= _RUNAWAY_MIN_WHITESPACE
        for text in texts
    )


def _check_template(session: _Session, report: Report) -> None:
    without = session.chat(max_tokens=1)
    with_tools = session.chat(max_tokens=1, tools=[_probe_tool()], tool_choice="auto")
    if with_tools.status != 200:
        with_tools = session.chat(max_tokens=1, tools=[_probe_tool()], tool_choice="required")
    plain, tooled = _prompt_tokens(without), _prompt_tokens(with_tools)
    if plain is None or tooled is None:
        report.add("chat template renders tools", "warn", "the server reported no token usage")
        return
    if tooled <= plain:
        report.add(
            "chat template renders tools",
            "fail",
            f"the prompt is {plain} tokens with or without tools: the model never sees them",
            "start vLLM with --chat-template FILE (a template that renders `tools`)",
        )
        return
    report.add("chat template renders tools", "ok", f"tools add {tooled - plain} prompt tokens")


def _check_grammar_latency(session: _Session, report: Report) -> None:
    # A schema the server has never seen, so the first call pays the grammar compile.
    suffix = uuid.uuid4().hex[:8]
    tool = _probe_tool(name=f"probe_{suffix}", parameter=f"value_{suffix}")
    choice = {"type": "function", "function": {"name": tool["function"]["name"]}}
    first = session.chat(tools=[tool], tool_choice=choice, max_tokens=16)
    second = session.chat(tools=[tool], tool_choice=choice, max_tokens=16)
    if first.status != 200 or second.status != 200:
        report.add("grammar compile", "info", "skipped: named calls do not work")
        return
    report.add(
        "grammar compile",
        "info",
        f"first call with a new schema {first.seconds:.2f}s, repeated {second.seconds:.2f}s",
    )


def _prompt_tokens(reply: _ProbeReply) -> int | None:
    usage = (reply.body or {}).get("usage") or {}
    value = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return int(value) if isinstance(value, int) else None


def _family_parser(model: str) -> str:
    try:
        return resolve_family(model).tool_call_parser
    except UnknownFamilyError:  # no hint then
        return "<the parser of your model family>"


def _leading_numbers(version: str) -> list[str]:
    parts: list[str] = []
    for part in version.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit()) if part[:1].isdigit() else ""
        if not digits:
            break
        parts.append(digits)
    return parts
