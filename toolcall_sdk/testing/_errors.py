"""The one error of `toolcall_sdk.testing`: the script could not answer a request."""

from __future__ import annotations

from ._recording import RecordedRequest

__all__ = ["ScriptError"]


class ScriptError(Exception):
    """The script had no reply for a request: it ran out, or its callable failed.

    The model answers such a request with HTTP 500 (so the client under test sees a
    server error, as it would from a broken server) and keeps the error in
    `ScriptedModel.errors`, so a test can fail with the real cause even when the client
    swallowed or retried the 500.

    Attributes:
        request: The request the script could not answer.
    """

    def __init__(self, message: str, *, request: RecordedRequest) -> None:
        super().__init__(message)
        self.request = request
