"""Prompt embeddings in the clients: the guard before chat requests, and `complete_embeds`.

`EmbedsSupport` is held by both client twins. Before a chat request whose messages carry
`prompt_embeds` parts it checks them (`_embeds_guard`); `complete()` sends one tensor to
the Completions API (`/v1/completions`, key `prompt_embeds`, no chat template applied).
What it needs from the server, `max_model_len` and the model's path (from which the hidden
size is read when the model is on this machine), comes from one `GET /v1/models`, asked only
when embeddings are first sent and then kept. Messages without embeddings cost nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from toolcall_sdk._errors import MalformedResponseError
from toolcall_sdk._results import Usage
from toolcall_sdk._transport import RetryPolicy, async_retrying, retrying, translate_error
from toolcall_sdk.embeds._checks import (
    MAX_TENSOR_BYTES,
    check_fits,
    check_tensor,
    check_width,
)
from toolcall_sdk.embeds._codec import decode, encode
from toolcall_sdk.embeds._guard import PartShape, check_shapes, has_prompt_embeds, read_parts
from toolcall_sdk.embeds._model import ServedLimits, hidden_size_of, served_limits

__all__ = ["EmbedsCompletion", "EmbedsSupport"]

logger = logging.getLogger("toolcall_sdk")


@dataclass(frozen=True, slots=True)
class EmbedsCompletion:
    """What `complete_embeds()` returns.

    Attributes:
        text: The generated text.
        finish_reason: `"stop"`, `"length"`, ... as the server said.
        usage: Prompt and completion tokens, as the server counted them.
        latency_s: Seconds from sending to the answer, transport retries included.
    """

    text: str
    finish_reason: str | None
    usage: Usage
    latency_s: float


class EmbedsSupport:
    """The prompt-embeddings state of one client: the width to check and the server's limits.

    Args:
        model: The served model name.
        hidden_size: The served model's hidden size, when the user knows it; otherwise it
            is read once from the model's `config.json` when the server's model path is on
            this machine (or in the Hugging Face cache).
        max_tokens: The client's answer limit, which must fit beside the prompt.
        temperature: The client's temperature (the default of `complete()`).
        extra_body: The client's extra request fields (sent by `complete()` too).
        max_bytes: The size limit of one tensor.
    """

    def __init__(
        self,
        *,
        model: str,
        hidden_size: int | None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        max_bytes: int = MAX_TENSOR_BYTES,
    ) -> None:
        if hidden_size is not None and (
            not isinstance(hidden_size, int) or isinstance(hidden_size, bool) or hidden_size < 1
        ):
            raise ValueError(f"hidden_size must be a positive int or None (got {hidden_size!r})")
        self._model = model
        self._hidden_size = hidden_size
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._extra_body = dict(extra_body or {})
        self._max_bytes = max_bytes
        self._limits: ServedLimits | None = None
        self._warned = False

    @property
    def hidden_size(self) -> int | None:
        """The width tensors are checked against: given, or read from the model's config."""
        return self._hidden_size

    @property
    def max_model_len(self) -> int | None:
        """The server's context length, once it has been asked."""
        return self._limits.max_model_len if self._limits else None

    # -- the chat guard -------------------------------------------------------------------

    def check(self, messages: Any, client: openai.OpenAI) -> None:
        """Refuse messages whose embeddings this server cannot take; no I/O without any.

        A tensor that is wrong whatever the server (rank, dtype, values, the width given
        by the user) is refused before the server's limits are asked for.
        """
        if not has_prompt_embeds(messages):
            return
        shapes = read_parts(messages, hidden_size=self._hidden_size, max_bytes=self._max_bytes)
        if self._limits is None:
            self._learn(self._fetch(client))
        self._check_shapes(shapes)

    async def acheck(self, messages: Any, client: openai.AsyncOpenAI) -> None:
        """`check()` for the async client."""
        if not has_prompt_embeds(messages):
            return
        shapes = read_parts(messages, hidden_size=self._hidden_size, max_bytes=self._max_bytes)
        if self._limits is None:
            self._learn(await self._afetch(client))
        self._check_shapes(shapes)

    def guarded(
        self, messages: Any, client: openai.AsyncOpenAI, events: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        """`events`, started only after `acheck()` passed (for the async `stream()`)."""
        if not has_prompt_embeds(messages):
            return events
        return self._guarded(messages, client, events)

    async def _guarded(
        self, messages: Any, client: openai.AsyncOpenAI, events: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        await self.acheck(messages, client)
        async for event in events:
            yield event

    # -- the Completions API --------------------------------------------------------------

    def complete(
        self,
        clients: Sequence[openai.OpenAI],
        base_urls: Sequence[str],
        retry: RetryPolicy,
        prompt_embeds: Any,
        **options: Any,
    ) -> EmbedsCompletion:
        """Check `prompt_embeds` and send it to `/v1/completions`; see `complete_embeds()`."""
        data, shape = self._read_prompt(prompt_embeds)
        if self._limits is None:
            self._learn(self._fetch(clients[0]))
        kwargs = self._completion_kwargs(data, shape, **options)
        tries = 0
        started = time.monotonic()

        def once() -> Any:
            nonlocal tries
            client = clients[tries % len(clients)]
            tries += 1
            return client.completions.create(**kwargs)

        try:
            completion: Any = retrying(retry)(once)
        except (openai.APIError, ValueError) as exc:
            raise self._typed_error(exc, base_urls, tries) from exc
        return _read_completion(completion, time.monotonic() - started)

    async def acomplete(
        self,
        clients: Sequence[openai.AsyncOpenAI],
        base_urls: Sequence[str],
        retry: RetryPolicy,
        prompt_embeds: Any,
        **options: Any,
    ) -> EmbedsCompletion:
        """`complete()` for the async client."""
        data, shape = self._read_prompt(prompt_embeds)
        if self._limits is None:
            self._learn(await self._afetch(clients[0]))
        kwargs = self._completion_kwargs(data, shape, **options)
        tries = 0
        started = time.monotonic()

        async def once() -> Any:
            nonlocal tries
            client = clients[tries % len(clients)]
            tries += 1
            return await client.completions.create(**kwargs)

        try:
            completion: Any = await async_retrying(retry)(once)
        except (openai.APIError, ValueError) as exc:
            raise self._typed_error(exc, base_urls, tries) from exc
        return _read_completion(completion, time.monotonic() - started)

    # -- shared, I/O-free -----------------------------------------------------------------

    def _read_prompt(self, prompt_embeds: Any) -> tuple[str, tuple[int, int]]:
        """The wire string and shape of a tensor (or wire string) that passed the checks."""
        if isinstance(prompt_embeds, str):
            tensor = decode(prompt_embeds, max_bytes=self._max_bytes, where="prompt_embeds")
            shape = check_tensor(tensor, hidden_size=self._hidden_size, max_bytes=self._max_bytes)
            return prompt_embeds, shape
        data = encode(prompt_embeds, hidden_size=self._hidden_size, max_bytes=self._max_bytes)
        return data, (int(prompt_embeds.shape[0]), int(prompt_embeds.shape[1]))

    def _completion_kwargs(
        self,
        data: str,
        shape: tuple[int, int],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: str | Sequence[str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        max_tokens = max_tokens if max_tokens is not None else self._max_tokens
        check_width(shape, self._hidden_size, where="prompt_embeds")
        check_fits(shape[0], max_model_len=self.max_model_len, max_tokens=max_tokens)
        self._warn_unchecked_width()
        # The openai client has no `prompt_embeds` argument; vLLM reads it from the body and
        # takes a null `prompt` when embeddings are given.
        kwargs: dict[str, Any] = {"model": self._model, "prompt": None}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        temperature = temperature if temperature is not None else self._temperature
        if temperature is not None:
            kwargs["temperature"] = temperature
        if stop is not None:
            kwargs["stop"] = stop
        kwargs["extra_body"] = {**self._extra_body, **(extra_body or {}), "prompt_embeds": data}
        return kwargs

    def _check_shapes(self, shapes: list[PartShape]) -> None:
        check_shapes(
            shapes,
            hidden_size=self._hidden_size,
            max_model_len=self.max_model_len,
            max_tokens=self._max_tokens,
        )
        self._warn_unchecked_width()

    def _learn(self, limits: ServedLimits | None) -> None:
        if limits is None:  # the server could not say; ask again next time
            return
        self._limits = limits
        if self._hidden_size is None:
            self._hidden_size = hidden_size_of(limits.root) if limits.root else None
        if self._hidden_size is None:
            self._hidden_size = hidden_size_of(self._model)

    def _warn_unchecked_width(self) -> None:
        if self._hidden_size is None and not self._warned:
            self._warned = True
            logger.warning(
                "sending prompt embeddings without checking their width: the served model's "
                "hidden size is unknown. Pass hidden_size= to the client (a tensor of the "
                "wrong width can crash the vLLM engine)"
            )

    def _fetch(self, client: openai.OpenAI) -> ServedLimits | None:
        try:
            page = client.models.list()
        except (openai.APIError, ValueError) as exc:
            return _unanswered(exc)
        return self._limits_from(page)

    async def _afetch(self, client: openai.AsyncOpenAI) -> ServedLimits | None:
        try:
            page = await client.models.list()
        except (openai.APIError, ValueError) as exc:
            return _unanswered(exc)
        return self._limits_from(page)

    def _limits_from(self, page: Any) -> ServedLimits:
        body = {"data": [item.model_dump(mode="json") for item in getattr(page, "data", [])]}
        return served_limits(body, self._model)

    def _typed_error(self, exc: Exception, base_urls: Sequence[str], tries: int) -> Exception:
        if not isinstance(exc, openai.APIError):
            return MalformedResponseError(
                f"the server's answer could not be read: {exc}", body=str(exc)[:500]
            )
        url = base_urls[(max(tries, 1) - 1) % len(base_urls)]
        return translate_error(exc, base_url=url, model=self._model, tries=tries)


def _unanswered(exc: Exception) -> ServedLimits | None:
    """What a failed `GET /models` tells: nothing, for good (an HTTP answer) or for now."""
    logger.debug("GET /models failed (%s); max_model_len is not checked", exc)
    # A server that answers with an error status has no such list: do not ask it again. A
    # connection that failed may work next time (the request itself will say if not).
    return ServedLimits() if isinstance(exc, openai.APIStatusError) else None


def _read_completion(completion: Any, latency: float) -> EmbedsCompletion:
    choices = getattr(completion, "choices", None)
    if not choices or not isinstance(getattr(choices[0], "text", None), str):
        raise MalformedResponseError(
            "the server answered without a choice/text; it is not a text completion",
            body=str(completion)[:500],
        )
    usage = getattr(completion, "usage", None)
    return EmbedsCompletion(
        text=choices[0].text,
        finish_reason=choices[0].finish_reason,
        usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else Usage(),
        latency_s=latency,
    )
