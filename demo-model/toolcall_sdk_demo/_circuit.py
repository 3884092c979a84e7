"""Hand-set starting weights that make the untrained demo model copy tokens.

A tool call is mostly copying: `ORD-12345` from the request into the arguments. Transformers
copy with an *induction circuit*: a previous-token head (layer 0) writes into each position
which token came before it; an induction head (layer 1) then looks for an earlier position
whose previous token is the current token, and predicts the token found there. Gradient
descent finds this circuit only after a "phase change" that takes far longer than the few
CPU minutes the demo may train, so a model trained from random weights learns the call
format but copies almost nothing. Setting the circuit by hand (and keeping it fixed while
the rest trains) gets copying from the first step; training learns *what* to copy and when.

The first token of a value has no cue to continue from (after `"city": "` nothing in the
request says `Paris` comes next), so layer 1's second head starts as a *lookup* head: it
already copies whatever it attends to, and training only has to teach it where to look.

Layout of the 256-dim residual stream at initialisation:
- dims 0-63: the token embedding (tied with the output layer, so writing a token's embedding
  there predicts that token);
- dims 64-127: the previous token's embedding, written by layer 0, head 0;
- the rest: zero. The other heads' and every MLP's output projections start at zero, so at
  step 0 the model is the circuit plus the lookup head, and the rest grows from there.

RoPE (Qwen2, `rotate_half` convention, head dim 128): rotary pair j = (d_j, d_{j+64}) turns by
`position * theta**(-j/64)`. High-frequency pairs (small j) make a head position-sensitive;
with theta = 1e6 the pairs j >= 32 turn by < 0.001 rad per token, i.e. position-blind over
a few hundred tokens -- where content matching goes.
"""

from __future__ import annotations

import math
from typing import Any, Final

EMBED_DIMS: Final = 64
# Rotary pairs 0-7 carry the previous-token pattern.
_PREV_PAIRS: Final = 8
# Bias magnitude of that pattern: score(offset 1) - score(offset 0 or 2) =
# a^2 * sum(1 - cos(theta_j)) / sqrt(head_dim) ~ 12, enough to put nearly all attention on
# the previous token among hundreds.
_PREV_BIAS: Final = 10.0
# Gains of the induction head's query and key; the match score is ~ gain^2 * 11 * cosine.
_INDUCTION_GAIN: Final = 1.3
# How strongly the induction head's output (the copied token) outweighs the current token.
_COPY_GAIN: Final = 3.0
# The lookup head starts attending everywhere; its output starts weaker than a copy.
_LOOKUP_GAIN: Final = 1.0


def seed_copy_circuit(model: Any, *, seed: int) -> list[tuple[Any, Any]]:
    """Overwrite `model`'s initial weights with the copy circuit (in place).

    Args:
        model: A freshly initialised `Qwen2ForCausalLM` with hidden size 256, at least two
            layers, two heads of 128 dims (one per KV head) and theta 1e6.
        seed: Seed of the token embedding.

    Returns:
        (parameter, mask) pairs: the circuit's entries, which training keeps fixed
        (`freeze_hooks`).
    """
    import torch

    config = model.config
    head_dim = config.head_dim
    hidden = config.hidden_size
    if (
        head_dim != 128
        or hidden < 2 * EMBED_DIMS
        or config.num_hidden_layers < 2
        or config.num_attention_heads != config.num_key_value_heads
    ):
        raise ValueError("the copy circuit needs head_dim 128, hidden >= 128, 2+ layers, no GQA")
    half = head_dim // 2
    theta = _rope_theta(config)
    gen = torch.Generator().manual_seed(seed)
    eye = torch.eye(EMBED_DIMS)
    frozen: list[tuple[Any, Any]] = []

    def freeze_head(attn: Any, head: int) -> None:
        rows = slice(head * head_dim, (head + 1) * head_dim)
        for proj in (attn.q_proj, attn.k_proj, attn.v_proj):
            for param in (proj.weight, proj.bias):
                mask = torch.zeros_like(param, dtype=torch.bool)
                mask[rows] = True
                frozen.append((param, mask))
        mask = torch.zeros_like(attn.o_proj.weight, dtype=torch.bool)
        mask[:, rows] = True
        frozen.append((attn.o_proj.weight, mask))

    def clear_head(attn: Any, head: int) -> slice:
        rows = slice(head * head_dim, (head + 1) * head_dim)
        for proj in (attn.q_proj, attn.k_proj, attn.v_proj):
            proj.weight[rows].zero_()
            proj.bias[rows].zero_()
        return rows

    with torch.no_grad():
        emb = model.model.embed_tokens.weight
        emb.zero_()
        # Unit-norm rows in the first 64 dims.
        emb[:, :EMBED_DIMS] = torch.randn(emb.shape[0], EMBED_DIMS, generator=gen) / 8.0

        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()

        # RMSNorm turns a residual of norm r into one of norm sqrt(hidden); the gains below
        # undo that so each written part has about unit norm again.
        rms_scale = math.sqrt(hidden)

        # Layer 0, head 0: attend to the previous position (constant query and key from the
        # biases), carry that position's embedding into dims 64-127.
        attn = model.model.layers[0].self_attn
        clear_head(attn, 0)
        for j in range(_PREV_PAIRS):
            angle = theta ** (-j / half)
            attn.q_proj.bias[j] = _PREV_BIAS
            # key = query turned by one position: q.k peaks at offset (query - key) = 1.
            attn.k_proj.bias[j] = _PREV_BIAS * math.cos(angle)
            attn.k_proj.bias[j + half] = _PREV_BIAS * math.sin(angle)
        attn.v_proj.weight[:EMBED_DIMS, :EMBED_DIMS] = eye
        attn.o_proj.weight[EMBED_DIMS : 2 * EMBED_DIMS, :EMBED_DIMS] = eye / rms_scale
        freeze_head(attn, 0)

        # Layer 1, head 0: query = current token, key = previous token of each earlier
        # position, both in the position-blind rotary pairs; value = that position's token,
        # written onto the embedding dims so the (tied) output layer predicts it.
        attn = model.model.layers[1].self_attn
        clear_head(attn, 0)
        blind = [
            *range(half - EMBED_DIMS // 2, half),
            *range(head_dim - EMBED_DIMS // 2, head_dim),
        ]
        for i, row in enumerate(blind):
            attn.q_proj.weight[row, i] = _INDUCTION_GAIN
            attn.k_proj.weight[row, EMBED_DIMS + i] = _INDUCTION_GAIN
        attn.v_proj.weight[:EMBED_DIMS, :EMBED_DIMS] = eye
        # The residual here holds two unit-norm parts, so RMSNorm scales by sqrt(hidden / 2).
        norm = math.sqrt(hidden / 2)
        attn.o_proj.weight[:EMBED_DIMS, :EMBED_DIMS] = eye * _COPY_GAIN / norm
        freeze_head(attn, 0)

        # Layer 1, head 1: the lookup head. Query and key keep their small random start
        # (zero would give them zero gradients); value and output copy like head 0.
        v_rows = slice(head_dim, 2 * head_dim)
        attn.v_proj.weight[v_rows].zero_()
        attn.v_proj.bias[v_rows].zero_()
        attn.v_proj.weight[head_dim : head_dim + EMBED_DIMS, :EMBED_DIMS] = eye
        attn.o_proj.weight[:EMBED_DIMS, head_dim : head_dim + EMBED_DIMS] = eye * (
            _LOOKUP_GAIN / norm
        )
    return frozen


def freeze_hooks(frozen: list[tuple[Any, Any]]) -> list[Any]:
    """Zero the gradients of the frozen entries; returns the hook handles."""
    handles = []
    for param, mask in frozen:
        keep = (~mask).to(param.dtype)
        handles.append(param.register_hook(lambda grad, keep=keep: grad * keep))
    return handles


def _rope_theta(config: Any) -> float:
    params = getattr(config, "rope_parameters", None)
    if isinstance(params, dict) and "rope_theta" in params:
        return float(params["rope_theta"])
    return float(config.rope_theta)
