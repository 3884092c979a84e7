"""Several answers to one stage-2 request, and the one most of them agree on (`samples=`).

With `samples=k` a stage-2 request asks the server for k answers at once (`n=k`: one
prompt, whose prefix the server computes once) at a sampling temperature, and the step
goes on with one of them, as if it were the only answer:

- where the answer decides whether to call (`tool_choice: "auto"`), text wins when more
  answers are text than calls (the first text answer is kept);
- otherwise, among the answers with no problem (schema, rules, grounding), the one whose
  calls most of them make (the same tools with the same validated arguments, in any
  order);
- where none is valid, the one with the fewest problems, so the feedback is about the
  nearest miss.

Ties go to the earlier answer. Measured in docs/pipeline.md, "Several answers to one
request".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolcall_sdk._loop_guard import call_key
from toolcall_sdk._results import Problem, ToolCall

__all__ = ["MAX_SAMPLES", "SAMPLE_TEMPERATURE", "Sampled", "agreed", "sampled"]

MAX_SAMPLES = 16
"""The most answers one request may ask for."""

SAMPLE_TEMPERATURE = 0.7
"""The temperature of a sampled request when the client's is unset or 0: at 0 the k
answers would be the same one k times."""


@dataclass(frozen=True, slots=True)
class Sampled:
    """One answer as the vote sees it: its calls and problems, or that it is text where
    text may answer."""

    calls: Sequence[ToolCall]
    problems: Sequence[Problem]
    text: bool = False


def sampled(params: Mapping[str, Any], samples: int) -> dict[str, Any]:
    """The request asking for `samples` answers (`n`), at a temperature that makes them
    differ; with `samples` of 1, as it is."""
    out = dict(params)
    if samples <= 1:
        return out
    out["n"] = samples
    if not out.get("temperature"):
        out["temperature"] = SAMPLE_TEMPERATURE
    return out


def agreed(answers: Sequence[Sampled]) -> int:
    """The index of the answer to go on with.

    Raises:
        ValueError: `answers` is empty.
    """
    if not answers:
        raise ValueError("agreed() needs at least one answer")
    texts = [index for index, answer in enumerate(answers) if answer.text]
    if len(texts) > len(answers) - len(texts):
        return texts[0]
    votes: Counter[tuple[tuple[str, str], ...]] = Counter()
    first: dict[tuple[tuple[str, str], ...], int] = {}
    for index, answer in enumerate(answers):
        if answer.calls and not answer.problems and not answer.text:
            key = tuple(sorted(call_key(call) for call in answer.calls))
            votes[key] += 1
            first.setdefault(key, index)
    if votes:
        best = max(votes, key=lambda key: (votes[key], -first[key]))
        return first[best]
    calls = [index for index in range(len(answers)) if not answers[index].text] or texts
    return min(calls, key=lambda index: (len(answers[index].problems), index))
