"""What the call-intent rule (`toolcall_sdk._call_intent`) costs recovery, on recorded answers.

Recovery reads calls a server left in the text; the rule keeps a call from running when it
is only shown, asked about, refused, postponed or drafted in reasoning. This replays three
corpora through `recover_calls` with the rule off (every call read, as before) and on, in
the same run, and counts the answers whose calls are read:

- canitoolcall's conformance corpus (469 recorded outputs of nine families, a dev
  dependency): each fixture's raw output as the content of an answer with no `tool_calls`,
  under its model id. An answer the rule turns to text that the corpus expects calls of is
  a loss; one it expects no calls of was a call that should never have run.
- tests/unit/parsing/data/small_model_replays.jsonl: the small-model styles (44 answers
  with calls).
- tests/unit/parsing/data/call_intent.jsonl: answers written for the rule: calls shown,
  asked about, refused, postponed, drafted (must stay text), and calls that are the answer
  (must run).
- `--live FILE`: real answers of the demo model, recorded by `--record FILE --base-url URL`
  from a server that leaves the calls in the text (vLLM's `hermes` parser in front of
  Qwen2.5-Coder, which writes fenced JSON): each invoices case's conversation under
  `tool_choice="auto"`, temperature 0, as a new user's client sends it. A case whose
  expected calls the recorded answer holds, read before and not now, is a loss.

    python benchmarks/recovery_intent.py [--list] [--live FILE]
    python benchmarks/recovery_intent.py --record FILE --base-url URL --model NAME [--cases N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_sdk._call_intent import prose_withholds_call
from toolcall_sdk._recovery import recover_calls
from toolcall_sdk.parsing import parse_with_reasoning
from toolcall_sdk.parsing.reasoning import outside_reasoning

DATA = Path(__file__).resolve().parents[1] / "tests" / "unit" / "parsing" / "data"


@dataclass(frozen=True)
class Answer:
    """One recorded answer and what it should give."""

    corpus: str
    id: str
    message: dict[str, Any]
    hint: str | None
    tools: dict[str, Mapping[str, Any]] | None
    wants_calls: bool


def conformance() -> list[Answer]:
    from canitoolcall.fixtures import load_fixtures

    answers = []
    for fixture in load_fixtures():
        tools = {}
        for tool in fixture.tools:
            function = tool.get("function", tool)
            tools[function["name"]] = function.get("parameters") or {"type": "object"}
        answers.append(
            Answer(
                "conformance",
                fixture.id,
                {"role": "assistant", "content": fixture.raw_output},
                fixture.models[0] if fixture.models else None,
                tools or None,
                bool(fixture.expected.tool_calls) if fixture.expected else False,
            )
        )
    return answers


def replays() -> list[Answer]:
    tools = json.loads((DATA / "small_model_tools.json").read_text())
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    answers = []
    for line in (DATA / "small_model_replays.jsonl").read_text().splitlines():
        case = json.loads(line)
        offered = {name: schemas[name] for name in case["tools"]}
        answers.append(
            Answer(
                "replays",
                case["id"],
                {"role": "assistant", "content": case["answer"]},
                case.get("model"),
                offered,
                case["expect"] == "calls",
            )
        )
    return answers


def intent_set() -> list[Answer]:
    schema = {"type": "object", "properties": {"order_id": {"type": "string"}}}
    answers = []
    for line in (DATA / "call_intent.jsonl").read_text().splitlines():
        case = json.loads(line)
        message = {"role": "assistant", "content": case["content"]}
        if "reasoning_content" in case:
            message["reasoning_content"] = case["reasoning_content"]
        answers.append(
            Answer("intent", case["id"], message, None, {"cancel_order": schema}, case["runs"])
        )
    return answers


def record(path: Path, base_url: str, model: str, limit: int) -> None:
    """Ask a live server each invoices case (auto, temperature 0) and write the answers."""
    import httpx2

    from toolcall_sdk.evals._cases import load_cases

    root = Path(__file__).resolve().parents[1]
    cases = load_cases(root / "evals" / "invoices.jsonl", allow_code=True)[:limit]
    with httpx2.Client(base_url=base_url, timeout=900) as http, path.open("w") as out:
        for index, case in enumerate(cases, 1):
            tools = [tool.openai_schema() for tool in case.tools]
            body = {
                "model": model,
                "messages": list(case.messages),
                "tools": tools,
                "tool_choice": "auto",
                "temperature": 0,
                "max_tokens": 256,
            }
            started = time.monotonic()
            reply = http.post("/chat/completions", json=body).json()
            message = reply["choices"][0]["message"]
            entry = {
                "id": case.id,
                "message": {k: v for k, v in message.items() if v is not None},
                "tools": {t["function"]["name"]: t["function"]["parameters"] for t in tools},
                "wants_calls": bool(case.expected),
            }
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{index}/{len(cases)} {case.id} {time.monotonic() - started:.1f} s", flush=True)


def live(path: Path, model: str | None) -> list[Answer]:
    answers = []
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        answers.append(
            Answer(
                "live",
                entry["id"],
                entry["message"],
                model,
                entry["tools"],
                entry["wants_calls"],
            )
        )
    return answers


def reads(answer: Answer, *, judge: bool) -> bool:
    found = recover_calls(
        answer.message, hint=answer.hint, attempt=1, tools=answer.tools, judge=judge
    )
    return found is not None


def why(answer: Answer) -> str:
    content = answer.message.get("content") or ""
    found = parse_with_reasoning(content, None, answer.hint, tools=answer.tools, answer_only=True)
    if not found.calls:
        return "calls in reasoning only"
    return prose_withholds_call(outside_reasoning(found.text)) or "?"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list each answer the rule changes")
    parser.add_argument("--live", type=Path, help="answers recorded with --record")
    parser.add_argument("--record", type=Path, help="record live answers to this file")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default="Qwen/Qwen2.5-Coder-0.5B-Instruct")
    parser.add_argument("--cases", type=int, default=25, help="invoices cases to record")
    args = parser.parse_args(argv)
    if args.record is not None:
        record(args.record, args.base_url, args.model, args.cases)
        return 0
    corpora = {"conformance": conformance(), "replays": replays(), "intent": intent_set()}
    if args.live is not None:
        corpora["live"] = live(args.live, args.model)
    print("| corpus | answers | expect calls | read before | read now | lost | stopped |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    changed: list[tuple[Answer, str]] = []
    for name, answers in corpora.items():
        before = [a for a in answers if reads(a, judge=False)]
        now = [a for a in answers if reads(a, judge=True)]
        lost = [a for a in before if a not in now and a.wants_calls]
        stopped = [a for a in before if a not in now and not a.wants_calls]
        expect = sum(a.wants_calls for a in answers)
        print(
            f"| {name} | {len(answers)} | {expect} | {len(before)} | {len(now)} | "
            f"{len(lost)} | {len(stopped)} |"
        )
        changed += [(a, "lost") for a in lost] + [(a, "stopped") for a in stopped]
    print(
        "\nlost: the corpus expects calls the rule now leaves as text; stopped: calls read "
        "before from an answer that should run none"
    )
    if args.list:
        for answer, kind in changed:
            print(f"- {kind} {answer.corpus}/{answer.id}: {why(answer)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
