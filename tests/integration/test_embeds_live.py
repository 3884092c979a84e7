"""Prompt embeddings on the real CPU demo server, started with `--enable-prompt-embeds`.

The embeddings are rows of the demo model's own input embedding matrix, read from its
safetensors file (no vLLM import), so an embedded prompt is the text prompt in another
form: greedy decoding must give the same output. A wrong tensor never reaches the server.

The server is this module's own (the flag registers a placeholder token in vLLM's
tokenizer, so the shared demo server stays as users get it from `launch --demo`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from toolcall_sdk import PromptEmbedsError, ToolCallClient
from toolcall_sdk.doctor import run_doctor
from toolcall_sdk.embeds import embedding_matrix, hidden_size_of, part, templated_embeds
from toolcall_sdk.launcher import Server
from toolcall_sdk.launcher._demo import DEMO_MAX_MODEL_LEN
from toolcall_sdk_demo.tools import DEMO_TOOLS, get_weather

from .conftest import MODEL, launch

# The full tier installs the embeds extra; the unit tier imports this module (to deselect it)
# without torch.
torch = pytest.importorskip("torch", reason="needs the embeds extra (torch)")
AutoTokenizer = pytest.importorskip(
    "transformers", reason="needs transformers (the router-minilm extra)"
).AutoTokenizer

# The context the demo model is served with (`demo_options`).
MAX_MODEL_LEN = DEMO_MAX_MODEL_LEN

QUESTION = "What is the weather in Oslo in celsius?"
MAX_TOKENS = 48


@pytest.fixture(scope="module")
def embeds_server(vllm_python: str, demo_model_dir: Path) -> Iterator[Server]:
    yield from launch(vllm_python, demo_model_dir, enable_prompt_embeds=True)


@pytest.fixture(scope="module")
def tokenizer(demo_model_dir: Path) -> Any:
    return AutoTokenizer.from_pretrained(str(demo_model_dir))


@pytest.fixture(scope="module")
def matrix(demo_model_dir: Path) -> Any:
    return embedding_matrix(demo_model_dir)


@pytest.fixture(scope="module")
def width(demo_model_dir: Path) -> int:
    value = hidden_size_of(demo_model_dir)
    assert value is not None, demo_model_dir
    return value


class Recorder:
    """An httpx2 client that keeps every request it sends."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.client = httpx2.Client(event_hooks={"request": [self._record]})

    def _record(self, request: httpx2.Request) -> None:
        self.sent.append(f"{request.method} {request.url.path}")


def client_for(server: Server, recorder: Recorder | None = None, **options: Any) -> ToolCallClient:
    options.setdefault("router", "always")
    options.setdefault("max_tokens", 200)
    return ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=DEMO_TOOLS,
        http_client=recorder.client if recorder else None,
        **options,
    )


def content_embeds(text: str, tokenizer: Any, matrix: Any) -> Any:
    """The content only (no template), as a chat part must hold it."""
    ids = tokenizer(text, add_special_tokens=False).input_ids
    return matrix[ids]


def test_the_server_takes_embeddings_by_the_launchers_flag(
    embeds_server: Server, matrix: Any, width: int
) -> None:
    assert "--enable-prompt-embeds" in embeds_server.plan.argv
    assert any("trusted clients only" in w for w in embeds_server.plan.warnings)
    assert matrix.shape[1] == width


def test_embedded_prompt_gives_the_text_prompts_greedy_output(
    embeds_server: Server, tokenizer: Any, matrix: Any
) -> None:
    messages = [{"role": "user", "content": QUESTION}]
    tools = [get_weather.openai_schema()]
    text = tokenizer.apply_chat_template(
        messages, tools=tools, add_generation_prompt=True, tokenize=False
    )
    ids = tokenizer(text, add_special_tokens=False).input_ids
    # The server tokenizes a text prompt with special tokens on; the demo adds none.
    assert tokenizer(text).input_ids == ids
    embeds = templated_embeds(messages, tokenizer=tokenizer, embed=matrix.__getitem__, tools=tools)
    assert torch.equal(embeds, matrix[ids])

    embedded = client_for(embeds_server).complete_embeds(embeds, max_tokens=MAX_TOKENS)
    raw = openai.OpenAI(base_url=embeds_server.base_url, api_key="x", max_retries=0)
    plain = raw.completions.create(model=MODEL, prompt=text, max_tokens=MAX_TOKENS, temperature=0)

    assert embedded.text.strip(), embedded
    assert embedded.text == plain.choices[0].text
    assert embedded.finish_reason == plain.choices[0].finish_reason
    assert embedded.usage.prompt_tokens == len(ids)


def test_content_part_chat_call_runs_the_tool_pipeline(
    embeds_server: Server, tokenizer: Any, matrix: Any
) -> None:
    client = client_for(embeds_server)
    embedded = part(content_embeds(QUESTION, tokenizer, matrix))

    result = client.call([{"role": "user", "content": [embedded]}])

    assert result.called
    assert result.calls, result.attempts
    assert result.calls[0].name in {"get_weather", "get_order_status", "create_invoice"}
    assert result.attempts[0].request.tool_choice == "required"


def test_content_part_gives_the_same_calls_as_the_text(
    embeds_server: Server, tokenizer: Any, matrix: Any
) -> None:
    # The server puts the chat template around the part as around text content, so the
    # model sees the same input and strict greedy decoding gives the same call.
    client = client_for(embeds_server, max_retries=0)
    embedded = part(content_embeds(QUESTION, tokenizer, matrix))

    from_embeds = client.call([{"role": "user", "content": [embedded]}])
    from_text = client.call(QUESTION)

    assert [(c.name, c.raw_arguments) for c in from_embeds.calls] == [
        (c.name, c.raw_arguments) for c in from_text.calls
    ]


def test_text_and_embedded_parts_mixed(embeds_server: Server, tokenizer: Any, matrix: Any) -> None:
    client = client_for(embeds_server)
    content = [
        {"type": "text", "text": "What is the weather in"},
        part(content_embeds(" Hanoi, in fahrenheit?", tokenizer, matrix)),
    ]

    result = client.run([{"role": "user", "content": content}])

    assert result.calls, result.attempts
    assert result.calls[0].executed


def test_wrong_shape_is_refused_before_any_request(embeds_server: Server, width: int) -> None:
    learned = Recorder()
    client = client_for(embeds_server, learned)  # width read from the served model's config
    wrong = part(torch.zeros(3, width - 1))

    with pytest.raises(PromptEmbedsError, match=rf"expected shape \(num_tokens, {width}\)"):
        client.call([{"role": "user", "content": [wrong]}])
    with pytest.raises(PromptEmbedsError, match=rf"\(num_tokens, {width}\)"):
        client.complete_embeds(torch.zeros(3, width - 1))

    assert learned.sent == ["GET /v1/models"]  # the server's limits; no request carried it

    given = Recorder()
    client = client_for(embeds_server, given, hidden_size=width)
    with pytest.raises(PromptEmbedsError, match=rf"got \(3, {width - 1}\)"):
        client.call([{"role": "user", "content": [wrong]}])
    assert given.sent == []


def test_too_long_is_refused_before_any_completion(
    embeds_server: Server, matrix: Any, width: int
) -> None:
    recorder = Recorder()
    client = client_for(embeds_server, recorder, hidden_size=width, max_tokens=16)
    rows = matrix[torch.arange(MAX_MODEL_LEN - 8) % matrix.shape[0]]  # + 16 > MAX_MODEL_LEN

    with pytest.raises(PromptEmbedsError, match=f"max_model_len={MAX_MODEL_LEN}"):
        client.complete_embeds(rows)

    assert recorder.sent == ["GET /v1/models"]


def test_doctor_reports_that_the_server_takes_embeddings(embeds_server: Server, width: int) -> None:
    report = run_doctor(embeds_server.base_url, model=MODEL)

    finding = next(f for f in report.findings if f.check == "prompt embeds")
    assert finding.status == "ok", report.findings
    assert f"hidden_size={width}" in finding.detail
