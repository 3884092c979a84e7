"""`ScriptedModel`: a scripted OpenAI-compatible chat model, in-process or on a local port."""

from __future__ import annotations

import contextlib
from typing import Final

import httpx2

from ._core import RouteAnswer, Script, ScriptCore
from ._errors import ScriptError
from ._recording import RecordedRequest
from ._server import serve as _serve
from ._transport import make_transport

__all__ = ["DEFAULT_CHUNK_SIZE", "ScriptedModel"]

DEFAULT_CHUNK_SIZE: Final = 4
"""Characters per streamed chunk: small enough to cut JSON arguments mid-key and
mid-string, which is where stream reassembly bugs hide."""


class ScriptedModel:
    """An OpenAI-compatible chat model that answers from a script and records every request.

    `POST /v1/completions` (the Completions API, e.g. `complete_embeds()`) is answered too,
    from the same script, with the `text()` reply's content as the completion text;
    `completion_requests` lists those requests.

    Args:
        script: The replies, served in order, one per chat-completions request; or a
            callable `(RecordedRequest) -> Reply` called for each one (one request at a
            time, so it may keep state). A request after the last reply, or one whose
            callable raises, gets HTTP 500 and a `ScriptError` in `errors`.
        route_answer: How router probes (header `x-toolcall-stage: route`) are answered,
            without consuming the script: `True`/`False` sends `{"need_tool": true}` /
            `{"need_tool": false}`, a callable decides per request, and `None` serves them
            from the script like any other request.
        model: The served model name, as vLLM's `--served-model-name`: a request naming
            another model gets the HTTP 404 vLLM sends.
            `None` (the default) serves any name: responses echo the requested name and
            `GET /v1/models` lists `scripted`.
        chunk_size: Characters of content or tool arguments per streamed chunk.
        max_model_len: The context length `GET /v1/models` reports, as vLLM does (the
            prompt-embeddings guard reads it); not reported when None.
        root: The model path `GET /v1/models` reports as `root`, as vLLM does.

    Only vLLM's paths are served: `POST /v1/chat/completions`, `GET /v1/models` and
    `GET /health`; any other path (one without `/v1`, say) gets vLLM's 404
    `{"detail": "Not Found"}`. Neither kind of 404 uses up a scripted reply.

    Raises:
        TypeError: If a script item is not a `Reply`.
        ValueError: If `chunk_size` is below 1.
    """

    base_url: Final = "http://scripted.test/v1"
    """The base URL to give an OpenAI client together with `http_client()`."""

    def __init__(
        self,
        script: Script,
        *,
        route_answer: RouteAnswer = True,
        model: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        max_model_len: int | None = None,
        root: str | None = None,
    ) -> None:
        self._core = ScriptCore(
            script,
            route_answer=route_answer,
            model=model,
            chunk_size=chunk_size,
            max_model_len=max_model_len,
            root=root,
        )

    @property
    def model(self) -> str:
        """The model name `GET /v1/models` lists (`scripted` when any name is served)."""
        return self._core.model

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in order, route probes and `GET`s included (a copy)."""
        return self._core.requests

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The `POST .../chat/completions` requests, in order."""
        return [request for request in self._core.requests if request.is_chat]

    @property
    def completion_requests(self) -> list[RecordedRequest]:
        """The `POST .../completions` (Completions API) requests, in order."""
        return [request for request in self._core.requests if request.is_completion]

    @property
    def errors(self) -> list[ScriptError]:
        """Requests the script could not answer (each was answered with HTTP 500)."""
        return self._core.errors

    @property
    def remaining(self) -> int | None:
        """How many scripted replies are left, or `None` for a callable script."""
        return self._core.remaining

    def calls_for(self, stage: str | None) -> list[RecordedRequest]:
        """The chat requests sent with the given `x-toolcall-stage`.

        Args:
            stage: `"route"`, `"call"`, `"answer"`, or `None` for requests without the header.

        Returns:
            The matching chat requests, in order.
        """
        return [request for request in self.chat_requests if request.stage == stage]

    def transport(self) -> httpx2.MockTransport:
        """An in-process transport for `httpx2.Client` or `httpx2.AsyncClient`.

        `delay` replies are answered at once; `disconnect` raises `httpx2.ConnectError`.

        Returns:
            A new transport backed by this model.
        """
        return make_transport(self._core)

    def http_client(self) -> httpx2.Client:
        """A sync client on `transport()`, for `openai.OpenAI(http_client=...)`.

        Returns:
            A new client with `base_url` set.
        """
        return httpx2.Client(transport=self.transport(), base_url=self.base_url)

    def async_http_client(self) -> httpx2.AsyncClient:
        """An async client on `transport()`, for `openai.AsyncOpenAI(http_client=...)`.

        Returns:
            A new client with `base_url` set.
        """
        return httpx2.AsyncClient(transport=self.transport(), base_url=self.base_url)

    def serve(self, *, port: int = 0) -> contextlib.AbstractContextManager[str]:
        """Serves the model over real HTTP on 127.0.0.1, on a free port, until exit.

        The server streams (one flushed HTTP chunk per event), waits out `delay` replies,
        closes the socket for `disconnect`, and also answers `GET /v1/models` and
        `GET /health`. Leaving the block stops it and closes open connections, as a
        crashed server would (answers still being waited out or streamed are cut).

        Args:
            port: The port to listen on; 0 (the default) takes a free one. Serving again
                on the port of a stopped block restarts "the same server" at the same URL.

        Returns:
            A context manager yielding the base URL, `http://127.0.0.1:PORT/v1`.

        Example:
            >>> with ScriptedModel([text("hi")]).serve() as base_url:  # doctest: +SKIP
            ...     client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        """
        return _serve(self._core, port)

    def __repr__(self) -> str:
        return (
            f"ScriptedModel(model={self.model!r}, requests={len(self._core.requests)}, "
            f"remaining={self.remaining!r}, errors={len(self._core.errors)})"
        )
