"""The doctor's prompt-embeddings check: does the server take `prompt_embeds`?

It sends one tensor of a single zero token through the Completions API, and only when the
model's hidden size is known (given, or read from the served model's `config.json` when
its folder is on this machine): a tensor of the wrong width can crash a vLLM engine, so
the check never guesses one. Not taking embeddings is normal (the flag is opt-in), so the
finding is information, not a failure.
"""

from __future__ import annotations

from typing import Any

import httpx2

from toolcall_sdk._extras import MissingDependencyError
from toolcall_sdk._transport import error_body_message
from toolcall_sdk.doctor._findings import Report
from toolcall_sdk.embeds._codec import encode, torch_module
from toolcall_sdk.embeds._model import ServedLimits, hidden_size_of, served_limits

__all__ = ["CHECK", "check_prompt_embeds"]

CHECK = "prompt embeds"
_ENABLE_FIX = "start vLLM with --enable-prompt-embeds (trusted clients only) to use them"


def check_prompt_embeds(
    http: httpx2.Client, base_url: str, model: str, report: Report, *, hidden_size: int | None
) -> None:
    """Record whether the server accepts prompt embeddings, or that it is unknown."""
    base = base_url.rstrip("/")
    limits = _limits(http, base, model)
    width = (
        hidden_size
        or (hidden_size_of(limits.root) if limits.root else None)
        or hidden_size_of(model)
    )
    if width is None:
        report.add(
            CHECK,
            "info",
            "unknown: the model's hidden size is not known here, and a tensor of the wrong "
            "width can crash the engine; pass --hidden-size N to probe",
        )
        return
    try:
        data = encode(torch_module().zeros(1, width), hidden_size=width)
    except MissingDependencyError as exc:
        report.add(CHECK, "info", f"unknown: the probe needs torch ({exc.install})")
        return
    body = {
        "model": model,
        "prompt": None,
        "prompt_embeds": data,
        "max_tokens": 1,
        "temperature": 0,
    }
    try:
        response = http.post(f"{base}/completions", json=body)
    except httpx2.HTTPError as exc:
        report.add(CHECK, "warn", f"the probe failed: {type(exc).__name__}: {exc}")
        return
    if response.status_code == 200:
        report.add(
            CHECK,
            "ok",
            f"the server accepts prompt embeddings (hidden size {width}); clients should pass "
            f"hidden_size={width} so a wrong tensor never reaches it",
        )
        return
    message = error_body_message(_json(response))
    if "enable-prompt-embeds" in message or "enable_prompt_embeds" in message:
        report.add(CHECK, "info", "not enabled on the server", _ENABLE_FIX)
        return
    report.add(
        CHECK,
        "warn",
        f"a (1, {width}) tensor got HTTP {response.status_code}: {message or 'no message'}",
        f"check the hidden size ({width}) and {_ENABLE_FIX}",
    )


def _limits(http: httpx2.Client, base: str, model: str) -> ServedLimits:
    try:
        response = http.get(f"{base}/models")
    except httpx2.HTTPError:
        return ServedLimits()
    return served_limits(_json(response), model) if response.status_code == 200 else ServedLimits()


def _json(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
