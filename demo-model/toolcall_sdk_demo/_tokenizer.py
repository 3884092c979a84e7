"""The demo model's tokenizer: a byte-level BPE trained on the synthetic chats.

Pre-tokenization keeps words, number chunks and everything else apart, so a value is the
same tokens wherever it appears: `Paris` in "weather in Paris?" and in `{"city": "Paris"}`
(GPT-2's pre-tokenizer would make ` Paris` and `Paris` different tokens), `ORD-12345` in a
request and in the call. That is what lets a tiny model learn to *copy* values instead of
recalling them.

`<tool_call>` is not one token unless `tag_tokens` is set: it then splits as
`<`, `tool`, `_`, `call`, `>` -- the case vLLM's hermes parser must handle in streaming
(seed 000).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from toolcall_sdk_demo._template import (
    END_OF_TEXT,
    IM_END,
    IM_START,
    TOOL_CALL_END,
    TOOL_CALL_START,
    chat_template,
)

if TYPE_CHECKING:
    from tokenizers import Tokenizer

SPECIAL_TOKENS: Final = (END_OF_TEXT, IM_START, IM_END)
TAG_TOKENS: Final = (TOOL_CALL_START, TOOL_CALL_END)
# Letters | a number chunk | newlines | anything else (punctuation and spaces together, so
# JSON's `": "` and `", "` become single tokens). Numbers split into chunks of up to three
# digits aligned from the right, so `83019294` and `83,019,294` share the chunks 83|019|294
# and a five-digit id is two tokens with no repeated digit to confuse a copying head; a `-`
# joins the chunk after it, so `ORD-12345` is ORD|-12|345 and a date 2|027|-10|-03 (no
# lone `-` that would appear in several values). Newlines stand alone so that the generation
# prompt (`<|im_start|>assistant\n`) ends on a token boundary the training data also has.
PRETOKENIZE_PATTERN: Final = r"\p{L}+|-?\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))|\n+|[^\p{L}\p{N}\n]+"


def tokenizer_config(*, tag_tokens: bool, model_max_length: int) -> dict[str, Any]:
    """The `tokenizer_config.json` written next to `tokenizer.json` (pure; tested)."""
    added: dict[str, Any] = {}
    # Ids follow the order `train_tokenizer` adds the tokens in: specials first.
    for index, token in enumerate(SPECIAL_TOKENS + (TAG_TOKENS if tag_tokens else ())):
        added[str(index)] = {
            "content": token,
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": token in SPECIAL_TOKENS,
        }
    return {
        "added_tokens_decoder": added,
        "additional_special_tokens": [IM_START, IM_END],
        "bos_token": None,
        "eos_token": IM_END,
        "pad_token": END_OF_TEXT,
        "unk_token": None,
        "chat_template": chat_template(),
        "clean_up_tokenization_spaces": False,
        "model_max_length": model_max_length,
        "tokenizer_class": "PreTrainedTokenizerFast",
        "split_special_tokens": False,
    }


def train_tokenizer(texts: Iterable[str], *, vocab_size: int, tag_tokens: bool) -> Tokenizer:
    """Train the byte-level BPE on `texts` (deterministic for the same texts).

    Args:
        texts: The training corpus (rendered chats).
        vocab_size: Target vocabulary size, special tokens included.
        tag_tokens: Add `<tool_call>` and `</tool_call>` as single (non-special) tokens.
    """
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        show_progress=False,
        special_tokens=[AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    if tag_tokens:
        # Non-special, as in Qwen2.5: they must survive detokenization for the parser.
        tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    return tokenizer
