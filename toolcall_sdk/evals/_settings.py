"""Where and how the ladder's rungs reach the servers: `EvalSettings`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolcall_sdk._example_bank import ExampleBank, ExamplesSpec
from toolcall_sdk._transport import RetryPolicy
from toolcall_sdk.routing import RouterSpec

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "EvalSettings",
    "auto_server_note",
    "describe_settings",
    "raw_request_options",
]

DEFAULT_MAX_TOKENS: Final = 256
"""Token limit per answer unless told otherwise. A tool call or a short reply fits in far
less; without a limit an answer that runs away (a value repeated without end) takes the
rest of the context, and one such case can cost more time than the whole run."""


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """Where and how the pipelines reach the server.

    Attributes:
        base_url: The server's `/v1` URL (served with the right tool parser: the SDK's
            plugin parser).
        model: The served model name.
        api_key: The server's key, if it has one.
        router: The `full` pipeline's router (`llm`, `always`, ...).
        max_retries: The `full` pipeline's feedback retries.
        timeout: Seconds per request.
        max_tokens: Token limit per answer (None: the server's default).
        retry: The SDK pipelines' transport retries (None: the client's default); tests
            pass one whose sleeps are recorded.
        wrong_parser_base_url: A second server with the same model behind vLLM's plain
            `hermes` parser, for the `auto` rung; None runs `auto` against `base_url`.
        grounding: The `full` pipeline's grounding check: `default` (the client's
            default: identifiers and dates), `all` (numbers too) or `off`. The other SDK
            rungs measure what they always did, without it.
        grounded_decoding: The `full` pipeline's grounded decoding (`off`, `retry`,
            `forced`: the client's `grounded_decoding=`).
        call_tags: The `full` pipeline's call tags (`off`, `schema`, `grounded`: the
            client's `call_tags=`).
        listed_values: The `full` pipeline's answer to a request that lists more values
            than its calls used (`off`, `ask`, `complete`, `continue`,
            `continue_listed`: the client's `listed_values=`).
        optional_values: The `full` pipeline's optional values (`stated`, `any`: the
            client's `optional_values=`).
        samples: The `full` pipeline's answers per stage-2 request (the client's
            `samples=`; 1 asks for one).
        parallel_tool_calls: Sent as `parallel_tool_calls` by every rung when set; True
            also keeps the SDK rungs' forced call with one tool on `required` instead of
            naming it (a named choice is decoded as one call).
        examples: The `full` pipeline's demonstrations (the client's `examples=`: an
            `ExampleBank`, a case file or a list of cases); None shows none. Build the bank
            once: a path here is read again for every case.
    """

    base_url: str
    model: str
    api_key: str | None = None
    router: RouterSpec = "llm"
    max_retries: int = 2
    timeout: float = 120.0
    max_tokens: int | None = DEFAULT_MAX_TOKENS
    retry: RetryPolicy | None = None
    wrong_parser_base_url: str | None = None
    grounding: str = "off"
    grounded_decoding: str = "off"
    call_tags: str = "off"
    listed_values: str = "continue_listed"
    optional_values: str = "stated"
    samples: int = 1
    parallel_tool_calls: bool | None = None
    examples: ExamplesSpec = None

    @property
    def auto_base_url(self) -> str:
        """The server the `auto` rung asks."""
        return self.wrong_parser_base_url or self.base_url


def raw_request_options(settings: EvalSettings) -> dict[str, Any]:
    """What a plain openai request of the raw rungs and the raw loop takes from the settings.

    Temperature 0, as the SDK samples: the ladder measures the pipeline, not the sampler.
    `max_tokens` and `parallel_tool_calls` only when set, as the SDK's client sends them.
    """
    options: dict[str, Any] = {"temperature": 0.0}
    if settings.max_tokens is not None:
        options["max_tokens"] = settings.max_tokens
    if settings.parallel_tool_calls is not None:
        options["parallel_tool_calls"] = settings.parallel_tool_calls
    return options


def describe_settings(settings: EvalSettings) -> Mapping[str, Any]:
    """The settings as report metadata (no credential)."""
    return {
        "base_url": settings.base_url,
        "wrong_parser_base_url": settings.wrong_parser_base_url,
        "model": settings.model,
        "router": settings.router if isinstance(settings.router, str) else repr(settings.router),
        "max_retries": settings.max_retries,
        "max_tokens": settings.max_tokens,
        "grounding": settings.grounding,
        "grounded_decoding": settings.grounded_decoding,
        "call_tags": settings.call_tags,
        "listed_values": settings.listed_values,
        "optional_values": settings.optional_values,
        "samples": settings.samples,
        "parallel_tool_calls": settings.parallel_tool_calls,
        "examples": _described_examples(settings.examples),
    }


def _described_examples(examples: ExamplesSpec) -> str | None:
    """The demonstrations as report metadata: the bank's repr, or the file."""
    if examples is None or isinstance(examples, (str, os.PathLike)):
        return None if examples is None else os.fspath(examples)
    if isinstance(examples, ExampleBank):
        return repr(examples)
    return f"{len(examples)} given cases"


def auto_server_note(settings: EvalSettings) -> str:
    """Which server the `auto` rung asked, in words for the report."""
    if settings.wrong_parser_base_url:
        return f"{settings.wrong_parser_base_url} (the wrong-parser server)"
    return (
        f"{settings.base_url} (no --wrong-parser-base-url given: the same server as "
        "auto+parser, so the two rows measure the same thing)"
    )
