"""The failure taxonomy: one class per (case, pipeline), and why.

Classes, checked in this order:

- `hard_fail`: no usable answer: a server error, arguments that are not JSON, an answer
  cut off at the token limit, or validation that still failed when the retries ran out.
- `spurious_call`: the case needs no call, and the model made one.
- `missed_call`: the case needs a call, and the model answered in text.
- `wrong_tool`: other tools (or another number of calls) than expected.
- `wrong_args`: the right tools, but an argument is missing, unexpected or not among the
  acceptable values; `field` names it.
- `pass`: everything as expected.
- `wrong_answer` (multi-step tasks only, `_agent_score.py`): the calls ran, the final text
  answer lacks a fact the task names.

Flags ride along: `parser_miss` (the server's parser left a call in the text), `repaired`
(a deterministic repair made the arguments valid) and the number of attempts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._matching import Matcher, match_calls
from toolcall_sdk.evals._pipelines import PipelineOutcome

__all__ = ["CLASSES", "FAILURE_CLASSES", "Verdict", "VerdictClass", "classify"]

VerdictClass = Literal[
    "pass", "wrong_tool", "wrong_args", "hard_fail", "missed_call", "spurious_call", "wrong_answer"
]
CLASSES: Final[tuple[VerdictClass, ...]] = (
    "pass",
    "wrong_tool",
    "wrong_args",
    "hard_fail",
    "missed_call",
    "spurious_call",
    "wrong_answer",
)
FAILURE_CLASSES: Final[tuple[VerdictClass, ...]] = CLASSES[1:]


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one pipeline did on one case.

    Attributes:
        verdict: The taxonomy class.
        message: Why, in words that group across cases (empty for `pass`).
        detail: The specifics of this case.
        field: The argument at fault (`wrong_args`, and `hard_fail` from validation).
        tool: The tool the failure concerns (for per-tool reports).
    """

    verdict: VerdictClass
    message: str = ""
    detail: str = ""
    field: str | None = None
    tool: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form stored per case."""
        return {
            "verdict": self.verdict,
            "message": self.message,
            "detail": self.detail,
            "field": self.field,
            "tool": self.tool,
        }


def classify(case: EvalCase, outcome: PipelineOutcome, matcher: Matcher = match_calls) -> Verdict:
    """Put one outcome into its taxonomy class.

    Args:
        case: The case, with its expected calls.
        outcome: What the pipeline did.
        matcher: Compares expected and made calls (`match_calls`, or BFCL's rules).
    """
    expected_tool = case.expected[0].name if case.expected else None
    if outcome.hard_error is not None:
        return Verdict(
            "hard_fail",
            outcome.hard_error,
            outcome.hard_error,
            field=outcome.hard_field,
            tool=outcome.hard_tool or expected_tool,
        )
    made = [call.name for call in outcome.calls]
    if not case.expects_call:
        if not outcome.calls:
            return Verdict("pass")
        return Verdict(
            "spurious_call",
            f"called {', '.join(sorted(set(made)))} when no call was needed",
            f"calls: {made}",
            tool=made[0],
        )
    if not outcome.calls:
        text = (outcome.content or "").strip().replace("\n", " ")
        reason = "call left in the text (parser miss)" if outcome.parser_miss else "answered text"
        return Verdict("missed_call", reason, text[:160], tool=expected_tool)
    mismatch = matcher(case.expected, outcome.calls)
    if mismatch is None:
        return Verdict("pass")
    return Verdict(
        mismatch.kind,
        mismatch.message,
        mismatch.detail,
        field=mismatch.field,
        tool=mismatch.tool or expected_tool,
    )
