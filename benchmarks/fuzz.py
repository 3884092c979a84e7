"""Fuzzing: the code that reads model output, fed adversarial input with hypothesis.

    python benchmarks/fuzz.py [--inputs 100000] [--seed 0] [--time-limit 2]

Six targets share the inputs (`SHARES`):

- `parse`: `parse(text, fmt)` for every format of `FORMATS` and `"auto"`, `parse_any`,
  `split_reasoning`, `parse_with_reasoning` and `detect_format`;
- `stream`: `StreamParser(fmt)` and `ReasoningSplitter` fed the text cut at random points
  (a disagreement with `parse` of the whole text is counted, apart from crashes);
- `repair`: `repair_arguments`, `close_truncated_json`, `unwrap_json_string` and
  `coerce_scalars` against the parameter schemas of real tools;
- `validation`: `check_answer` on assistant messages whose calls name real, unknown and
  absurd tools with hostile argument text or values; every problem it returns goes through
  `feedback_text`, whose length is checked against the bounds of `_limits`;
- `wire`: what a server may send instead of a chat completion (mutated bodies and event
  streams of `ScriptedModel` replies, completions with any JSON in one field, any JSON,
  any bytes), answered to `ToolCallClient.call()` (streamed or not) by an in-process
  `ScriptedModel`: reading, recovery, validation and feedback, as a user's call runs them;
- `feedback`: `feedback_text` and the other feedback builders on hostile problems.

The inputs (`benchmarks/_fuzz_inputs.py`): random text (surrogates included), the 469
recorded outputs of canitoolcall's corpus and the bodies `ScriptedModel` sends, mutated (cut,
cut from the front, a slice deleted or duplicated, two spliced, hostile pieces inserted), and
hostile pieces alone: nesting thousands deep, numbers of thousands of digits, `NaN`/`1e400`,
lone surrogates, NUL bytes, the tags of every format.

An *untyped exception* is one a target does not document: the parsers, repairs and feedback
raise nothing; `check_answer` raises only `ToolValidatorError` (a tool's bug, here on
purpose); the client raises only `ToolCallError`s. A *hang* is an input that uses more
than `--time-limit` seconds of CPU (a timer interrupts it; CPU time, so that a loaded
machine does not turn a slow input into a hang). `tests/unit/parsing/test_fuzz.py` runs the
same targets for a few hundred inputs and fails on either.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any, Final

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

if __name__ == "__main__":  # `python benchmarks/fuzz.py`: put the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._fuzz_inputs import (
    json_values,
    messages,
    problems,
    schemas,
    texts,
    tools,
    wire_bodies,
)
from toolcall_sdk import RetryPolicy, ToolCallClient, ToolCallError, ToolValidatorError
from toolcall_sdk._feedback import (
    denied_text,
    feedback_text,
    no_tool_call_text,
    repeated_call_text,
)
from toolcall_sdk._limits import (
    MAX_FEEDBACK_FIELDS,
    MAX_QUOTED_MESSAGE_CHARS,
    MAX_QUOTED_NAME_CHARS,
    MAX_QUOTED_VALUE_CHARS,
)
from toolcall_sdk._results import Problem
from toolcall_sdk._validation import check_answer
from toolcall_sdk.parsing import (
    FORMATS,
    CallFinished,
    ParseResult,
    ReasoningSplitter,
    StreamParser,
    TextDelta,
    close_truncated_json,
    coerce_scalars,
    detect_format,
    parse,
    parse_any,
    parse_with_reasoning,
    repair_arguments,
    split_reasoning,
    unwrap_json_string,
)
from toolcall_sdk.testing import ScriptedModel, malformed

TARGETS: Final = ("parse", "stream", "repair", "validation", "wire", "feedback")
SHARES: Final = {
    "parse": 0.25,
    "stream": 0.25,
    "repair": 0.15,
    "validation": 0.15,
    "wire": 0.10,
    "feedback": 0.10,
}
# The longest feedback text the bounds of `_limits` allow (quoted names, messages, values
# and the first MAX_FEEDBACK_FIELDS field errors), with room for the fixed wording.
MAX_FEEDBACK_CHARS: Final = (
    MAX_FEEDBACK_FIELDS
    * (MAX_QUOTED_NAME_CHARS + MAX_QUOTED_MESSAGE_CHARS + MAX_QUOTED_VALUE_CHARS + 20)
    + 2 * (MAX_QUOTED_NAME_CHARS + MAX_QUOTED_MESSAGE_CHARS)
    + 2000
)


# -- the targets ---------------------------------------------------------------------------


@dataclass
class Findings:
    """What one target's inputs did; `untyped` and `hangs` must stay 0."""

    inputs: int = 0
    typed: Counter[str] = field(default_factory=Counter)
    untyped: int = 0
    hangs: int = 0
    disagreements: int = 0
    oversized_feedback: int = 0
    longest_feedback: int = 0
    slowest_s: float = 0.0
    slowest: str = ""
    examples: list[str] = field(default_factory=list)

    def note(self, kind: str, case: Any, detail: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {detail} <- {_shown(case)}")


def _shown(value: Any) -> str:
    try:
        return ascii(value)[:300]
    except ValueError:  # an integer too long to print
        return f"<{type(value).__name__} holding a huge integer>"


def _feedback_checked(problem: Problem, findings: Findings) -> None:
    for content in (feedback_text(problem, sorted(tools())),):
        findings.longest_feedback = max(findings.longest_feedback, len(content))
        if len(content) > MAX_FEEDBACK_CHARS:
            findings.oversized_feedback += 1
            findings.note("oversized feedback", problem, f"{len(content)} characters")


def check_parse(case: tuple[str, str | None, bool], findings: Findings) -> None:
    content, reasoning, opened = case
    for fmt in (*FORMATS, "auto"):
        parse(content, fmt, schemas=schemas())
    parse_any(content)
    detect_format(content)
    split_reasoning(content, open=opened)
    parse_with_reasoning(content, reasoning, None, schemas=schemas())


def check_stream(case: tuple[str, str, list[int]], findings: Findings) -> None:
    content, fmt, cuts = case
    parser = StreamParser(fmt, schemas=schemas())
    splitter = ReasoningSplitter()
    pieces = [content[a:b] for a, b in zip([0, *cuts], [*cuts, len(content)], strict=True)]
    streamed_text: list[str] = []
    calls = []
    for piece in pieces:
        splitter.feed(piece)
        for event in parser.feed(piece):
            if isinstance(event, TextDelta):
                streamed_text.append(event.text)
            elif isinstance(event, CallFinished):
                calls.append((event.call.name, event.call.arguments))
    splitter.close()
    for event in parser.close():
        if isinstance(event, TextDelta):
            streamed_text.append(event.text)
        elif isinstance(event, CallFinished):
            calls.append((event.call.name, event.call.arguments))
    whole: ParseResult = parse(content, fmt, schemas=schemas())
    if [(c.name, c.arguments) for c in whole.calls] != calls or whole.text != "".join(
        streamed_text
    ):
        findings.disagreements += 1
        findings.note("stream/whole disagreement", case, fmt)


def check_repair(case: tuple[str, Any, str, str | None], findings: Findings) -> None:
    arguments, value, name, finish_reason = case
    schema = schemas()[name]
    repair_arguments(arguments, schema, finish_reason=finish_reason)
    close_truncated_json(arguments, finish_reason)
    unwrap_json_string(arguments)
    coerce_scalars(value, schema)


def check_validation(case: tuple[dict[str, Any], str | None], findings: Findings) -> None:
    message, finish_reason = case
    _validated(message, finish_reason, findings)


def _validated(message: dict[str, Any], finish_reason: str | None, findings: Findings) -> None:
    offered = tools()
    _, problems = check_answer(
        message, offered, schemas=schemas(), finish_reason=finish_reason, repairs=[]
    )
    for problem in problems:
        _feedback_checked(problem, findings)


class _WireClient:
    """A client whose scripted server sends, for every request, the body under test."""

    def __init__(self) -> None:
        self.body = b""
        self.model = ScriptedModel(lambda request: malformed(self.body))
        self.client = ToolCallClient(
            base_url=self.model.base_url,
            model="fuzz",
            tools=list(tools().values()),
            router="always",
            http_client=self.model.http_client(),
            retry=RetryPolicy(attempts=1),
            max_retries=0,
        )


@cache
def _wire_client() -> _WireClient:
    return _WireClient()


def check_wire(case: tuple[bytes, bool], findings: Findings) -> None:
    body, streamed = case
    wire = _wire_client()
    wire.body = body
    result = wire.client.call("fuzz", stream=streamed)
    for attempt in result.attempts:
        for problem in attempt.problems:
            _feedback_checked(problem, findings)


def check_feedback(case: tuple[Problem, str], findings: Findings) -> None:
    problem, name = case
    _feedback_checked(problem, findings)
    no_tool_call_text([name, *sorted(tools())])
    repeated_call_text(name, problem.raw_arguments or "{}", 2, problem.message)
    denied_text(name)


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any, Findings], None]
    typed: tuple[type[BaseException], ...] = ()


def targets() -> dict[str, Target]:
    names = st.sampled_from(sorted(tools()))
    finish = st.sampled_from([None, "stop", "length", "tool_calls"])
    cuts = st.lists(st.integers(0, 400), max_size=12).map(sorted)
    formats = st.sampled_from([*FORMATS, "auto"])

    @st.composite
    def stream_case(draw: st.DrawFn) -> tuple[str, str, list[int]]:
        content = draw(texts())
        points = [p for p in draw(cuts) if p <= len(content)]
        return content, draw(formats), points

    return {
        "parse": Target(
            "parse", st.tuples(texts(), st.none() | texts(), st.booleans()), check_parse
        ),
        "stream": Target("stream", stream_case(), check_stream),
        "repair": Target("repair", st.tuples(texts(), json_values(), names, finish), check_repair),
        "validation": Target(
            "validation", st.tuples(messages(), finish), check_validation, (ToolValidatorError,)
        ),
        "wire": Target(
            "wire",
            st.tuples(wire_bodies(False), st.just(False))
            | st.tuples(wire_bodies(True), st.just(True)),
            check_wire,
            (ToolCallError,),
        ),
        "feedback": Target(
            "feedback", st.tuples(problems(), st.text(max_size=100)), check_feedback
        ),
    }


# -- the harness ---------------------------------------------------------------------------


class Hang(BaseException):
    """An input ran past the time limit (a BaseException: no target code catches it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` of CPU time (main thread, POSIX; a no-op
    elsewhere)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang

    previous = signal.signal(signal.SIGPROF, expire)
    # Then again every 0.1 s: an exception raised inside a garbage-collector callback or a
    # `__del__` is printed and dropped, and the input would run on unchecked.
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def fuzz(target: Target, inputs: int, *, seed: int = 0, limit: float = 2.0) -> Findings:
    """Feed `inputs` generated inputs to one target; count what happened."""
    findings = Findings()

    @settings(
        max_examples=inputs,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.seed(seed)
    @given(target.strategy)
    def run(case: Any) -> None:
        findings.inputs += 1
        started = time.process_time()
        hung = False
        try:
            with time_limit(limit):
                target.check(case, findings)
        except Hang:
            hung = True
        except target.typed as exc:
            findings.typed[type(exc).__name__] += 1
        except Exception as exc:
            findings.untyped += 1
            findings.note("untyped", case, f"{type(exc).__name__}: {exc}"[:300])
        elapsed = time.process_time() - started
        if elapsed > findings.slowest_s:
            findings.slowest_s, findings.slowest = elapsed, _shown(case)
        if hung or elapsed > limit:  # the second: a C call the timer could not interrupt
            findings.hangs += 1
            findings.note("hang", case, f"{elapsed:.1f} s")

    run()
    return findings


def render(results: Mapping[str, Findings], elapsed: float) -> str:
    lines = [
        "| target | inputs | typed errors | untyped | hangs | slowest | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, found in results.items():
        typed = ", ".join(f"{k} {v}" for k, v in sorted(found.typed.items())) or "-"
        notes = []
        if name == "stream":
            notes.append(f"{found.disagreements} stream/whole disagreements")
        if found.longest_feedback:
            notes.append(
                f"longest feedback {found.longest_feedback} chars "
                f"({found.oversized_feedback} over {MAX_FEEDBACK_CHARS})"
            )
        lines.append(
            f"| {name} | {found.inputs} | {typed} | {found.untyped} | {found.hangs} | "
            f"{found.slowest_s * 1000:.0f} ms | {'; '.join(notes)} |"
        )
    total = sum(f.inputs for f in results.values())
    lines.append(f"\n{total} inputs in {elapsed:.0f} s")
    for name, found in results.items():
        lines += [f"{name}: {example}" for example in found.examples]
        lines.append(f"{name}: slowest input ({found.slowest_s * 1000:.0f} ms): {found.slowest}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fuzz the parsers, repairs, validation, feedback")
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--targets", nargs="*", default=list(TARGETS), choices=TARGETS)
    args = parser.parse_args(argv)
    sys.set_int_max_str_digits(4300)  # Python's default: the limit the SDK must live with
    started = time.monotonic()
    results: dict[str, Findings] = {}
    for name, target in targets().items():
        if name not in args.targets:
            continue
        share = SHARES[name] / sum(SHARES[t] for t in args.targets)
        results[name] = fuzz(
            target, round(args.inputs * share), seed=args.seed, limit=args.time_limit
        )
        print(f"{name}: {results[name].inputs} inputs", file=sys.stderr, flush=True)
    print(render(results, time.monotonic() - started))
    broken = any(f.untyped or f.hangs or f.oversized_feedback for f in results.values())
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
