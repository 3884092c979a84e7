"""The agent loop on a real model: the SDK's loop against a hand-written loop, multi-step tasks.

    python benchmarks/agents_live.py --base-url http://127.0.0.1:8100/v1 --router llm \
        --out runs/agents-0.5b-llm

Runs `evals/multistep.jsonl` (30 tasks of 2-3 dependent calls, then a text answer) through
the agent-loop pipelines of `toolcall-sdk eval` in one run: `raw-loop` (the loop a user
writes over the openai client, `tool_choice="auto"`, the same tools), `agent` (the SDK's
`run(max_steps=...)` as shipped, the router deciding at every step) and
`agent-route-first` (the router at the first step only). Prints, per pipeline, task
success, steps, requests and tokens per task, each as a ratio to the raw loop of the same
run, the failure classes, and how well each step's "call again or answer now" matched the
task (the router's decision where one was asked, else the model's own under auto).

Results go to `OUT/results.jsonl` as the eval writes them: a rerun with the same `--out`
resumes, and `--report-only` prints the tables of what is there without asking the server.
Writes `OUT/agents.md` (the tables) beside the eval's reports. Needs `pip install -e
'.[cli]'`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

if __name__ == "__main__":  # `python benchmarks/agents_live.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console

from toolcall_sdk._errors import ToolCallError
from toolcall_sdk.evals._cli import gather_cases, run_eval_command
from toolcall_sdk.evals._outdir import RESULTS_FILE
from toolcall_sdk.evals._pipelines import AGENT_LADDER
from toolcall_sdk.evals._preflight import preflight
from toolcall_sdk.evals._runner import load_records
from toolcall_sdk.evals._settings import DEFAULT_MAX_TOKENS, EvalSettings
from toolcall_sdk.grounding._policy import CHOICES
from toolcall_sdk.routing import ROUTER_NAMES

REPO: Final = Path(__file__).resolve().parents[1]
TASKS: Final = REPO / "evals" / "multistep.jsonl"
BASELINE: Final = "raw-loop"
TABLES_FILE: Final = "agents.md"
_TALLY: Final = ("steps", "right", "call", "call_right", "answer", "answer_right")
FAILURES: Final = ("hard_fail", "missed_call", "wrong_args", "wrong_tool", "wrong_answer")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", default="http://127.0.0.1:8100/v1")
    parser.add_argument("--model", help="served model name (default: the first served)")
    parser.add_argument("--api-key")
    parser.add_argument("--cases", default=str(TASKS), help="the multi-step task file")
    parser.add_argument("--limit", type=int, help="at most N tasks, spread over categories")
    parser.add_argument("--router", default="llm", choices=ROUTER_NAMES)
    parser.add_argument(
        "--grounding", default="off", choices=CHOICES, help="the SDK loops' grounding check"
    )
    parser.add_argument(
        "--pipeline", action="append", choices=AGENT_LADDER, help="repeatable (default: all)"
    )
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    parser.add_argument("--concurrency", type=int, default=1, help="tasks in flight")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per request")
    parser.add_argument("--out", default="runs/agents", help="folder for the results")
    parser.add_argument("--report-only", action="store_true", help="print what --out holds")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = Path(args.out)
    pipelines = args.pipeline or list(AGENT_LADDER)
    code = 0
    if not args.report_only:
        try:
            cases = gather_cases([args.cases], None, limit=args.limit, allow_code=True)
            served = preflight(
                args.base_url, model=args.model, api_key=args.api_key, timeout=args.timeout
            )
        except (ValueError, OSError, ToolCallError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        settings = EvalSettings(
            base_url=args.base_url,
            model=served,
            api_key=args.api_key,
            router=args.router,
            timeout=args.timeout,
            max_tokens=args.max_tokens or None,
            grounding=args.grounding,
        )
        code = run_eval_command(
            cases,
            settings,
            pipelines=pipelines,
            out_dir=out,
            concurrency=args.concurrency,
            progress="plain",
            console=Console(width=200),
            source=args.cases,
        )
    records = list(load_records(out / RESULTS_FILE).values())
    text = tables(records, pipelines)
    print(text)
    (out / TABLES_FILE).write_text(text, encoding="utf-8")
    return code


def _ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x" if base else "-"


def tables(records: Sequence[Mapping[str, Any]], pipelines: Sequence[str]) -> str:
    """The Markdown tables: pipelines compared to the raw loop, then step decisions."""
    by_pipeline = {p: [r for r in records if r["pipeline"] == p] for p in pipelines}
    by_pipeline = {p: rs for p, rs in by_pipeline.items() if rs}
    if not by_pipeline:
        return "no results yet\n"
    # Only tasks every pipeline finished, so that each row is over the same tasks.
    shared = set.intersection(*({r["case_id"] for r in rs} for rs in by_pipeline.values()))
    rows = {p: [r for r in rs if r["case_id"] in shared] for p, rs in by_pipeline.items()}
    stats = {p: _stats(rs) for p, rs in rows.items()}
    base = stats.get(BASELINE)
    lines = [
        f"{len(shared)} tasks, every pipeline; ratios are to `{BASELINE}` of the same run.",
        "",
        "| pipeline | success | vs raw | steps/task | requests/task | tokens/task | "
        + " | ".join(FAILURES)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(FAILURES),
    ]
    for pipeline, s in stats.items():
        ratio = (
            (
                f"{s['passed'] - base['passed']:+d} tasks",
                f"{s['steps']:.2f} ({_ratio(s['steps'], base['steps'])})",
                f"{s['requests']:.2f} ({_ratio(s['requests'], base['requests'])})",
                f"{s['tokens']:.0f} ({_ratio(s['tokens'], base['tokens'])})",
            )
            if base is not None
            else ("-", f"{s['steps']:.2f}", f"{s['requests']:.2f}", f"{s['tokens']:.0f}")
        )
        lines.append(
            f"| `{pipeline}` | {s['passed']}/{s['n']} ({s['passed'] / s['n']:.0%}) | "
            + " | ".join(ratio)
            + " | "
            + " | ".join(str(s["classes"].get(c, 0)) for c in FAILURES)
            + " |"
        )
    lines += [
        "",
        "Later steps (2 and on): was the step's decision right? `call again` is right while the",
        "chain is incomplete, `answer now` once it is. Decided by the router where one was",
        "asked, else by the model under `tool_choice=auto` (its answer: calls or text).",
        "",
        "| pipeline | decided by | steps | right | call again: right/all | answer now: right/all |",
        "|---|---|---|---|---|---|",
    ]
    for pipeline, rs in rows.items():
        for who, tally in _decisions(rs).items():
            total = tally["steps"]
            lines.append(
                f"| `{pipeline}` | {who} | {total} | "
                f"{tally['right']}/{total} ({tally['right'] / total:.0%}) | "
                f"{tally['call_right']}/{tally['call']} | "
                f"{tally['answer_right']}/{tally['answer']} |"
            )
    lines += ["", "Failures:", ""]
    for pipeline, rs in rows.items():
        for record in sorted(rs, key=lambda r: r["case_id"]):
            if record["verdict"] != "pass":
                lines.append(
                    f"- `{pipeline}` {record['case_id']} ({record['category']}): "
                    f"{record['verdict']}: {record['message']}"
                )
    return "\n".join(lines) + "\n"


def _stats(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    n = len(records)
    return {
        "n": n,
        "passed": sum(1 for r in records if r["verdict"] == "pass"),
        "steps": sum(r.get("steps", 0) for r in records) / n,
        "requests": sum(r["requests"] for r in records) / n,
        "tokens": sum(r["prompt_tokens"] + r["completion_tokens"] for r in records) / n,
        "classes": Counter(r["verdict"] for r in records),
    }


def _decisions(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for record in records:
        for step in record.get("trace", []):
            if step["step"] < 2:
                continue
            routed = step["route"] is not None
            who = "router" if routed else "model (auto)"
            call = step["route"] if routed else bool(step["calls"])
            tally = out.setdefault(who, dict.fromkeys(_TALLY, 0))
            right = call == step["needed"]
            tally["steps"] += 1
            tally["right"] += right
            key = "call" if step["needed"] else "answer"
            tally[key] += 1
            tally[f"{key}_right"] += right
    return out


if __name__ == "__main__":
    sys.exit(main())
