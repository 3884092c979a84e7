"""Small models' answers, replayed through `client.call(recover=True)`: read right, or rejected.

`tests/unit/parsing/data/small_model_replays.jsonl` holds answers written by hand in the
styles open 1-9B models use for BFCL-like questions (xLAM's JSON envelope and list, GLM-4's
name line, bare Python calls, Markdown fences, Python dicts in a Hermes call, dotted tool
names, calls after a line of text, and the formats read before as controls), each with what
the model meant: the calls, or, for a wrong answer, the problem validation must report.
The tools are `small_model_tools.json` (OpenAI function definitions).

Each answer is the content of a server without a tool parser, under the model id it is
written in the style of, with `max_retries=0`. A right answer passes when the first attempt
validates exactly the expected calls; a wrong one when no call is validated and the
attempt's problems are exactly the expected kind (nothing could run).

    python benchmarks/replays.py [--failures]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_sdk import ToolCallClient, ToolCallFailed
from toolcall_sdk.testing import ScriptedModel, text

DATA = Path(__file__).resolve().parent.parent / "tests" / "unit" / "parsing" / "data"
REPLAYS = DATA / "small_model_replays.jsonl"
TOOLS = DATA / "small_model_tools.json"

ClientFactory = Callable[..., Any]


@dataclass(frozen=True)
class Replay:
    """One recorded-style answer and what the model meant by it."""

    id: str
    style: str
    model: str
    tools: tuple[str, ...]
    question: str
    answer: str
    calls: tuple[tuple[str, dict[str, Any]], ...] | None  # None: a wrong answer
    kind: str | None  # the problem a wrong answer must get


@dataclass(frozen=True)
class Outcome:
    replay: Replay
    passed: bool
    got: str
    rejected: bool  # no call was validated: nothing could have run


def load_replays() -> list[Replay]:
    """The corpus, in file order."""
    replays = []
    for line in REPLAYS.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        calls = entry.get("calls")
        replays.append(
            Replay(
                id=entry["id"],
                style=entry["style"],
                model=entry["model"],
                tools=tuple(entry["tools"]),
                question=entry["question"],
                answer=entry["answer"],
                calls=tuple((c["name"], c["arguments"]) for c in calls) if calls else None,
                kind=entry.get("kind"),
            )
        )
    return replays


def load_tools() -> dict[str, dict[str, Any]]:
    """The tool definitions by name."""
    tools: list[dict[str, Any]] = json.loads(TOOLS.read_text(encoding="utf-8"))
    return {tool["function"]["name"]: tool for tool in tools}


def default_client(model: ScriptedModel, tools: list[Any], *, model_id: str) -> ToolCallClient:
    return ToolCallClient(
        base_url=model.base_url,
        model=model_id,
        tools=tools,
        http_client=model.http_client(),
        router="always",
        max_retries=0,
        recover=True,
    )


def replay(
    case: Replay, tools: dict[str, dict[str, Any]], make_client: ClientFactory = default_client
) -> Outcome:
    """Send `case.answer` as the scripted server's text answer and judge the result."""
    model = ScriptedModel([text(case.answer)])
    client = make_client(model, [tools[name] for name in case.tools], model_id=case.model)
    try:
        result = client.call(case.question)
    except ToolCallFailed as failed:
        kinds = failed.attempts[0].error_kinds if failed.attempts else []
        got = f"rejected: {', '.join(kinds)}"
        return Outcome(case, case.calls is None and kinds == [case.kind], got, rejected=True)
    finally:
        client.close()
    made = tuple(
        (call.name, call.arguments.model_dump(mode="json", exclude_unset=True))
        for call in result.calls
    )
    got = "; ".join(f"{name}({json.dumps(args)})" for name, args in made)
    passed = case.calls is not None and made == case.calls
    return Outcome(case, passed, f"calls: {got}", rejected=False)


def run_all(make_client: ClientFactory = default_client) -> list[Outcome]:
    tools = load_tools()
    return [replay(case, tools, make_client) for case in load_replays()]


def table(outcomes: Iterable[Outcome]) -> str:
    """Right answers read, and wrong answers rejected (at all, and with the right problem),
    by style."""
    counts: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        for style in (outcome.replay.style, "all"):
            count = counts.setdefault(style, Counter())
            if outcome.replay.calls is not None:
                count["right"] += 1
                count["read"] += outcome.passed
            else:
                count["wrong"] += 1
                count["rejected"] += outcome.rejected
                count["kind"] += outcome.passed
    counts["all"] = counts.pop("all")  # last
    lines = [
        "| style | right answers read | wrong answers rejected | with the expected problem |",
        "|---|---|---|---|",
    ]
    for style, c in counts.items():
        lines.append(
            f"| {style} | {c['read']}/{c['right']} | {c['rejected']}/{c['wrong']} "
            f"| {c['kind']}/{c['wrong']} |"
        )
    total = counts["all"]["right"] + counts["all"]["wrong"]
    passed = counts["all"]["read"] + counts["all"]["kind"]
    lines.append(f"\npass: {passed}/{total} ({100 * passed / total:.1f}%)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--failures", action="store_true", help="list the cases that fail")
    args = parser.parse_args(argv)
    outcomes = run_all()
    print(table(outcomes))
    if args.failures:
        for outcome in outcomes:
            if not outcome.passed:
                print(f"FAIL {outcome.replay.id}: {outcome.got}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
