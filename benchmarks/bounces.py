"""Right answers replayed through the default pipeline: how many it bounces.

A bounce is a right answer the pipeline does not return as right: it refuses it until the
retries run out, or returns other calls. Each case's right answer is the scripted server's
reply to every request (a retry gets the same answer again), and the case runs through the
ladder's `full` rung, the SDK as users get it, with the ladder's classifier: a bounce is any
verdict but a pass. Requests per answer are reported beside (a request for more calls after
a single one, or a retry whose repeat is then taken, costs without bouncing).

The right answers:

- BFCL's held-out categories (`live_simple`, `live_multiple`, `live_parallel`,
  `live_parallel_multiple`): the ground truth's first acceptable value of each argument
  (an argument whose first acceptable value is "may be left out" is left out), as a
  server's tool parser returns them. Nothing in the pipeline was tuned on these.
- `--cases FILE`: a case file's expected calls, taken the same way (the bundled invoices and
  shop sets: our own domains, an id, an amount or a date in most calls).
- `--recorded CASES RESULTS`: real answers a model wrote, from an eval run's
  `results.jsonl` (the `auto+parser` rung's passes: the model's own calls as the right
  parser read them) with the case file they answer (`bfcl:CATEGORY` for BFCL's). The
  case file's tools are Python: give only files you trust.

Run it at two commits to compare defaults (the same script file, the repository under
test first on the path):

    PYTHONPATH=/path/to/older/checkout python benchmarks/bounces.py --out old.json
    python benchmarks/bounces.py --out new.json --compare old.json

BFCL needs `pip install --no-deps bfcl-eval==2026.3.23`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

# Put this checkout on the path unless PYTHONPATH names the one to measure (another commit).
if __name__ == "__main__" and "PYTHONPATH" not in os.environ:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolcall_sdk.evals._bfcl_cases import bfcl_cases
from toolcall_sdk.evals._cases import EvalCase, load_cases
from toolcall_sdk.evals._runner import load_records, run_eval
from toolcall_sdk.evals._settings import EvalSettings
from toolcall_sdk.testing import ScriptedModel, tool_call, tool_calls

HELD_OUT: Final = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
MODEL: Final = "Qwen/Qwen2.5-Coder-0.5B-Instruct"

Answer = list[tuple[str, dict[str, Any]]]


def ground_truth(case: EvalCase) -> Answer:
    """The first acceptable value of each argument; "" first means the argument is left out."""
    answer: Answer = []
    for call in case.expected:
        arguments = {k: v[0] for k, v in call.accept.items() if v and v[0] != ""}
        answer.append((call.name, arguments))
    return answer


def recorded(cases_file: str, results_file: str) -> list[tuple[EvalCase, Answer]]:
    """The passes of the `auto+parser` rung in `results_file`, with their cases."""
    if cases_file.startswith("bfcl:"):
        loaded = bfcl_cases(cases_file.removeprefix("bfcl:"))
    else:
        loaded = load_cases(cases_file, allow_code=True)
    cases = {c.id: c for c in loaded}
    out = []
    for (case_id, pipeline), record in sorted(load_records(Path(results_file)).items()):
        if pipeline == "auto+parser" and record["verdict"] == "pass" and record["calls"]:
            answer = [(c["name"], c["arguments"]) for c in record["calls"]]
            out.append((cases[case_id], answer))
    return out


def replay(case: EvalCase, answer: Answer, model_id: str) -> dict[str, Any]:
    """Run the `full` rung on `case` with `answer` as every reply; its record."""
    calls = [tool_call(name, arguments) for name, arguments in answer]
    reply = calls[0] if len(calls) == 1 else tool_calls(calls)
    model = ScriptedModel(lambda request: reply)
    settings = EvalSettings(base_url=model.base_url, model=model_id, timeout=30)
    [record] = asyncio.run(
        run_eval([case], settings, pipelines=["full"], transport=model.transport())
    )
    return record


def bounced(record: Mapping[str, Any]) -> bool:
    return bool(record["verdict"] != "pass")


def _row(name: str, answers: int, bounces: int, requests: int) -> str:
    share, per = bounces / max(answers, 1), requests / max(answers, 1)
    return f"| {name} | {answers} | {bounces} | {share:.1%} | {per:.2f} |"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bfcl", default=",".join(HELD_OUT), help="BFCL categories, or ''")
    parser.add_argument("--cases", action="append", default=[], help="a case file (trusted)")
    parser.add_argument(
        "--recorded", nargs=2, action="append", default=[], metavar=("CASES", "RESULTS")
    )
    parser.add_argument("--model", default=MODEL, help="the model id the client is told")
    parser.add_argument("--out", help="write every case's outcome here (JSON)")
    parser.add_argument("--compare", help="an earlier --out file: the cases whose outcome changed")
    args = parser.parse_args(argv)
    sources: dict[str, list[tuple[EvalCase, Answer]]] = {}
    for category in [c.strip() for c in args.bfcl.split(",") if c.strip()]:
        sources[category] = [(c, ground_truth(c)) for c in bfcl_cases(category)]
    for cases_file in args.cases:
        cases = [c for c in load_cases(cases_file, allow_code=True) if c.expected]
        sources[Path(cases_file).stem] = [(c, ground_truth(c)) for c in cases]
    for cases_file, results_file in args.recorded:
        name = f"{Path(results_file).parent.name or results_file} (recorded)"
        sources[name] = recorded(cases_file, results_file)
    outcomes: dict[str, dict[str, Any]] = {}
    print("| source | right answers | bounced | share | requests/answer |")
    print("|---|---:|---:|---:|---:|")
    total = total_bounced = total_requests = 0
    for name, pairs in sources.items():
        count = requests = 0
        for case, answer in pairs:
            record = replay(case, answer, args.model)
            outcomes[f"{name}/{case.id}"] = {
                "bounced": bounced(record),
                "verdict": record["verdict"],
                "requests": record["requests"],
                "message": record.get("message", ""),
            }
            count += bounced(record)
            requests += record["requests"]
        total += len(pairs)
        total_bounced += count
        total_requests += requests
        print(_row(name, len(pairs), count, requests))
    print(_row("all", total, total_bounced, total_requests))
    if args.out:
        Path(args.out).write_text(json.dumps(outcomes, indent=1), encoding="utf-8")
    if args.compare:
        before = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        for key, now in outcomes.items():
            then = before.get(key)
            if then is not None and then["bounced"] != now["bounced"]:
                print(f"{key}: {then['verdict']} -> {now['verdict']} ({now['message']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
