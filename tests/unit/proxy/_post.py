"""One request through a proxy app in process, its upstream a `ScriptedModel`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2

from toolcall_sdk import RetryPolicy
from toolcall_sdk.proxy import create_app
from toolcall_sdk.testing import ScriptedModel


async def no_sleep(seconds: float) -> None:
    """Backoffs are not waited for here."""


async def post_through_proxy(
    model: ScriptedModel, body: Mapping[str, Any], **options: Any
) -> httpx2.Response:
    """POST `body` to the proxy's chat completions, the app built with `options`."""
    app = create_app(
        model.base_url,
        http_client=model.async_http_client(),
        retry=RetryPolicy(async_sleep=no_sleep, jitter=0.0),
        **options,
    )
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://proxy") as caller:
        return await caller.post("/v1/chat/completions", json=dict(body))
