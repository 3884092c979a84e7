"""The prompt-embeddings wire format (`toolcall_sdk.embeds`): what vLLM reads, and refusals."""

from __future__ import annotations

import base64
import io
import pickle
from typing import Any

import pytest

from toolcall_sdk import PromptEmbedsError, ToolCallError
from toolcall_sdk.embeds import ALLOWED_DTYPES, decode, encode, part

torch = pytest.importorskip("torch", reason="needs the embeds extra (torch)")


def server_reads(data: str) -> Any:
    """What vLLM does with the string (seed 002)."""
    return torch.load(io.BytesIO(base64.b64decode(data)), weights_only=True)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_round_trip_is_the_same_tensor(dtype: str) -> None:
    tensor = torch.randn(5, 8, generator=torch.Generator().manual_seed(0)).to(getattr(torch, dtype))

    data = encode(tensor)

    read = server_reads(data)
    assert read.dtype == tensor.dtype
    assert read.shape == (5, 8)
    assert torch.equal(read, tensor)
    assert torch.equal(decode(data), tensor)
    assert data.isascii()


def test_a_view_is_sent_as_its_own_rows() -> None:
    # torch.save writes a view's whole storage; the sent bytes must not carry the matrix.
    matrix = torch.randn(4096, 64)
    rows = matrix[10:13]

    data = encode(rows)

    assert torch.equal(server_reads(data), rows)
    assert len(data) == len(encode(rows.clone()))
    assert len(base64.b64decode(data)) < 3 * 64 * 4 + 4096


def test_gather_of_token_ids_and_autograd_tensors_encode() -> None:
    embedding = torch.nn.Embedding(32, 8)
    out = embedding(torch.tensor([3, 1, 4]))  # requires grad

    read = server_reads(encode(out))

    assert not read.requires_grad
    assert torch.equal(read, out.detach())


def test_dtype_argument_converts_to_an_accepted_dtype() -> None:
    wide = torch.randn(2, 4, dtype=torch.float64)

    read = server_reads(encode(wide, dtype=torch.float16))

    assert read.dtype == torch.float16
    assert torch.equal(read, wide.to(torch.float16))
    assert server_reads(encode(wide, dtype="bfloat16")).dtype == torch.bfloat16


def test_part_is_the_chat_content_part_vllm_expects() -> None:
    tensor = torch.ones(2, 4)

    built = part(tensor)

    assert set(built) == {"type", "data"}
    assert built["type"] == "prompt_embeds"
    assert torch.equal(server_reads(built["data"]), tensor)


@pytest.mark.parametrize(
    ("tensor", "words"),
    [
        (torch.zeros(8), "unsqueeze(0)"),
        (torch.zeros(1, 3, 8), "tensor[0]"),
        (torch.zeros(2, 3, 8), "(num_tokens, hidden_size), got (2, 3, 8)"),
        (torch.zeros(0, 8), "empty"),
        (torch.zeros(3, 0), "empty"),
        (torch.tensor([[0.0, float("nan")]]), "NaN"),
        (torch.tensor([[float("inf"), 1.0]]), "infinite"),
        (torch.zeros(2, 2, dtype=torch.int64), "token ids"),
        (torch.zeros(2, 2, dtype=torch.float64), "dtype float64"),
        (torch.zeros(2, 2, dtype=torch.bool), "dtype bool"),
    ],
    ids=["rank1", "batch", "rank3", "no-tokens", "no-width", "nan", "inf", "int", "f64", "bool"],
)
def test_refusals(tensor: Any, words: str) -> None:
    with pytest.raises(PromptEmbedsError) as caught:
        encode(tensor)
    assert words in str(caught.value)
    assert caught.value.shape == tuple(tensor.shape)
    with pytest.raises(PromptEmbedsError):
        part(tensor)


def test_width_is_checked_when_known() -> None:
    with pytest.raises(PromptEmbedsError, match=r"expected shape \(num_tokens, 16\), got \(4, 8\)"):
        part(torch.zeros(4, 8), hidden_size=16)
    assert part(torch.zeros(4, 16), hidden_size=16)["type"] == "prompt_embeds"


def test_size_limit() -> None:
    tensor = torch.zeros(64, 64)  # 16 KiB of float32

    with pytest.raises(PromptEmbedsError, match=r"over the 0\.0 MiB limit"):
        encode(tensor, max_bytes=1024)
    data = encode(tensor, max_bytes=64 * 64 * 4)
    with pytest.raises(PromptEmbedsError, match="byte limit"):
        decode(data, max_bytes=1024)


def test_not_a_tensor_and_unaccepted_dtype_argument() -> None:
    with pytest.raises(PromptEmbedsError, match=r"expected a torch\.Tensor"):
        encode([[0.0, 1.0]])
    with pytest.raises(PromptEmbedsError, match="dtype=float64"):
        encode(torch.zeros(2, 2), dtype=torch.float64)


def test_sparse_tensor_is_refused() -> None:
    with pytest.raises(PromptEmbedsError, match="dense"):
        encode(torch.zeros(2, 2).to_sparse())


class _Payload:
    def __reduce__(self) -> Any:
        return (print, ("unpickled!",))


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("", "empty"),
        ("not base64!", "not valid base64"),
        ("été", "non-ASCII"),
        (base64.b64encode(b"plain bytes").decode(), "not a torch.save tensor"),
        (base64.b64encode(pickle.dumps(_Payload())).decode(), "not a torch.save tensor"),
    ],
    ids=["empty", "base64", "non-ascii", "not-torch", "pickle"],
)
@pytest.mark.filterwarnings("ignore:Detected pickle protocol")  # torch on a raw pickle
def test_decode_refusals(data: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PromptEmbedsError, match=words):
        decode(data)
    assert "unpickled!" not in capsys.readouterr().out


def test_decode_loads_nothing_but_a_tensor(capsys: pytest.CaptureFixture[str]) -> None:
    buffer = io.BytesIO()
    torch.save({"weights": torch.zeros(2)}, buffer)
    with pytest.raises(PromptEmbedsError, match="hold a dict, not a tensor"):
        decode(base64.b64encode(buffer.getvalue()).decode())
    buffer = io.BytesIO()
    torch.save(_Payload(), buffer)  # a torch.save file whose pickle would run code
    with pytest.raises(PromptEmbedsError, match=r"not a torch\.save tensor"):
        decode(base64.b64encode(buffer.getvalue()).decode())
    assert "unpickled!" not in capsys.readouterr().out


def test_the_error_is_a_toolcall_error_and_a_value_error() -> None:
    assert issubclass(PromptEmbedsError, ToolCallError)
    assert issubclass(PromptEmbedsError, ValueError)
    assert ALLOWED_DTYPES == ("float32", "bfloat16", "float16")
