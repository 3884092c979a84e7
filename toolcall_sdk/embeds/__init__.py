"""Prompt embeddings: send precomputed embeddings to vLLM, checked before they leave.

vLLM started with `--enable-prompt-embeds` takes a `(num_tokens, hidden_size)` tensor
instead of text, as base64 `torch.save` bytes (docs/prompt-embeds.md):

```python
import torch
from toolcall_sdk import ToolCallClient
from toolcall_sdk.embeds import part

client = ToolCallClient(base_url=URL, model=MODEL, tools=[get_weather], hidden_size=4096)

# Chat: embedded content mixed with text; the server wraps the chat template around it,
# and the whole tool pipeline (router, required, validation, retries) runs as usual.
result = client.call([{"role": "user", "content": [
    part(document_embeds),                       # (num_tokens, 4096), content only
    {"type": "text", "text": "What is the weather where this was written?"},
]}])

# Completions: the embeddings of the whole, already templated prompt.
answer = client.complete_embeds(templated_embeds(messages, tokenizer=tok, embed=emb))
answer.text
```

A tensor of the wrong shape can crash the engine, so the client refuses it first with a
`PromptEmbedsError`: rank 2, the served model's width (`hidden_size=`, or read from the
model's `config.json` when its folder is on this machine), at least one token, finite
values, float32/bfloat16/float16, the size limit, and room in the server's `max_model_len`.
torch is needed only here (`pip install "toolcall-sdk[embeds]"`; from a checkout
`pip install -e ".[embeds]"`) and imported on first use; without it the error names the
install for this copy (`toolcall_sdk.install_command`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolcall_sdk._errors import PromptEmbedsError
from toolcall_sdk._messages import MessagesInput, to_messages
from toolcall_sdk.embeds._checks import ALLOWED_DTYPES, MAX_TENSOR_BYTES
from toolcall_sdk.embeds._client import EmbedsCompletion
from toolcall_sdk.embeds._codec import decode as _decode
from toolcall_sdk.embeds._codec import encode as _encode
from toolcall_sdk.embeds._codec import torch_module
from toolcall_sdk.embeds._guard import PART_TYPE, check_messages
from toolcall_sdk.embeds._model import embedding_matrix, hidden_size_of

if TYPE_CHECKING:
    import torch

__all__ = [
    "ALLOWED_DTYPES",
    "MAX_TENSOR_BYTES",
    "PART_TYPE",
    "EmbedsCompletion",
    "PromptEmbedsError",
    "check_messages",
    "decode",
    "embedding_matrix",
    "encode",
    "hidden_size_of",
    "part",
    "templated_embeds",
]


def encode(
    tensor: torch.Tensor,
    *,
    dtype: torch.dtype | str | None = None,
    hidden_size: int | None = None,
    max_bytes: int = MAX_TENSOR_BYTES,
) -> str:
    """The wire string of a prompt-embeddings tensor: base64 of its `torch.save` bytes.

    `torch.load(io.BytesIO(base64.b64decode(s)), weights_only=True)` (what vLLM runs) reads
    back the same tensor: same shape, dtype and values, on the CPU, without autograd.

    Args:
        tensor: Shape `(num_tokens, hidden_size)`, dtype float32, bfloat16 or float16, on
            any device. A view is sent as its own rows only.
        dtype: Convert to this dtype first (one of the three); other dtypes are refused,
            never converted silently (float64 included: `dtype=torch.float32` converts it).
        hidden_size: Refuse a tensor of another width.
        max_bytes: Refuse a tensor holding more bytes (default `MAX_TENSOR_BYTES`).

    Returns:
        The base64 string (ASCII).

    Raises:
        PromptEmbedsError: Not a tensor, another dtype, not rank 2, empty, another width,
            too big, or holding NaN or infinity.
        MissingDependencyError: torch is not installed.
    """
    return _encode(tensor, dtype=dtype, hidden_size=hidden_size, max_bytes=max_bytes)


def decode(data: str | bytes, *, max_bytes: int = MAX_TENSOR_BYTES) -> torch.Tensor:
    """Read a wire string back into its tensor, as vLLM does (`weights_only=True`).

    Nothing but a tensor is accepted: `weights_only` never runs pickled code, and other
    objects it can hold (a dict, a list) are refused.

    Raises:
        PromptEmbedsError: Not base64, not `torch.save` bytes, too big, or not a tensor.
        MissingDependencyError: torch is not installed.
    """
    return _decode(data, max_bytes=max_bytes)


def part(
    tensor: torch.Tensor,
    *,
    dtype: torch.dtype | str | None = None,
    hidden_size: int | None = None,
    max_bytes: int = MAX_TENSOR_BYTES,
) -> dict[str, str]:
    """A chat content part holding embedded content: `{"type": "prompt_embeds", "data": ...}`.

    Put it in a message's `content` list, before, after or between `{"type": "text"}`
    parts. It must hold the embeddings of the content only: the server applies the chat
    template around it, as it does for text (a templated conversation would get the
    template twice). The arguments are those of `encode()`.

    Raises:
        PromptEmbedsError: As `encode()`.
    """
    return {
        "type": PART_TYPE,
        "data": _encode(tensor, dtype=dtype, hidden_size=hidden_size, max_bytes=max_bytes),
    }


def templated_embeds(
    messages: MessagesInput,
    *,
    tokenizer: Any,
    embed: Callable[[torch.Tensor], torch.Tensor],
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = True,
) -> torch.Tensor:
    """Embed a whole conversation the way the Completions API needs it.

    `/v1/completions` applies no chat template to `prompt_embeds`, so this renders the
    template first (`tokenizer.apply_chat_template`, with the system prompt, role markers
    and generation prompt), tokenizes the text without adding special tokens again (the
    template wrote them), and embeds the token ids with `embed`.

    Args:
        messages: A user message string or a list of chat messages (text content).
        tokenizer: The served model's tokenizer (a Hugging Face tokenizer, or anything with
            `apply_chat_template(..., tokenize=False)` and `encode(text, add_special_tokens=...)`).
        embed: Token ids (a 1-D LongTensor) to embeddings, e.g. `model.get_input_embeddings()`
            or `embedding_matrix(model_dir).__getitem__`; run under `torch.no_grad()`.
        tools: Tool schemas for templates that render them.
        add_generation_prompt: End with the assistant's turn opener, so the model answers.

    Returns:
        The `(num_tokens, hidden_size)` tensor, for `client.complete_embeds()`.

    Raises:
        PromptEmbedsError: `embed` did not return one row per token.
    """
    lib = torch_module()
    text = tokenizer.apply_chat_template(
        to_messages(messages),
        tools=list(tools) if tools else None,
        add_generation_prompt=add_generation_prompt,
        tokenize=False,
    )
    ids = list(tokenizer.encode(text, add_special_tokens=False))
    with lib.no_grad():
        out = embed(lib.tensor(ids, dtype=lib.long))
    if out.dim() == 3 and out.shape[0] == 1:  # a model that keeps the batch dimension
        out = out[0]
    if out.dim() != 2 or out.shape[0] != len(ids):
        raise PromptEmbedsError(
            f"embed returned shape {tuple(out.shape)} for {len(ids)} token ids; it must give "
            "one row per token: (num_tokens, hidden_size)",
            shape=tuple(int(size) for size in out.shape),
        )
    return out.detach()
