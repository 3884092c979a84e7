"""Build the demo model: train the tokenizer, then a tiny Qwen2 on synthetic tool chats.

Needs torch, transformers and tokenizers (the vLLM CPU venv has them; `pip install
-e './demo-model[train]'` elsewhere). Imported only by `build_demo_model`, never by
`import toolcall_sdk_demo`.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from toolcall_sdk_demo._circuit import freeze_hooks, seed_copy_circuit
from toolcall_sdk_demo._config import DemoConfig, config_hash
from toolcall_sdk_demo._data import Example, generate
from toolcall_sdk_demo._template import END_OF_TEXT, IM_END, IM_START, render_chat
from toolcall_sdk_demo._tokenizer import train_tokenizer

BUILD_INFO: Final = "build-info.json"
TOKENIZER_SUBDIR: Final = "tokenizer"
_ASSISTANT_HEADER: Final = IM_START + "assistant\n"
# Examples of similar length are batched together (less padding); this many batches are
# sorted at a time, so the order stays random at a larger scale.
_SORT_WINDOW_BATCHES: Final = 32
_LOG_EVERY: Final = 25

Log = Callable[[str], None]


def assistant_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the assistant turns in a rendered chat (the trained tokens).

    Each span runs from after `<|im_start|>assistant\\n` to the end of its `<|im_end|>`, so
    the model also learns to stop.
    """
    spans: list[tuple[int, int]] = []
    start = text.find(_ASSISTANT_HEADER)
    while start != -1:
        begin = start + len(_ASSISTANT_HEADER)
        end = text.index(IM_END, begin) + len(IM_END)
        spans.append((begin, end))
        start = text.find(_ASSISTANT_HEADER, end)
    return spans


def _label_mask(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[bool]:
    mask = []
    for tok_start, tok_end in offsets:
        mask.append(any(begin <= tok_start and tok_end <= end for begin, end in spans))
    return mask


def _batches(lengths: Sequence[int], batch_size: int, rng: random.Random) -> list[list[int]]:
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * _SORT_WINDOW_BATCHES
    batches: list[list[int]] = []
    for i in range(0, len(order), window):
        chunk = sorted(order[i : i + window], key=lambda j: lengths[j])
        batches += [chunk[k : k + batch_size] for k in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return [b for b in batches if len(b) == batch_size]


def _lr_at(step: int, config: DemoConfig) -> float:
    if step < config.warmup_steps:
        return config.learning_rate * (step + 1) / config.warmup_steps
    progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
    # Cosine down to a tenth of the peak.
    return config.learning_rate * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def _checkpoint_hook() -> tuple[int, Path] | None:
    # TOOLCALL_DEMO_CHECKPOINTS="EVERY:DIR" saves intermediate models, to see how accuracy
    # grows with steps when tuning the config. Not part of the build's identity.
    spec = os.environ.get("TOOLCALL_DEMO_CHECKPOINTS")
    if not spec:
        return None
    every, folder = spec.split(":", 1)
    return int(every), Path(folder)


def _versions() -> dict[str, str]:
    import tokenizers
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
    }


def load_tokenizer(model_dir: Path) -> Any:
    """The demo model's tokenizer, exactly as trained (from `<model_dir>/tokenizer`)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(model_dir / TOKENIZER_SUBDIR))


def _save_tokenizer(tokenizer: Any, out: Path, config: DemoConfig) -> Any:
    from transformers import PreTrainedTokenizerFast

    from toolcall_sdk_demo._template import chat_template

    hf = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=IM_END,
        pad_token=END_OF_TEXT,
        additional_special_tokens=[IM_START, IM_END],
        model_max_length=config.max_position_embeddings,
        clean_up_tokenization_spaces=False,
    )
    hf.chat_template = chat_template()
    # Its own folder, with no config.json: next to a Qwen2 config, transformers (and so vLLM)
    # would load it as `Qwen2Tokenizer`, which swaps in Qwen's pre-tokenizer and silently
    # tokenizes differently from training. The model folder itself has no tokenizer, so a
    # server started without `--tokenizer <dir>/tokenizer` fails loudly instead.
    hf.save_pretrained(str(out / TOKENIZER_SUBDIR))
    return hf


def _check_tokenizer(out: Path, tokenizer: Any, examples: Sequence[Example]) -> None:
    # vLLM loads the saved tokenizer through transformers and renders with its Jinja; both
    # must agree with what training used.
    loaded = load_tokenizer(out)
    for example in examples:
        ours = render_chat(example.prompt, example.tools, add_generation_prompt=True)
        theirs = loaded.apply_chat_template(
            example.prompt, tools=example.tools or None, tokenize=False, add_generation_prompt=True
        )
        if ours != theirs:
            raise RuntimeError(
                "the chat template renders differently in transformers than in render_chat:\n"
                f"{ours!r}\n!=\n{theirs!r}"
            )
        text = render_chat(example.messages, example.tools)
        if loaded(text, add_special_tokens=False).input_ids != tokenizer.encode(text).ids:
            raise RuntimeError(
                f"transformers ({type(loaded).__name__}) tokenizes differently from training"
            )


def build_demo_model(
    out: Path, config: DemoConfig | None = None, *, force: bool = False, log: Log = print
) -> Path:
    """Build the demo model into `out` (skipped when `out` already holds this build).

    Args:
        out: Target folder; written atomically (a temporary sibling, then renamed).
        config: What to build; the defaults when None.
        force: Rebuild even when `out` holds a build with the same hash.
        log: Progress sink.

    Returns:
        `out`.
    """
    config = config or DemoConfig()
    digest = config_hash(config)
    info_path = out / BUILD_INFO
    if not force and info_path.exists():
        info = json.loads(info_path.read_text())
        if info.get("hash") == digest:
            log(f"demo model {digest} already built at {out}")
            return out
    started = time.monotonic()

    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True, warn_only=True)

    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        examples = generate(config.train_examples, split="train", seed=config.seed)
        texts = [render_chat(e.messages, e.tools) for e in examples]
        tokenizer = train_tokenizer(
            texts[: config.tokenizer_examples],
            vocab_size=config.vocab_size,
            tag_tokens=config.tag_tokens,
        )
        hf_tokenizer = _save_tokenizer(tokenizer, tmp, config)
        _check_tokenizer(tmp, tokenizer, examples[:50])
        encodings = tokenizer.encode_batch(texts)
        rows: list[tuple[list[int], list[bool]]] = []
        for text, encoding in zip(texts, encodings, strict=True):
            rows.append((list(encoding.ids), _label_mask(encoding.offsets, assistant_spans(text))))
        pad_id = tokenizer.token_to_id(END_OF_TEXT)
        data_s = time.monotonic() - started
        n_tokens = sum(len(ids) for ids, _ in rows)
        log(
            f"data: {len(rows)} chats, {n_tokens} tokens (mean {n_tokens / len(rows):.0f}), "
            f"vocab {tokenizer.get_vocab_size()}, {data_s:.1f} s"
        )

        model_config = Qwen2Config(
            vocab_size=tokenizer.get_vocab_size(),
            hidden_size=config.hidden_size,
            intermediate_size=config.intermediate_size,
            num_hidden_layers=config.num_layers,
            num_attention_heads=config.num_heads,
            num_key_value_heads=config.num_kv_heads,
            head_dim=config.head_dim,
            max_position_embeddings=config.max_position_embeddings,
            tie_word_embeddings=True,
            rope_theta=config.rope_theta,
            bos_token_id=pad_id,
            eos_token_id=tokenizer.token_to_id(IM_END),
            pad_token_id=pad_id,
            torch_dtype="float32",
        )
        model = Qwen2ForCausalLM(model_config)
        if config.copy_circuit:
            freeze_hooks(seed_copy_circuit(model, seed=config.seed))
        model.train()
        params = sum(p.numel() for p in model.parameters())
        optimizer = torch.optim.AdamW(
            model.parameters(),
            lr=config.learning_rate,
            weight_decay=config.weight_decay,
            betas=(0.9, 0.98),
        )
        rng = random.Random(config.seed)
        lengths = [len(ids) for ids, _ in rows]
        schedule: list[list[int]] = []
        while len(schedule) < config.steps:
            schedule += _batches(lengths, config.batch_size, rng)
        losses: list[tuple[int, float]] = []
        train_started = time.monotonic()
        running = 0.0
        checkpoint = _checkpoint_hook()
        for step, batch in enumerate(schedule[: config.steps]):
            width = max(lengths[i] for i in batch)
            input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
            labels = torch.full((len(batch), width), -100, dtype=torch.long)
            attention = torch.zeros((len(batch), width), dtype=torch.long)
            for row, index in enumerate(batch):
                ids, mask = rows[index]
                input_ids[row, : len(ids)] = torch.tensor(ids)
                attention[row, : len(ids)] = 1
                labels[row, : len(ids)] = torch.where(
                    torch.tensor(mask), torch.tensor(ids), torch.tensor(-100)
                )
            for group in optimizer.param_groups:
                group["lr"] = _lr_at(step, config)
            loss = model(input_ids=input_ids, attention_mask=attention, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            running += float(loss.detach())
            if (step + 1) % _LOG_EVERY == 0 or step + 1 == config.steps:
                count = (step % _LOG_EVERY) + 1
                losses.append((step + 1, round(running / count, 4)))
                running = 0.0
                log(
                    f"step {step + 1}/{config.steps} loss {losses[-1][1]:.3f} "
                    f"({time.monotonic() - train_started:.0f} s)"
                )
            if checkpoint is not None and (step + 1) % checkpoint[0] == 0:
                # A development aid (see _checkpoint_hook): weights + tokenizer, servable.
                target = checkpoint[1] / f"step-{step + 1}"
                model.save_pretrained(str(target), safe_serialization=True)
                hf_tokenizer.save_pretrained(str(target / TOKENIZER_SUBDIR))
        train_s = time.monotonic() - train_started

        model.eval()
        model.save_pretrained(str(tmp), safe_serialization=True)
        GenerationConfig(
            eos_token_id=[tokenizer.token_to_id(IM_END), pad_id],
            pad_token_id=pad_id,
            bos_token_id=pad_id,
        ).save_pretrained(str(tmp))
        del hf_tokenizer
        info = {
            "hash": digest,
            "variant": config.variant,
            "config": config.as_dict(),
            "parameters": params,
            "vocab_size": tokenizer.get_vocab_size(),
            "train_tokens": n_tokens,
            "loss": losses,
            "timings_s": {
                "data_and_tokenizer": round(data_s, 1),
                "train": round(train_s, 1),
                "total": round(time.monotonic() - started, 1),
            },
            "versions": _versions(),
        }
        (tmp / BUILD_INFO).write_text(json.dumps(info, indent=2) + "\n")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log(f"demo model built at {out} in {time.monotonic() - started:.0f} s")
    return out
