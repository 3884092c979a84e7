"""Before any case runs: is the server there, does it serve the model?

An eval against a server that is not running would otherwise run every case into a
connection error and write a report of failures. One `GET /models` settles it first, and its
error says what to fix.
"""

from __future__ import annotations

import httpx2

from toolcall_sdk._errors import ToolCallError

__all__ = ["PreflightError", "preflight"]


class PreflightError(ToolCallError, ValueError):
    """The server cannot run the eval: unreachable, wrong URL or key, or the model not served."""


def preflight(
    base_url: str,
    *,
    model: str | None,
    api_key: str | None,
    timeout: float,
    transport: httpx2.BaseTransport | None = None,
) -> str:
    """Check the server with `GET /models` and return the model to evaluate.

    Args:
        base_url: The server's `/v1` URL.
        model: The model asked for, or None for the first one listed.
        api_key: The server's key, if it has one.
        timeout: Seconds for the request.
        transport: An `httpx2` transport instead of the network (tests).

    Raises:
        PreflightError: The server cannot be reached or used, or does not serve `model`.
    """
    url = f"{base_url.rstrip('/')}/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx2.Client(timeout=timeout, transport=transport) as http:
            response = http.get(url, headers=headers)
    except httpx2.HTTPError as exc:
        raise PreflightError(
            f"cannot reach {url} ({type(exc).__name__}: {exc}); is the server running? Start "
            "one with `toolcall-sdk launch MODEL`, or fix --base-url"
        ) from exc
    status = response.status_code
    if status in (401, 403):
        raise PreflightError(
            f"{url} answered HTTP {status}: the server wants its API key; pass --api-key or "
            "set TOOLCALL_API_KEY"
        )
    if status == 404:
        raise PreflightError(
            f"{url} answered HTTP 404: --base-url must be the server's OpenAI URL, which ends "
            "in /v1 (e.g. http://127.0.0.1:8000/v1)"
        )
    if status != 200:
        raise PreflightError(
            f"{url} answered HTTP {status}; is --base-url an OpenAI-compatible server?"
        )
    served = _served(response)
    if served is None:
        raise PreflightError(f"{url} did not answer with a model list; check --base-url")
    if model is None:
        if not served:
            raise PreflightError(f"{base_url} serves no model; give --model")
        return served[0]
    if model not in served:
        raise PreflightError(
            f"{base_url} does not serve {model!r}; it serves {', '.join(served) or 'nothing'}. "
            "Pass one of them as --model"
        )
    return model


def _served(response: httpx2.Response) -> list[str] | None:
    try:
        data = response.json().get("data")
    except (ValueError, AttributeError):
        return None
    if not isinstance(data, list):
        return None
    return [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]
