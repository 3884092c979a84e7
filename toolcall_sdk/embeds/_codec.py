"""The prompt-embeddings wire format: `torch.save` bytes of one tensor, base64-encoded.

It is what vLLM reads, for the Completions API's `prompt_embeds` and for chat content
parts alike: `torch.load(io.BytesIO(base64.b64decode(data)), weights_only=True)`.
torch is imported on first use (the `embeds` extra).
"""

from __future__ import annotations

import base64
import binascii
import io
import pickle
from types import ModuleType
from typing import Any

from toolcall_sdk._errors import PromptEmbedsError
from toolcall_sdk._extras import require
from toolcall_sdk.embeds._checks import ALLOWED_DTYPES, MAX_TENSOR_BYTES, check_tensor

__all__ = ["decode", "encode", "torch_module"]

# The extra that installs torch and safetensors (`install_command` names its install).
EXTRA = "embeds"
# What torch.save adds around the tensor's bytes (a zip holding a small pickle); a decoded
# string longer than the limit by more than this holds more than one allowed tensor.
_SAVE_OVERHEAD = 64 * 1024


def torch_module() -> ModuleType:
    """torch, or `MissingDependencyError` naming the `embeds` extra."""
    return require("torch", extra=EXTRA, feature="prompt embeddings")


def encode(
    tensor: Any,
    *,
    dtype: Any = None,
    hidden_size: int | None = None,
    max_bytes: int = MAX_TENSOR_BYTES,
    where: str = "prompt_embeds",
) -> str:
    """Check a tensor and return its wire string (base64 of its `torch.save` bytes).

    Raises:
        PromptEmbedsError: Not a tensor, or refused by `check_tensor`.
    """
    torch = torch_module()
    if not isinstance(tensor, torch.Tensor):
        raise PromptEmbedsError(
            f"{where}: expected a torch.Tensor of shape (num_tokens, hidden_size), got "
            f"{type(tensor).__name__}",
            where=where,
        )
    tensor = tensor.detach()
    if dtype is not None:
        name = str(dtype).removeprefix("torch.")
        if name not in ALLOWED_DTYPES:
            raise PromptEmbedsError(
                f"{where}: dtype={name} is not accepted by vLLM; use one of "
                f"{', '.join(ALLOWED_DTYPES)}",
                where=where,
            )
        tensor = tensor.to(getattr(torch, name))
    check_tensor(tensor, hidden_size=hidden_size, max_bytes=max_bytes, where=where)
    buffer = io.BytesIO()
    torch.save(_compact(torch, tensor), buffer)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def decode(data: str | bytes, *, max_bytes: int = MAX_TENSOR_BYTES, where: str = "data") -> Any:
    """Read a wire string back into a tensor, as vLLM does (`weights_only=True`).

    Only a tensor is accepted: `weights_only` never unpickles code, and any other object
    it can load (a dict, a list) is refused.

    Raises:
        PromptEmbedsError: Not base64, not `torch.save` bytes, over the size limit, or not
            a tensor.
    """
    if isinstance(data, str):
        try:
            data = data.encode("ascii")
        except UnicodeEncodeError:
            raise PromptEmbedsError(
                f"{where}: not base64 (non-ASCII characters)", where=where
            ) from None
    if not isinstance(data, bytes):
        raise PromptEmbedsError(
            f"{where}: expected a base64 string, got {type(data).__name__}; build content "
            "parts with toolcall_sdk.embeds.part(tensor)",
            where=where,
        )
    if not data:
        raise PromptEmbedsError(f"{where}: the string is empty", where=where)
    limit = max_bytes + _SAVE_OVERHEAD
    if len(data) > (limit + 2) // 3 * 4:
        raise PromptEmbedsError(
            f"{where}: {len(data)} base64 characters, over the {max_bytes} byte limit of one "
            "tensor; raise max_bytes= if this is intended",
            where=where,
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PromptEmbedsError(f"{where}: not valid base64 ({exc})", where=where) from exc
    torch = torch_module()
    try:
        loaded = torch.load(io.BytesIO(raw), weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, RuntimeError, ValueError, EOFError, OSError) as exc:
        raise PromptEmbedsError(
            f"{where}: not a torch.save tensor ({type(exc).__name__}); encode tensors with "
            "toolcall_sdk.embeds.encode",
            where=where,
        ) from exc
    if not isinstance(loaded, torch.Tensor):
        raise PromptEmbedsError(
            f"{where}: the bytes hold a {type(loaded).__name__}, not a tensor", where=where
        )
    size = loaded.numel() * loaded.element_size()
    if size > max_bytes:
        raise PromptEmbedsError(
            f"{where}: the tensor holds {size} bytes, over the {max_bytes} byte limit; raise "
            "max_bytes= if this is intended",
            where=where,
            shape=tuple(int(n) for n in loaded.shape),
        )
    return loaded


def _compact(torch: ModuleType, tensor: Any) -> Any:
    # torch.save writes a view's whole storage: a few rows sliced out of an embedding
    # matrix would carry the matrix along. Copy unless the tensor owns exactly its data.
    tensor = tensor.to("cpu")
    own = tensor.numel() * tensor.element_size()
    if (
        tensor.is_contiguous()
        and tensor.storage_offset() == 0
        and tensor.untyped_storage().nbytes() == own
        and type(tensor) is torch.Tensor
    ):
        return tensor
    return tensor.clone(memory_format=torch.contiguous_format).as_subclass(torch.Tensor)
