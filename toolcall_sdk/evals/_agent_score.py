"""Scoring a multi-step task: the chain of calls that ran, then the facts of the answer.

A task passes when every expected call ran with acceptable arguments, each after the one
before it (other calls may come between: a look-up made twice, a wrong call the model then
fixed), and the run ended in a text answer holding every fact. The first thing missing
names the class:

- `hard_fail`: the run stopped without an answer (a bound, retries exhausted, a server
  error): the outcome's `hard_error`;
- `missed_call`: an expected tool never ran (the model answered, or called others);
- `wrong_args`: it ran, never with acceptable arguments (`field` names the first at fault);
- `wrong_tool`: it ran with acceptable arguments, but only before the call it depends on;
- `wrong_answer`: the chain ran, the answer lacks a fact (or there is no text answer).

`chain_progress` also tells, before each step, whether the chain was complete: the truth
a router's "answer now or call again" is measured against.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from toolcall_sdk.evals._cases import EvalCase, ExpectedCall
from toolcall_sdk.evals._matching import MadeCall, Mismatch, check_arguments
from toolcall_sdk.evals._outcome import PipelineOutcome
from toolcall_sdk.evals._taxonomy import Verdict

__all__ = ["answer_holds", "chain_progress", "score_agent"]

# A separator between digit groups of three (`4,800,000`, `4.800.000`, `4 800 000`): dropped
# before facts are looked for, so a number matches however the model groups it. A decimal
# part (`100.00`) keeps its point: two digits after it are not a group of three.
_GROUPING: Final = re.compile(r"(?<=\d)[,.\s\u00a0_'](?=\d{3}(?!\d))")


def _normal(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, _GROUPING.sub("", text)
    return text.casefold()


def answer_holds(text: str, spellings: Sequence[str]) -> bool:
    """Whether `text` holds one of a fact's spellings (case and digit grouping ignored).

    A number is found whole: `4800000` is not in `14800000` nor in `48000000`.
    """
    haystack = _normal(text)
    for spelling in spellings:
        needle = _normal(spelling)
        if not needle:
            continue
        pattern = re.escape(needle)
        if needle[0].isdigit():
            pattern = r"(?<!\d)" + pattern
        if needle[-1].isdigit():
            pattern += r"(?![\d])"
        if re.search(pattern, haystack):
            return True
    return False


def chain_progress(expected: Sequence[ExpectedCall], made: Sequence[MadeCall]) -> int:
    """How many of the chain's calls ran, in order (each after the one before it)."""
    done = 0
    for call in made:
        if done < len(expected) and _fits(expected[done], call):
            done += 1
    return done


def _fits(expected: ExpectedCall, call: MadeCall) -> bool:
    return call.name == expected.name and check_arguments(expected, call.arguments) is None


def score_agent(case: EvalCase, outcome: PipelineOutcome) -> Verdict:
    """Put one run of a multi-step task into its class (the module docstring's order)."""
    assert case.agent is not None, "score_agent needs a multi-step task"
    chain = case.expected
    if outcome.hard_error is not None:
        return Verdict(
            "hard_fail",
            outcome.hard_error,
            outcome.hard_error,
            field=outcome.hard_field,
            tool=outcome.hard_tool or _next_tool(chain, outcome.calls),
        )
    done = chain_progress(chain, outcome.calls)
    if done < len(chain):
        return _chain_break(chain, done, outcome.calls)
    text = (outcome.content or "").strip()
    if not text:
        return Verdict("wrong_answer", "no text answer", tool=chain[-1].name)
    for spellings in case.agent.answer:
        if not answer_holds(text, spellings):
            return Verdict(
                "wrong_answer",
                "the answer lacks a fact",
                f"wanted {spellings[0]!r} in {text[:160]!r}",
                tool=chain[-1].name,
            )
    return Verdict("pass")


def _next_tool(chain: Sequence[ExpectedCall], made: Sequence[MadeCall]) -> str | None:
    done = chain_progress(chain, made)
    return chain[done].name if done < len(chain) else (chain[-1].name if chain else None)


def _chain_break(chain: Sequence[ExpectedCall], done: int, made: Sequence[MadeCall]) -> Verdict:
    wanted = chain[done]
    ran = [call.name for call in made]
    tried = [call for call in made if call.name == wanted.name]
    if not tried:
        return Verdict(
            "missed_call",
            f"{wanted.name} never ran",
            f"step {done + 1} of the chain; calls that ran: {ran}",
            tool=wanted.name,
        )
    mismatches = [check_arguments(wanted, call.arguments) for call in tried]
    problem: Mismatch | None = next((m for m in mismatches if m is not None), None)
    if problem is None:
        return Verdict(
            "wrong_tool",
            f"{wanted.name} ran before the call it depends on",
            f"calls that ran: {ran}",
            tool=wanted.name,
        )
    return Verdict(
        "wrong_args",
        problem.message,
        problem.detail,
        field=problem.field,
        tool=wanted.name,
    )
