"""A scripted OpenAI-compatible chat model, for testing code that calls `/v1/chat/completions`.

`ScriptedModel` answers each chat-completions request with the next scripted `Reply`,
records every request, and serves either in-process (an `httpx2.MockTransport`) or on a
real local port (`serve()`), with identical behaviour. Successful replies are built from
`openai`'s own response types, so the client's real parsing (and streaming) runs.

Example:
    ```python
    import openai
    from toolcall_sdk.testing import ScriptedModel, http_error, text, tool_call

    model = ScriptedModel([
        tool_call("get_weather", {"city": "Paris"}),
        http_error(429, headers={"Retry-After": "2"}),
        text("It is sunny."),
    ])
    client = openai.OpenAI(
        base_url=model.base_url, api_key="x", http_client=model.http_client(), max_retries=0
    )
    reply = client.chat.completions.create(
        model="scripted",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tool_choice="required",
    )
    assert reply.choices[0].message.tool_calls[0].function.arguments == '{"city": "Paris"}'
    assert model.chat_requests[0].tool_choice == "required"

    with model.serve() as base_url:  # the same model over real HTTP
        client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        try:
            client.chat.completions.create(model="scripted", messages=[])
        except openai.RateLimitError:
            pass
    assert model.remaining == 1 and not model.errors
    ```

Router probes (header `x-toolcall-stage: route`) are answered with `{"need_tool": true}`
(see `route_answer`) without consuming the script.
"""

from ._errors import ScriptError
from ._model import DEFAULT_CHUNK_SIZE, ScriptedModel
from ._recording import STAGE_HEADER, RecordedRequest
from ._replies import (
    FinishReason,
    Reply,
    choices,
    cut,
    delay,
    disconnect,
    endless_stream,
    http_error,
    malformed,
    parallel,
    text,
    tool_call,
    tool_calls,
    trickle,
)

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "STAGE_HEADER",
    "FinishReason",
    "RecordedRequest",
    "Reply",
    "ScriptError",
    "ScriptedModel",
    "choices",
    "cut",
    "delay",
    "disconnect",
    "endless_stream",
    "http_error",
    "malformed",
    "parallel",
    "text",
    "tool_call",
    "tool_calls",
    "trickle",
]
