"""History normalisation: the conversation as vLLM's chat templates accept it.

Applied to the user's messages before each request. Templates differ in what they choke on:
tool-call arguments must be JSON strings, an empty `tool_calls` list breaks several of them,
Mistral's template rejects tool-call ids that are not exactly nine alphanumerics, and most
templates render only one leading system message.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from toolcall_sdk.parsing import format_for

__all__ = ["normalize_history"]

_MISTRAL_ID_LENGTH = 9


def normalize_history(messages: Sequence[dict[str, Any]], *, model: str) -> list[dict[str, Any]]:
    """Return a normalised copy of `messages` for the model family of `model`."""
    mistral = _is_mistral(model)
    ids: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        item = dict(message)
        role = item.get("role")
        if role == "assistant":
            calls = item.get("tool_calls")
            if not calls:
                item.pop("tool_calls", None)
            else:
                item["tool_calls"] = [_normalize_call(call, ids, mistral) for call in calls]
        elif role == "tool" and mistral and isinstance(item.get("tool_call_id"), str):
            item["tool_call_id"] = _mistral_id(item["tool_call_id"], ids)
        if (
            role == "system"
            and out
            and out[-1].get("role") == "system"
            and isinstance(out[-1].get("content"), str)
            and isinstance(item.get("content"), str)
        ):
            out[-1] = {**out[-1], "content": f"{out[-1]['content']}\n\n{item['content']}"}
            continue
        out.append(item)
    return out


# Once per model name, not per request: reading the family from a name that matches none
# walks every family's patterns (tens of microseconds). The tables it reads are constants.
@functools.lru_cache(maxsize=64)
def _is_mistral(model: str) -> bool:
    return format_for(model) == "mistral"


def _normalize_call(call: Any, ids: dict[str, str], mistral: bool) -> Any:
    if not isinstance(call, dict):
        return call
    call = dict(call)
    function = dict(call.get("function") or {})
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        function["arguments"] = json.dumps(arguments if arguments is not None else {})
    call["function"] = function
    call.setdefault("type", "function")
    if mistral and isinstance(call.get("id"), str):
        call["id"] = _mistral_id(call["id"], ids)
    return call


def _mistral_id(original: str, ids: dict[str, str]) -> str:
    if original.isalnum() and len(original) == _MISTRAL_ID_LENGTH:
        return original
    if original not in ids:
        # A stable digest, so the same id maps the same way in the call and its tool reply.
        ids[original] = hashlib.sha256(original.encode()).hexdigest()[:_MISTRAL_ID_LENGTH]
    return ids[original]
