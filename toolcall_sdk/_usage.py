"""The tokens an answer counts for: what the server reported, unless that cannot be true.

A run's `max_tokens_total` is only as good as the counts it adds up, and they come from the
server. A count that cannot be true (negative, not a whole number, not a number at all,
zero prompt tokens, zero completion tokens for an answer that says something) or that is
missing would count as nothing, and a run would go on past its budget for as long as the
server keeps saying so. Such a count is replaced by an estimate from the text it should
have counted: the request's messages and tools for the prompt, the answer's text and calls
for the completion, at `CHARS_PER_TOKEN`. Every request then counts for at least its
prompt, which grows with the conversation, so the budget always runs out. The request's
`max_tokens` is not used instead: it is often unset, and where set it would count a short
answer as its whole limit and stop runs early. The estimate costs one `json.dumps` of the
request, paid only for an answer whose report is not taken.

A `total_tokens` that disagrees with the two counts says one of them is wrong; the larger
reading counts (the difference goes to the prompt), since counting too little is what
lets a run past its limit. A `total_tokens` also fills in the one count that is missing.
Counts that are possible are taken as they are: the client has no tokenizer to check them
against.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

from toolcall_sdk._results import Usage

__all__ = ["CHARS_PER_TOKEN", "estimated_tokens", "trusted_usage"]

# About four characters per token for English text and JSON under the BPE tokenizers of
# the models vLLM serves (the scripted model estimates the same way). An estimate only
# stands in for a count the server did not give or could not have meant; it is never
# compared with one that is possible.
CHARS_PER_TOKEN: Final = 4


def trusted_usage(
    reported: object, *, request: Mapping[str, Any], message: Mapping[str, Any]
) -> Usage:
    """The `Usage` one answer counts for (see the module doc).

    Args:
        reported: The answer's `usage` object as the server sent it (anything).
        request: The request's JSON body: its `messages` and `tools` are the prompt.
        message: The answer's message: its text and calls are the completion.

    Returns:
        The counts to add to the run's usage.
    """
    counts = reported if isinstance(reported, Mapping) else {}
    prompt = _count(counts.get("prompt_tokens"))
    completion = _count(counts.get("completion_tokens"))
    total = _count(counts.get("total_tokens"))
    if prompt == 0:  # a chat template renders tokens of its own around any prompt
        prompt = None
    if completion == 0 and _answer_text(message):
        completion = None
    if total is not None:
        if prompt is None and completion is not None and total > completion:
            prompt = total - completion
        elif completion is None and prompt is not None and total > prompt:
            completion = total - prompt
        elif prompt is not None and completion is not None and total > prompt + completion:
            prompt = total - completion
    if prompt is None:
        prompt = max(estimated_tokens(_prompt_text(request)), 1)
    if completion is None:
        completion = estimated_tokens(_answer_text(message))
    return Usage(prompt, completion)


def estimated_tokens(text: str) -> int:
    """About how many tokens `text` is (`CHARS_PER_TOKEN`), rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _count(value: object) -> int | None:
    # A token count is a whole number of tokens, at least 0; None when it cannot be one.
    # JSON has one number type, so 12.0 is 12; 12.5, -3, "12", true, NaN are not counts.
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value >= 0:
        return int(value)
    return None


def _prompt_text(request: Mapping[str, Any]) -> str:
    # What a chat template renders: the messages, and the tools it writes into the prompt.
    parts = [request.get("messages"), request.get("tools")]
    return "".join(json.dumps(part, ensure_ascii=False, default=str) for part in parts if part)


def _answer_text(message: Mapping[str, Any]) -> str:
    # What the model wrote: its text, its reasoning, and each call's name and arguments.
    pieces: list[str] = []
    for key in ("content", "reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str):
            pieces.append(value)
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            pieces.extend(
                value
                for value in (function.get("name"), function.get("arguments"))
                if isinstance(value, str)
            )
    return "".join(pieces)
