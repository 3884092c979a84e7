"""Prompt embeddings through both client twins, against the scripted model.

Chat content parts run the whole tool pipeline; `complete_embeds()` sends the Completions
API body vLLM reads; every refusal happens before a completion request (the request log
says so), and the ones that need no server limits before any request at all.
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    PromptEmbedsError,
    RequestRejectedError,
    ToolCallClient,
)
from toolcall_sdk.embeds import encode, part
from toolcall_sdk.testing import ScriptedModel, http_error, text, tool_call

from ..conftest import Ledger

torch = pytest.importorskip("torch", reason="needs the embeds extra (torch)")

HIDDEN = 8
GOOD = {"customer_id": "CUS-123456", "amount_vnd": 150000, "due_date": "2026-07-01"}
Client = ToolCallClient | AsyncToolCallClient


def scripted(script: Any, **options: Any) -> ScriptedModel:
    """A scripted model named as the test clients name it, so its limits apply to them."""
    return ScriptedModel(script, model="test-model", **options)


def tensor(tokens: int, hidden: int = HIDDEN, seed: int = 0) -> Any:
    return torch.randn(tokens, hidden, generator=torch.Generator().manual_seed(seed))


def raw_part(value: Any) -> dict[str, str]:
    """A content part built by hand (not by `part()`), so the client's own guard is tested."""
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return {"type": "prompt_embeds", "data": base64.b64encode(buffer.getvalue()).decode()}


def user(*content: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": list(content)}]


class Twin:
    """Drives the sync or the async client through one test body."""

    def __init__(self, kind: str, make_sync: Callable[..., Any], make_async: Callable[..., Any]):
        self.kind = kind
        self._make = make_sync if kind == "sync" else make_async

    def client(self, model: ScriptedModel, tools: list[Any], **options: Any) -> Any:
        return self._make(model, tools, **options)

    async def call(self, client: Any, messages: Any, method: str = "call") -> Any:
        value = getattr(client, method)(messages)
        return await value if inspect.isawaitable(value) else value

    async def stream(self, client: Any, messages: Any) -> list[Any]:
        events = client.stream(messages)
        if self.kind == "sync":
            return list(events)
        return [event async for event in events]

    async def complete(self, client: Any, prompt: Any, **options: Any) -> Any:
        value = client.complete_embeds(prompt, **options)
        return await value if inspect.isawaitable(value) else value


@pytest.fixture(params=["sync", "async"])
def twin(request: pytest.FixtureRequest, make_client: Any, make_async_client: Any) -> Twin:
    return Twin(request.param, make_client, make_async_client)


def paths(model: ScriptedModel) -> list[str]:
    return [f"{r.method} {r.path}" for r in model.requests]


async def test_content_parts_run_the_whole_tool_pipeline(
    twin: Twin, create_invoice: Any, ledger: Ledger
) -> None:
    model = scripted(
        [
            tool_call("create_invoice", {**GOOD, "customer_id": "CUS-1"}),
            tool_call("create_invoice", GOOD),
        ],
        max_model_len=64,
    )
    client = twin.client(model, [create_invoice], hidden_size=HIDDEN, max_retries=1)
    embedded = part(tensor(3))
    messages = user(embedded, {"type": "text", "text": "Invoice this customer."})

    result = await twin.call(client, messages, "run")

    assert paths(model) == [
        "GET /v1/models",
        "POST /v1/chat/completions",
        "POST /v1/chat/completions",
    ]
    first, second = model.calls_for("call")
    assert first.messages[0]["content"] == messages[0]["content"]  # sent exactly as given
    assert second.messages[0]["content"] == messages[0]["content"]
    assert first.tool_choice == {"type": "function", "function": {"name": "create_invoice"}}
    assert "customer_id" in second.messages[-1]["content"]  # the validation feedback
    assert [a.ok for a in result.attempts] == [False, True]
    assert ledger.count("create_invoice") == 1
    assert result.call.output == {"invoice_id": "INV-1", "customer_id": "CUS-123456"}


async def test_parts_in_several_messages_and_roles(twin: Twin, get_weather: Any) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hanoi"})], max_model_len=64)
    client = twin.client(model, [get_weather], hidden_size=HIDDEN)
    messages = [
        {
            "role": "system",
            "content": [{"type": "text", "text": "You help."}, part(tensor(2, seed=1))],
        },
        {"role": "user", "content": [part(tensor(4, seed=2)), {"type": "text", "text": "Where?"}]},
    ]

    result = await twin.call(client, messages)

    assert result.call.name == "get_weather"
    sent = model.calls_for("call")[0].messages
    assert [m["content"] for m in sent] == [m["content"] for m in messages]


async def test_the_stream_carries_the_parts_too(twin: Twin, get_weather: Any) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hue"})], max_model_len=64)
    client = twin.client(model, [get_weather], hidden_size=HIDDEN)
    messages = user(part(tensor(2)), {"type": "text", "text": "Weather?"})

    events = await twin.stream(client, messages)

    assert events[-1].result.call.arguments.city == "Hue"
    assert model.calls_for("call")[0].messages[0]["content"] == messages[0]["content"]


async def test_server_limits_are_asked_once_and_only_for_embeddings(
    twin: Twin, get_weather: Any
) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hue"})] * 3, max_model_len=64)
    client = twin.client(model, [get_weather], hidden_size=HIDDEN)

    await twin.call(client, "Weather in Hue?")
    assert paths(model) == ["POST /v1/chat/completions"]  # plain text: nothing extra
    await twin.call(client, user(part(tensor(2))))
    await twin.call(client, user(part(tensor(2))))

    assert paths(model) == [
        "POST /v1/chat/completions",
        "GET /v1/models",
        "POST /v1/chat/completions",
        "POST /v1/chat/completions",
    ]


BAD_PARTS = {
    "wrong width": (
        raw_part(tensor(3, hidden=7)),
        r"expected shape \(num_tokens, 8\), got \(3, 7\)",
    ),
    "wrong rank": (raw_part(torch.zeros(1, 3, HIDDEN)), r"got \(1, 3, 8\); drop the batch"),
    "rank one": (raw_part(torch.zeros(HIDDEN)), r"got \(8,\)"),
    "nan": (raw_part(torch.full((2, HIDDEN), float("nan"))), "NaN"),
    "wrong dtype": (raw_part(torch.zeros(2, HIDDEN, dtype=torch.float64)), "dtype float64"),
    "token ids": (raw_part(torch.tensor([[1, 2, 3]])), "token ids"),
    "empty": (raw_part(torch.zeros(0, HIDDEN)), "empty"),
    "not a tensor": (raw_part([1.0, 2.0]), "hold a list, not a tensor"),
    "not base64": ({"type": "prompt_embeds", "data": "%%%"}, "not valid base64"),
    "a tensor object": (
        {"type": "prompt_embeds", "data": torch.zeros(2, HIDDEN)},
        r"part\(tensor\)",
    ),
    "no data": ({"type": "prompt_embeds"}, "holds nothing"),
}


@pytest.mark.parametrize("method", ["call", "run", "stream"])
@pytest.mark.parametrize("case", list(BAD_PARTS), ids=lambda case: case.replace(" ", "-"))
async def test_a_bad_part_is_refused_before_any_request(
    twin: Twin, get_weather: Any, ledger: Ledger, case: str, method: str
) -> None:
    bad, words = BAD_PARTS[case]
    model = scripted([tool_call("get_weather", {"city": "Hue"})], max_model_len=64)
    client = twin.client(model, [get_weather], hidden_size=HIDDEN)
    messages = user({"type": "text", "text": "Weather?"}, bad)

    send = (
        twin.stream(client, messages) if method == "stream" else twin.call(client, messages, method)
    )
    with pytest.raises(PromptEmbedsError, match=words) as caught:
        await send

    assert model.requests == []
    assert ledger.calls == []
    assert caught.value.where == "messages[0].content[1]"


async def test_too_long_is_refused_with_no_chat_request(twin: Twin, get_weather: Any) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hue"})], max_model_len=32)
    client = twin.client(model, [get_weather], hidden_size=HIDDEN, max_tokens=8)
    # 12 + 13 embedded tokens and 8 to answer: 33 > 32, though each part alone fits.
    messages = user(part(tensor(12)), {"type": "text", "text": "and"}, part(tensor(13)))

    with pytest.raises(PromptEmbedsError, match="25 embedded tokens") as caught:
        await twin.call(client, messages)

    assert "max_tokens=8" in str(caught.value)
    assert "max_model_len=32" in str(caught.value)
    assert paths(model) == ["GET /v1/models"]  # the limit was asked; nothing was sent
    assert model.chat_requests == []


async def test_one_token_less_fits(twin: Twin, get_weather: Any) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hue"})], max_model_len=32)
    client = twin.client(model, [get_weather], hidden_size=HIDDEN, max_tokens=8)

    await twin.call(client, user(part(tensor(12)), part(tensor(12))))

    assert len(model.chat_requests) == 1


async def test_width_read_from_the_served_models_config(
    twin: Twin, get_weather: Any, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": HIDDEN}))
    model = scripted(
        [tool_call("get_weather", {"city": "Hue"})], max_model_len=64, root=str(tmp_path)
    )
    client = twin.client(model, [get_weather])  # no hidden_size given

    with pytest.raises(PromptEmbedsError, match=r"\(num_tokens, 8\), got \(2, 16\)"):
        await twin.call(client, user(part(tensor(2, hidden=16))))
    assert paths(model) == ["GET /v1/models"]

    await twin.call(client, user(part(tensor(2))))
    assert paths(model) == ["GET /v1/models", "POST /v1/chat/completions"]


async def test_unknown_width_is_sent_with_one_warning(
    twin: Twin, get_weather: Any, caplog: pytest.LogCaptureFixture
) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hue"})] * 2)
    client = twin.client(model, [get_weather])

    with caplog.at_level(logging.WARNING, logger="toolcall_sdk"):
        await twin.call(client, user(part(tensor(2, hidden=5))))
        await twin.call(client, user(part(tensor(2, hidden=5))))

    warnings = [r.message for r in caplog.records if "hidden size is unknown" in r.message]
    assert len(warnings) == 1
    assert "hidden_size=" in warnings[0]
    assert len(model.chat_requests) == 2


async def test_complete_embeds_sends_the_completions_body(twin: Twin) -> None:
    model = scripted([text(" Paris.")], max_model_len=64)
    client = twin.client(model, [], hidden_size=HIDDEN, extra_body={"top_k": 1})
    prompt = tensor(5)

    answer = await twin.complete(client, prompt, max_tokens=6, stop=["\n"])

    assert answer.text == " Paris."
    assert answer.finish_reason == "stop"
    assert paths(model) == ["GET /v1/models", "POST /v1/completions"]
    body = model.completion_requests[0].json
    assert body == {
        "model": "test-model",
        "prompt": None,
        "max_tokens": 6,
        "temperature": 0.0,
        "stop": ["\n"],
        "top_k": 1,
        "prompt_embeds": encode(prompt),
    }
    read = torch.load(io.BytesIO(base64.b64decode(body["prompt_embeds"])), weights_only=True)
    assert torch.equal(read, prompt)


async def test_complete_embeds_takes_a_wire_string(twin: Twin) -> None:
    model = scripted([text("ok", finish_reason="length")], max_model_len=64)
    client = twin.client(model, [], hidden_size=HIDDEN, max_tokens=3, temperature=None)
    data = encode(tensor(2, seed=4))

    answer = await twin.complete(client, data)

    assert answer.finish_reason == "length"
    body = model.completion_requests[0].json
    assert body is not None
    assert body["prompt_embeds"] == data
    assert body["max_tokens"] == 3
    assert "temperature" not in body


@pytest.mark.parametrize(
    ("prompt", "words"),
    [
        (tensor(3, hidden=7), r"\(num_tokens, 8\), got \(3, 7\)"),
        (torch.full((2, HIDDEN), float("inf")), "infinite"),
        (torch.zeros(1, 2, HIDDEN), "batch dimension"),
        (raw_part(torch.zeros(2, 7))["data"], r"got \(2, 7\)"),
    ],
    ids=["width", "inf", "rank", "wire-string"],
)
async def test_complete_embeds_refusals_send_nothing(twin: Twin, prompt: Any, words: str) -> None:
    model = scripted([text("never")], max_model_len=64)
    client = twin.client(model, [], hidden_size=HIDDEN)

    with pytest.raises(PromptEmbedsError, match=words):
        await twin.complete(client, prompt)

    assert model.requests == []


async def test_complete_embeds_too_long(twin: Twin) -> None:
    model = scripted([text("never")], max_model_len=16)
    client = twin.client(model, [], hidden_size=HIDDEN)

    with pytest.raises(PromptEmbedsError, match="16 embedded tokens plus one new token"):
        await twin.complete(client, tensor(16))
    with pytest.raises(PromptEmbedsError, match="10 embedded tokens plus max_tokens=7"):
        await twin.complete(client, tensor(10), max_tokens=7)

    assert paths(model) == ["GET /v1/models"]
    assert model.completion_requests == []


async def test_server_without_the_flag_says_how_to_enable_it(twin: Twin) -> None:
    refusal = {
        "object": "error",
        "message": "You must set `--enable-prompt-embeds` to input `prompt_embeds`.",
        "type": "BadRequestError",
        "code": 400,
    }
    model = scripted([http_error(400, refusal)], max_model_len=64)
    client = twin.client(model, [], hidden_size=HIDDEN)

    with pytest.raises(RequestRejectedError) as caught:
        await twin.complete(client, tensor(2))

    assert caught.value.status_code == 400
    assert "start vLLM with --enable-prompt-embeds" in str(caught.value)
    assert len(model.completion_requests) == 1  # a 400 is never retried


@pytest.mark.parametrize("value", [0, -4, True, "8", 8.0])
def test_hidden_size_must_be_a_positive_int(value: Any) -> None:
    model = ScriptedModel([])
    with pytest.raises(ValueError, match=r"hidden_size must be (an int|>= 1)"):
        ToolCallClient(base_url=model.base_url, model="m", hidden_size=value)


async def test_a_server_without_a_model_list_is_asked_once(twin: Twin, get_weather: Any) -> None:
    model = scripted([tool_call("get_weather", {"city": "Hue"})] * 2)
    inner = model.transport()
    asked: list[str] = []

    def no_models(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/models"):  # e.g. a proxy that lists no models
            asked.append(request.url.path)
            return httpx2.Response(404, json={"error": {"message": "Not Found"}})
        return inner.handle_request(request)

    transport = httpx2.MockTransport(no_models)
    options: dict[str, Any] = {
        "base_url": model.base_url,
        "model": "test-model",
        "tools": [get_weather],
        "router": "always",
        "hidden_size": HIDDEN,
    }
    client: Any = (
        ToolCallClient(http_client=httpx2.Client(transport=transport), **options)
        if twin.kind == "sync"
        else AsyncToolCallClient(http_client=httpx2.AsyncClient(transport=transport), **options)
    )

    await twin.call(client, user(part(tensor(2))))
    await twin.call(client, user(part(tensor(2))))

    assert asked == ["/v1/models"]
    assert paths(model) == ["POST /v1/chat/completions", "POST /v1/chat/completions"]
