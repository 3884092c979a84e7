"""What makes a prompt-embeddings tensor acceptable, checked before anything is sent.

vLLM turns each tensor straight into model input: one of the wrong width or dtype can crash
the engine rather than fail the request (seed 002), so every check that can run on the
client runs here. Pure functions over a tensor's own attributes; torch is never imported.
"""

from __future__ import annotations

from typing import Any, Final

from toolcall_sdk._errors import PromptEmbedsError

__all__ = [
    "ALLOWED_DTYPES",
    "MAX_TENSOR_BYTES",
    "check_fits",
    "check_tensor",
    "check_width",
    "dtype_name",
]

ALLOWED_DTYPES: Final = ("float32", "bfloat16", "float16")
"""The dtypes vLLM loads prompt embeddings in; it refuses any other one."""

MAX_TENSOR_BYTES: Final = 128 * 2**20
"""Largest tensor sent by default: 8,192 tokens x 4,096 wide in float32. A JSON body this
size already takes a while to encode and parse; a bigger tensor is more often a mistake
(a whole embedding matrix instead of one prompt's rows) than a prompt. `max_bytes=` raises it."""

_MIB = 2**20


def dtype_name(tensor: Any) -> str:
    """`"float32"` for a `torch.float32` tensor."""
    return str(tensor.dtype).removeprefix("torch.")


def check_tensor(
    tensor: Any,
    *,
    hidden_size: int | None = None,
    max_bytes: int = MAX_TENSOR_BYTES,
    where: str = "prompt_embeds",
) -> tuple[int, int]:
    """Refuse a tensor vLLM cannot take as prompt embeddings; return `(num_tokens, hidden)`.

    Checks, in order: a dense tensor, an allowed dtype, rank 2, at least one token and one
    dimension, the width `hidden_size` when known, the size limit, finite values.

    Raises:
        PromptEmbedsError: The first check that fails, saying what to change.
    """
    shape = tuple(int(size) for size in tensor.shape)
    layout = str(getattr(tensor, "layout", "torch.strided"))
    if layout != "torch.strided":
        raise PromptEmbedsError(
            f"{where}: a {layout} tensor; send a dense one (tensor.to_dense())",
            where=where,
            shape=shape,
        )
    dtype = dtype_name(tensor)
    if dtype not in ALLOWED_DTYPES:
        hint = (
            " It looks like token ids: embed them first (embedding_matrix[ids])."
            if dtype.startswith(("int", "uint"))
            else ""
        )
        raise PromptEmbedsError(
            f"{where}: dtype {dtype} is not accepted by vLLM; use one of "
            f"{', '.join(ALLOWED_DTYPES)} (tensor.to(torch.float32), or dtype= when "
            f"encoding).{hint}",
            where=where,
            shape=shape,
        )
    if len(shape) != 2:
        raise PromptEmbedsError(
            f"{where}: expected shape (num_tokens, hidden_size), got {shape}{_rank_hint(shape)}",
            where=where,
            shape=shape,
        )
    num_tokens, hidden = shape
    if num_tokens < 1 or hidden < 1:
        raise PromptEmbedsError(
            f"{where}: the tensor is empty (shape {shape}); it needs at least one token",
            where=where,
            shape=shape,
        )
    check_width(shape, hidden_size, where=where)
    size = num_tokens * hidden * int(tensor.element_size())
    if size > max_bytes:
        raise PromptEmbedsError(
            f"{where}: the tensor holds {size / _MIB:.1f} MiB, over the {max_bytes / _MIB:.1f} "
            f"MiB limit (shape {shape}). Check that it is one prompt's embeddings and not a "
            "whole embedding matrix; raise max_bytes= if it really is",
            where=where,
            shape=shape,
        )
    if not bool(tensor.isfinite().all()):
        raise PromptEmbedsError(
            f"{where}: the tensor holds NaN or infinite values; the model cannot read them",
            where=where,
            shape=shape,
        )
    return num_tokens, hidden


def check_width(shape: tuple[int, ...], hidden_size: int | None, *, where: str) -> None:
    """Refuse a `(num_tokens, hidden)` shape whose width is not the served model's.

    Raises:
        PromptEmbedsError: `hidden` differs from `hidden_size` (None: nothing to check).
    """
    if hidden_size is not None and shape[-1] != hidden_size:
        raise PromptEmbedsError(
            f"{where}: expected shape (num_tokens, {hidden_size}), got {shape}: the served "
            f"model's hidden size is {hidden_size}. Embed the prompt with that model's own "
            "embedding matrix",
            where=where,
            shape=shape,
        )


def check_fits(
    num_tokens: int,
    *,
    max_model_len: int | None,
    max_tokens: int | None,
    where: str = "prompt_embeds",
    exact: bool = True,
) -> None:
    """Refuse a prompt of `num_tokens` embedded tokens that cannot fit `max_model_len`.

    The prompt needs room for `max_tokens` new tokens, or for one when it is not set.
    `exact=False` (chat messages) words the error for a lower bound: the text parts and
    the chat template add tokens the client cannot count.

    Raises:
        PromptEmbedsError: The prompt does not fit.
    """
    if max_model_len is None:
        return
    room = max_tokens if max_tokens is not None else 1
    if num_tokens + room <= max_model_len:
        return
    held = f"{num_tokens} embedded tokens" + ("" if exact else " (before text and template)")
    wanted = f"max_tokens={max_tokens}" if max_tokens is not None else "one new token"
    raise PromptEmbedsError(
        f"{where}: {held} plus {wanted} do not fit the server's max_model_len="
        f"{max_model_len}. Shorten the prompt, lower max_tokens, or start vLLM with a larger "
        "--max-model-len",
        where=where,
    )


def _rank_hint(shape: tuple[int, ...]) -> str:
    if len(shape) == 3 and shape[0] == 1:
        return "; drop the batch dimension (tensor[0])"
    if len(shape) == 1:
        return "; one token's embedding is tensor.unsqueeze(0)"
    return ""
