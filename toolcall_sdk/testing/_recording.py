"""What the scripted model saw: one `RecordedRequest` per HTTP request."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["STAGE_HEADER", "RecordedRequest"]

from toolcall_sdk._wire import STAGE_HEADER

"""Request header naming the client's pipeline stage: `route`, `call` or `answer`."""


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request received by a `ScriptedModel`, in arrival order.

    Attributes:
        method: The HTTP method, upper case (`"POST"`).
        path: The URL path without the query string (`"/v1/chat/completions"`).
        headers: The request headers, keys in lower case; repeated headers are joined
            with `", "`.
        json: The body parsed as a JSON object, or `None` when the body is empty, is not
            valid JSON or is not an object.
        body: The raw body bytes, for requests whose body is not a JSON object.
    """

    method: str
    path: str
    headers: dict[str, str]
    json: dict[str, Any] | None
    body: bytes = field(default=b"", repr=False)

    @classmethod
    def from_parts(
        cls, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> RecordedRequest:
        """Builds a record from the raw request parts, parsing a JSON object body.

        Args:
            method: The HTTP method.
            path: The URL path; a query string, if any, is dropped.
            headers: The request headers, in any case.
            body: The raw request body.

        Returns:
            The record.
        """
        return cls(
            method=method.upper(),
            path=path.split("?", 1)[0],
            headers={key.lower(): value for key, value in headers.items()},
            json=_parse_object(body),
            body=body,
        )

    @property
    def is_chat(self) -> bool:
        """Whether this is a `POST .../chat/completions` request."""
        return self.method == "POST" and self.path.rstrip("/").endswith("/chat/completions")

    @property
    def is_completion(self) -> bool:
        """Whether this is a `POST .../completions` (Completions API) request."""
        path = self.path.rstrip("/")
        return self.method == "POST" and path.endswith("/completions") and not self.is_chat

    @property
    def stage(self) -> str | None:
        """The `x-toolcall-stage` header (`route`, `call`, `answer`), or `None` if absent."""
        return self.headers.get(STAGE_HEADER)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's `messages`, or an empty list if it sent none."""
        return list(self._get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        """The request's `tools`, or `None` if it sent none."""
        tools: list[dict[str, Any]] | None = self._get("tools")
        return tools

    @property
    def tool_choice(self) -> Any:
        """The request's `tool_choice` (a string or a dict), or `None` if absent."""
        return self._get("tool_choice")

    @property
    def temperature(self) -> float | None:
        """The request's `temperature`, or `None` if absent."""
        temperature: float | None = self._get("temperature")
        return temperature

    @property
    def stream(self) -> bool:
        """Whether the request asked for a streamed (Server-Sent Events) answer."""
        return self._get("stream") is True

    def _get(self, key: str) -> Any:
        return None if self.json is None else self.json.get(key)


def _parse_object(body: bytes) -> dict[str, Any] | None:
    if not body:
        return None
    try:
        parsed = json.loads(body)
    except ValueError:  # UnicodeDecodeError is a ValueError too
        return None
    return parsed if isinstance(parsed, dict) else None
