"""Does the model write the next call when its answer is continued with one? A probe, on a
live vLLM server, of the route to "several calls asked, one written".

Both demo models answer BFCL `parallel` ("stage 7 on easy and stage 3 on hard") with one
call where two to eight are asked. This probe takes each case's plain `auto` answer (the
tools offered, temperature 0) and, where it holds exactly one call, sends the conversation
back with that call written in the model's own form (a fenced, 2-space indented call object)
followed by the opening of another call of the same tool, asking vLLM to continue the last
assistant message (`continue_final_message`). The arguments the model writes there are the
second call. Per source it counts:

- `one call`: first answers with exactly one call (the probe's cases);
- `first right`: that call matches one of the expected calls;
- `second right`: the second call matches an expected call the first did not;
- `repeat`: the second call has the first call's arguments (a stop signal, harmless once
  dropped);
- `other`: any other second call (for single-call sources: a call that would be extra),
  or none the probe could read.

Matching is the case's `accept` lists (`""`: may be left out), with tool names as the SDK
offers them. Nothing here runs the SDK's pipeline: it measures what the model does, so that
a lever built on it can be judged before it is built.

    python benchmarks/next_call_probe.py --base-url URL --model NAME [--per-source 12]
        [--sources parallel,simple_python,multiple]

Needs `pip install --no-deps bfcl-eval==2026.3.23` for the BFCL cases.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # `python benchmarks/next_call_probe.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openai

from benchmarks._lever import lever_parser, sourced_cases
from toolcall_sdk._next_calls import continuation, continued_calls
from toolcall_sdk.evals._cases import EvalCase, ExpectedCall

SOURCES = ("parallel", "simple_python", "multiple")
FORMAT = "qwen25_coder"  # the demo models' fenced call objects


def _matches(name: str, arguments: Mapping[str, Any], expected: ExpectedCall) -> bool:
    if name.replace(".", "_") != expected.name.replace(".", "_"):
        return False
    for key, accepted in expected.accept.items():
        if key not in arguments:
            if "" not in accepted:
                return False
        elif arguments[key] not in accepted:
            return False
    return all(key in expected.accept for key in arguments)


def probe(client: openai.OpenAI, model: str, case: EvalCase) -> dict[str, Any]:
    """One case: the first answer's calls and, with one call, the continued second call."""
    tools = [tool.openai_schema(strict=False) for tool in case.tools]
    messages = [dict(m) for m in case.messages]
    first = client.chat.completions.create(
        model=model, messages=messages, tools=tools, temperature=0, max_tokens=256
    )
    calls = first.choices[0].message.tool_calls or []
    record: dict[str, Any] = {"id": case.id, "calls": len(calls)}
    if len(calls) != 1:
        return record
    name = calls[0].function.name
    try:
        arguments = json.loads(calls[0].function.arguments or "{}")
    except ValueError:
        return record
    record["first_right"] = any(_matches(name, arguments, e) for e in case.expected)
    continued = client.chat.completions.create(
        model=model,
        messages=[
            *messages,
            {"role": "assistant", "content": continuation(FORMAT, [(name, arguments)], name)},
        ],
        tools=tools,
        tool_choice="none",
        temperature=0,
        max_tokens=200,
        stop=["\n}"],
        extra_body={"continue_final_message": True, "add_generation_prompt": False},
    )
    record["text"] = continued.choices[0].message.content or ""
    written = continued_calls(FORMAT, name, record["text"] + "\n}")
    if not written:  # cut off, or not an arguments object (`"arguments": 15, "units": ...`)
        record["second"] = "unreadable"
        return record
    second = written[0]
    if second == arguments:
        record["second"] = "repeat"
    elif any(_matches(name, second, e) and not _matches(name, arguments, e) for e in case.expected):
        record["second"] = "right"
    else:
        record["second"] = "other"
    return record


def main(argv: Sequence[str] | None = None) -> int:
    parser = lever_parser(__doc__, SOURCES, per_source=12, concurrency=3, timeout=900.0)
    args = parser.parse_args(argv)
    cases, by_source = sourced_cases(args.sources.split(","), args.per_source)
    client = openai.OpenAI(base_url=args.base_url, api_key="none", timeout=args.timeout)
    with ThreadPoolExecutor(args.concurrency) as pool:
        records = list(pool.map(lambda case: probe(client, args.model, case), cases))
    print("| source | cases | one call | first right | second right | repeat | other |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for source, ids in by_source.items():
        rows = [r for r in records if r["id"] in ids]
        one = [r for r in rows if r["calls"] == 1]
        counts = {k: sum(1 for r in one if r.get("second") == k) for k in ("right", "repeat")}
        other = len(one) - counts["right"] - counts["repeat"]
        first_right = sum(1 for r in one if r.get("first_right"))
        print(
            f"| {source} | {len(rows)} | {len(one)} | {first_right} | {counts['right']} "
            f"| {counts['repeat']} | {other} |"
        )
    if args.out:
        args.out.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
