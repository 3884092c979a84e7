"""`toolcall_sdk.parsing` against canitoolcall's conformance corpus, judged by its own checks.

canitoolcall (PyPI, Apache-2.0, a dev dependency) ships recorded model outputs of nine
tool-call families, each with the parse a correct engine must return, and the checks that
judge an engine (`canitoolcall.checks.run_checks`: expected match, graceful errors,
stream == non-stream, split invariance, no marker leakage, JSON arguments, schema, parallel
order). Here the SDK's parsers are the engine:

- The reasoning is split off first (`ReasoningSplitter`); the prompt's end (the fixture's
  generation prompt, else the family's) says whether the text starts inside a block.
- The content is read by `parse` (whole) and by a `StreamParser` fed the text cut by
  canitoolcall's own chunking strategies. This parser reads characters, so its units are
  characters: `token` feeds one character per delta and `rand:<seed>:8` groups of 1 to 8,
  cut anywhere, special-token text included (stricter than any real server's token cuts).
- A streamed call counts when its `CallFinished` arrives; content and reasoning are the
  joined `TextDelta`s and reasoning pieces.
- The format is chosen two ways: `auto` (detection, `parse(text, "auto")`) and `model`
  (the SDK's model-id table, `format_for(model_id)`, falling back to detection) — the
  choice the client makes.

A case's status is `canitoolcall.checks.case_status` over every row: every strategy here
counts.

    python benchmarks/conformance.py [--mode auto|model|both] [--family SLUG] [--failures]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from canitoolcall import checks
from canitoolcall.adapters.base import ReplayInput
from canitoolcall.chunking import ChunkStrategy, split_text
from canitoolcall.fixtures import Family, Fixture, load_families, load_fixtures
from canitoolcall.results import CheckResult, Observation, ParsedToolCall, Status
from canitoolcall.results import ParseResult as Parse

from toolcall_sdk.parsing import (
    CallFinished,
    ReasoningDelta,
    ReasoningSplitter,
    StreamParser,
    TextDelta,
    format_for,
    parse,
    split_reasoning,
)

MODES = ("auto", "model")
STRATEGIES: tuple[ChunkStrategy, ...] = (
    ChunkStrategy("one"),
    ChunkStrategy("token"),
    *(ChunkStrategy("rand", seed=seed, max_group=8) for seed in range(1, 6)),
)
REASONING_OPENERS = ("<think>", "[THINK]", "<|channel>thought", "<|open|>think<|sep|>")
REASONING_CLOSERS = ("</think>", "[/THINK]", "<channel|>", "<|close|>think<|sep|>")
# canitoolcall's published run of vLLM 0.30.0's own parsers over the same 469 fixtures.
VLLM_PUBLISHED = (354, 469)


@dataclass(frozen=True)
class Case:
    """One fixture judged in one mode."""

    fixture: Fixture
    mode: str
    status: Status
    rows: tuple[CheckResult, ...]


def schemas_of(fixture: Fixture) -> dict[str, Mapping[str, Any]]:
    """Each offered tool's parameters schema, by name."""
    out: dict[str, Mapping[str, Any]] = {}
    for tool in fixture.tools:
        function = tool.get("function", tool)
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            out[function["name"]] = function.get("parameters") or {}
    return out


def starts_in_reasoning(generation_prompt: str | None) -> bool:
    """Whether a prompt ends inside a reasoning block (`...<think>\\n`): its last opening
    marker comes after its last closing one."""
    prompt = generation_prompt or ""
    opened = max(prompt.rfind(marker) for marker in REASONING_OPENERS)
    closed = max(prompt.rfind(marker) for marker in REASONING_CLOSERS)
    return opened > closed


def format_choice(fixture: Fixture, mode: str) -> str:
    """The format the SDK reads this fixture in: detected, or the model id's."""
    if mode == "auto":
        return "auto"
    return format_for(fixture.reference_model) or "auto"


def _result(content: str, reasoning: str, calls: Iterable[tuple[str, str]]) -> Parse:
    return Parse(
        content=content or None,
        reasoning_content=reasoning or None,
        tool_calls=tuple(ParsedToolCall(name, arguments) for name, arguments in calls),
    )


def parse_whole(text: str, fmt: str, *, open: bool, schemas: Mapping[str, Any]) -> Parse:
    """The SDK's non-streaming reading of one output."""
    try:
        reasoning, content = split_reasoning(text, open=open)
        found = parse(content, fmt, schemas=schemas)
    except Exception as exc:  # a parser bug: canitoolcall judges it as a parse outcome
        return Parse(exception=f"{type(exc).__name__}: {exc}")
    return _result(
        found.text, reasoning + found.reasoning, ((c.name, c.arguments) for c in found.calls)
    )


def parse_stream(
    deltas: Sequence[str], fmt: str, *, open: bool, schemas: Mapping[str, Any]
) -> Parse:
    """The SDK's streaming reading of one output, fed `deltas` in order."""
    splitter = ReasoningSplitter(open=open)
    parser = StreamParser(fmt, schemas=schemas)
    reasoning: list[str] = []
    content: list[str] = []
    calls: dict[int, tuple[str, str]] = {}
    try:
        for delta in [*deltas, None]:
            thought, text = splitter.feed(delta) if delta is not None else splitter.close()
            reasoning.append(thought)
            events = (
                parser.feed(text) if delta is not None else [*parser.feed(text), *parser.close()]
            )
            for event in events:
                if isinstance(event, TextDelta):
                    content.append(event.text)
                elif isinstance(event, ReasoningDelta):
                    reasoning.append(event.text)
                elif isinstance(event, CallFinished):
                    calls[event.index] = (event.call.name, event.call.arguments)
    except Exception as exc:
        return Parse(exception=f"{type(exc).__name__}: {exc}")
    return _result("".join(content), "".join(reasoning), (calls[i] for i in sorted(calls)))


def observe(fixture: Fixture, family: Family | None, mode: str) -> Observation:
    """Every parse of one fixture: whole, then one per chunking strategy."""
    replay = ReplayInput.from_fixture(fixture, family)
    fmt = format_choice(fixture, mode)
    opened = starts_in_reasoning(replay.generation_prompt)
    schemas = schemas_of(fixture)
    streams = {
        strategy.id: parse_stream(
            split_text(fixture.raw_output, strategy), fmt, open=opened, schemas=schemas
        )
        for strategy in STRATEGIES
    }
    whole = parse_whole(fixture.raw_output, fmt, open=opened, schemas=schemas)
    return Observation(nonstream=whole, streams=streams)


def judge(fixture: Fixture, family: Family | None, mode: str) -> Case:
    """Replay one fixture and apply canitoolcall's checks."""
    rows = tuple(checks.run_checks(fixture, family, observe(fixture, family, mode)))
    return Case(fixture, mode, checks.case_status(rows), rows)


def run(mode: str, families: Sequence[str] | None = None) -> list[Case]:
    """Judge every fixture (of `families`, or all) in one mode."""
    known = load_families()
    return [judge(f, known.get(f.family), mode) for f in load_fixtures(families=families)]


def table(cases_by_mode: Mapping[str, Sequence[Case]]) -> str:
    """A Markdown table: per family, pass + soft pass out of all, for each mode."""
    modes = list(cases_by_mode)
    families = sorted({c.fixture.family for cases in cases_by_mode.values() for c in cases})
    header = "| family | fixtures | " + " | ".join(f"{m}: pass + soft (fail)" for m in modes) + " |"
    lines = [header, "|---|---|" + "---|" * len(modes)]
    totals: dict[str, Counter[Status]] = {m: Counter() for m in modes}
    count = 0
    for family in [*families, None]:
        cells = []
        n = 0
        for mode in modes:
            if family is None:
                tally = totals[mode]
            else:
                tally = Counter(c.status for c in cases_by_mode[mode] if c.fixture.family == family)
                totals[mode].update(tally)
            n = sum(tally.values())
            good = tally[Status.PASS] + tally[Status.SOFT_PASS]
            cells.append(
                f"{good} ({tally[Status.PASS]} + {tally[Status.SOFT_PASS]}) "
                f"{100 * good / n:.1f}% ({n - good})"
            )
        if family is not None:
            count += n
        lines.append(f"| {family or '**all**'} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def failures(cases: Iterable[Case]) -> str:
    """The failing checks of each failing case, one block per fixture."""
    out = []
    for case in cases:
        if case.status in (Status.PASS, Status.SOFT_PASS):
            continue
        out.append(f"{case.fixture.id} [{case.mode}]: {case.status.value}")
        seen = set()
        for row in case.rows:
            if row.status in (Status.FAIL, Status.ERROR) and (row.check, row.detail) not in seen:
                seen.add((row.check, row.detail))
                out.append(f"    {row.check} {row.strategy}: {row.detail}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=[*MODES, "both"], default="both")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--failures", action="store_true", help="list failing checks")
    args = parser.parse_args(argv)
    modes = MODES if args.mode == "both" else (args.mode,)
    cases = {mode: run(mode, args.family) for mode in modes}
    print(table(cases))
    print(
        f"\nvLLM 0.30.0's own parsers (canitoolcall's published run): {VLLM_PUBLISHED[0]}"
        f"/{VLLM_PUBLISHED[1]} pass + soft pass"
    )
    if args.failures:
        for mode in modes:
            print()
            print(failures(cases[mode]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
