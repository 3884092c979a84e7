"""Turn an assistant message reply into the JSON an OpenAI-compatible server sends.

The bodies are built from `openai`'s own response types and serialised with
`model_dump_json`, so what the client parses is exactly what its own types describe.
Only fields set here are written (`exclude_unset`), as a real server omits the rest.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openai.types import Completion, CompletionChoice, CompletionUsage, Model
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
)
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message_function_tool_call import Function

from ._replies import FinishReason

__all__ = [
    "CREATED",
    "CompletionPlan",
    "ResolvedCall",
    "combined_usage",
    "completion_body",
    "estimate_usage",
    "models_body",
    "text_completion_body",
]

CREATED = 1_700_000_000
"""The `created` timestamp of every response: fixed, so responses are reproducible."""

_CHARS_PER_TOKEN = 4
"""The usual rule of thumb for English text; good enough for a default token count."""


@dataclass(frozen=True)
class ResolvedCall:
    """A tool call with its id decided."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class CompletionPlan:
    """Everything needed to render one successful chat completion, ids and usage decided.

    The fields describe choice 0; `others` are the choices after it (a request's `n`),
    whose id, model and usage are not read.
    """

    completion_id: str
    model: str
    content: str | None
    tool_calls: tuple[ResolvedCall, ...]
    finish_reason: FinishReason
    usage: CompletionUsage
    others: tuple[CompletionPlan, ...] = ()


def combined_usage(plans: Sequence[CompletionPlan]) -> CompletionUsage:
    """One request's usage over its choices: the prompt once, every choice's completion."""
    prompt = plans[0].usage.prompt_tokens
    completion = sum(plan.usage.completion_tokens for plan in plans)
    return CompletionUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def completion_body(answer: CompletionPlan) -> bytes:
    """The JSON body of a non-streamed `ChatCompletion`.

    Args:
        answer: The answer to render.

    Returns:
        The body.
    """
    completion = ChatCompletion(
        id=answer.completion_id,
        object="chat.completion",
        created=CREATED,
        model=answer.model,
        choices=[
            Choice(
                index=index, message=_message(plan), finish_reason=plan.finish_reason, logprobs=None
            )
            for index, plan in enumerate((answer, *answer.others))
        ],
        usage=answer.usage,
    )
    return completion.model_dump_json(exclude_unset=True).encode()


def _message(plan: CompletionPlan) -> ChatCompletionMessage:
    calls = [
        ChatCompletionMessageFunctionToolCall(
            id=call.id, type="function", function=Function(name=call.name, arguments=call.arguments)
        )
        for call in plan.tool_calls
    ]
    if calls:
        return ChatCompletionMessage(role="assistant", content=plan.content, tool_calls=calls)
    return ChatCompletionMessage(role="assistant", content=plan.content)


def text_completion_body(answer: CompletionPlan) -> bytes:
    """The JSON body of a non-streamed `/v1/completions` answer (a text `Completion`).

    Args:
        answer: The answer to render; its content is the completion's text.

    Returns:
        The body.
    """
    finish = "length" if answer.finish_reason == "length" else "stop"
    completion = Completion(
        id=answer.completion_id,
        object="text_completion",
        created=CREATED,
        model=answer.model,
        choices=[
            CompletionChoice(
                index=0, text=answer.content or "", finish_reason=finish, logprobs=None
            )
        ],
        usage=answer.usage,
    )
    return completion.model_dump_json(exclude_unset=True).encode()


def models_body(model: str, *, max_model_len: int | None = None, root: str | None = None) -> bytes:
    """The JSON body of `GET /v1/models`: a list holding the one scripted model.

    Args:
        model: The model name.
        max_model_len: vLLM's `max_model_len` field, sent when given.
        root: vLLM's `root` field (the model's path or id), sent when given.

    Returns:
        The body.
    """
    entry = Model(id=model, object="model", created=CREATED, owned_by="toolcall-sdk")
    data = entry.model_dump(mode="json")
    if max_model_len is not None:
        data["max_model_len"] = max_model_len
    if root is not None:
        data["root"] = root
    return json.dumps({"object": "list", "data": [data]}).encode()


def estimate_usage(request_json: dict[str, Any] | None, answer_text: str) -> CompletionUsage:
    """A rough, deterministic token count for replies that did not script their usage.

    Args:
        request_json: The request body; its `messages` and `tools` are counted as the
            prompt (a chat template renders the tools into it, so offering tools makes
            the prompt longer, as on a real server).
        answer_text: The generated text: content plus tool names and arguments.

    Returns:
        The usage.
    """
    body = request_json or {}
    # A chat request's messages and tools (a template renders the tools into the prompt),
    # or a completions request's text prompt (embedded prompts are not counted: their size
    # is not the server's token count).
    rendered = [body.get("messages") or body.get("prompt") or [], body.get("tools") or []]
    prompt = sum(_tokens(json.dumps(part, ensure_ascii=False)) for part in rendered if part)
    completion = _tokens(answer_text)
    return CompletionUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def _tokens(text: str) -> int:
    return math.ceil(len(text) / _CHARS_PER_TOKEN)
