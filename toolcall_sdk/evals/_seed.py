"""The seed article's ladder, printed beside ours so that a run reads against it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ["SEED_PASS_RATES", "SEED_SOURCE", "seed_text"]

SEED_SOURCE: Final = "seed 001 (Qwen2.5-7B-Instruct on vLLM, ~200 cases from real logs)"
"""Where the figures come from, as reports cite it."""

# From the seed document 001_af1461d5aefdf801.txt (Vietnamese), its closing line of
# results: "sai parser ~70%, đúng parser + auto ~86%, chuyển sang required + Pydantic ~93%,
# thêm retry có feedback ~97.5%", measured with Qwen2.5-7B-Instruct on vLLM over an
# evals.jsonl of ~200 cases from real logs. Row by row:
# - "wrong parser", ~70%: the server's --tool-call-parser did not match the model
#   (llama3_json for Qwen2.5), so calls landed in `content`; our `auto` rung asks the
#   wrong-parser server (vLLM's plain hermes parser) the same way.
# - "right parser + auto", ~86%: `auto+parser`.
# - "required + Pydantic", ~93%: a forced call under structured outputs, then Pydantic
#   validation; `required+validate`.
# - "+ retry with specific error feedback", ~97.5% (at most 2 retries): `full`.
# The seed has no row for `auto+recover` or plain `required`.
SEED_PASS_RATES: Final[Mapping[str, float]] = MappingProxyType(
    {
        "auto": 0.70,
        "auto+parser": 0.86,
        "required+validate": 0.93,
        "full": 0.975,
    }
)
"""The seed's pass rate per matching rung of `LADDER`."""


def seed_text(rate: float | None) -> str:
    """A seed figure as report tables show it; a dash for a rung the seed did not measure."""
    # "~": the seed gives its figures as approximations (~70%, ~97.5%).
    return "-" if rate is None else f"~{rate * 100:g}%"
