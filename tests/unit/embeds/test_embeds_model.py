"""Reading the served model's width and embedding matrix from disk, and `templated_embeds`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import PromptEmbedsError
from toolcall_sdk.embeds import embedding_matrix, hidden_size_of, templated_embeds
from toolcall_sdk.embeds._model import served_limits

torch = pytest.importorskip("torch", reason="needs the embeds extra (torch)")
safetensors_torch = pytest.importorskip("safetensors.torch", reason="needs safetensors")


def model_dir(tmp_path: Path, config: dict[str, Any], weights: dict[str, Any]) -> Path:
    (tmp_path / "config.json").write_text(json.dumps(config))
    if weights:
        safetensors_torch.save_file(weights, str(tmp_path / "model.safetensors"))
    return tmp_path


@pytest.mark.parametrize(
    ("config", "width"),
    [
        ({"hidden_size": 256}, 256),
        ({"text_config": {"hidden_size": 3072}, "vision_config": {"hidden_size": 1152}}, 3072),
        ({"n_embd": 768}, 768),
        ({"d_model": 512}, 512),
        ({"hidden_size": "256"}, None),
        ({}, None),
    ],
)
def test_hidden_size_of_a_model_folder(tmp_path: Path, config: dict[str, Any], width: Any) -> None:
    assert hidden_size_of(model_dir(tmp_path, config, {})) == width


def test_hidden_size_from_the_hugging_face_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = tmp_path / "hub" / "models--acme--tiny-chat"
    (hub / "refs").mkdir(parents=True)
    (hub / "refs" / "main").write_text("abc123\n")
    (hub / "snapshots" / "abc123").mkdir(parents=True)
    (hub / "snapshots" / "abc123" / "config.json").write_text('{"hidden_size": 2048}')
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))

    assert hidden_size_of("acme/tiny-chat") == 2048
    assert hidden_size_of("acme/not-cached") is None
    assert hidden_size_of("no-org-name") is None


def test_served_limits_read_vllms_model_card() -> None:
    body = {
        "object": "list",
        "data": [
            {"id": "other", "max_model_len": 99},
            {"id": "demo", "max_model_len": 2048, "root": "/models/demo"},
        ],
    }

    limits = served_limits(body, "demo")

    assert (limits.max_model_len, limits.root) == (2048, "/models/demo")
    assert served_limits(body, "missing").max_model_len is None
    assert served_limits({"data": [{"id": "x", "max_model_len": "big"}]}, "x").max_model_len is None
    assert served_limits("not json", "x").root is None


def test_embedding_matrix_from_safetensors(tmp_path: Path) -> None:
    matrix = torch.randn(32, 8)
    folder = model_dir(
        tmp_path,
        {"hidden_size": 8},
        {
            "lm_head.weight": torch.randn(32, 8),
            "model.embed_tokens.weight": matrix,
            "model.layers.0.mlp.up_proj.weight": torch.randn(16, 8),
        },
    )

    loaded = embedding_matrix(folder)

    assert torch.equal(loaded, matrix)


def test_embedding_matrix_must_exist(tmp_path: Path) -> None:
    config_only = tmp_path / "config-only"
    config_only.mkdir()
    with pytest.raises(PromptEmbedsError, match=r"no \*\.safetensors file"):
        embedding_matrix(model_dir(config_only, {"hidden_size": 8}, {}))
    narrow = tmp_path / "narrow"
    narrow.mkdir()
    model_dir(narrow, {"hidden_size": 16}, {"model.embed_tokens.weight": torch.randn(4, 8)})
    with pytest.raises(PromptEmbedsError, match="of width 16"):
        embedding_matrix(narrow)


class ChatTokenizer:
    """A word-level tokenizer with a chat template, standing in for a Hugging Face one."""

    words = ("<s>", "<user>", "<assistant>", "<end>", "what", "is", "two", "plus")

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def apply_chat_template(self, messages: Any, **options: Any) -> str:
        self.seen.append((messages, options))
        turns = [f"<{m['role']}> {m['content']} <end>" for m in messages]
        return " ".join(["<s>", *turns, "<assistant>" if options["add_generation_prompt"] else ""])

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        assert add_special_tokens is False  # the template already wrote them
        return [self.words.index(word) for word in text.split()]


def test_templated_embeds_embeds_the_whole_templated_prompt() -> None:
    tokenizer = ChatTokenizer()
    matrix = torch.randn(len(ChatTokenizer.words), 8)

    embeds = templated_embeds("what is two plus two", tokenizer=tokenizer, embed=matrix.__getitem__)

    ids = [0, 1, 4, 5, 6, 7, 6, 3, 2]  # <s> <user> what is two plus two <end> <assistant>
    assert torch.equal(embeds, matrix[ids])
    messages, options = tokenizer.seen[0]
    assert messages == [{"role": "user", "content": "what is two plus two"}]
    assert options == {"tools": None, "add_generation_prompt": True, "tokenize": False}


def test_templated_embeds_accepts_a_module_keeping_the_batch_dimension() -> None:
    embedding = torch.nn.Embedding(len(ChatTokenizer.words), 4)

    embeds = templated_embeds(
        [{"role": "user", "content": "two"}],
        tokenizer=ChatTokenizer(),
        embed=lambda ids: embedding(ids.unsqueeze(0)),
    )

    assert embeds.shape == (5, 4)
    assert not embeds.requires_grad


def test_templated_embeds_wants_one_row_per_token() -> None:
    with pytest.raises(PromptEmbedsError, match="one row per token"):
        templated_embeds("two", tokenizer=ChatTokenizer(), embed=lambda ids: torch.zeros(2, 4))
