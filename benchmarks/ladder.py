"""The seed's ladder on a real model: the six rungs of `toolcall-sdk eval` over the bundled
invoices set and four non-live BFCL categories, each source into its own report folder.

    python benchmarks/ladder.py --base-url http://127.0.0.1:8000/v1 \
        --wrong-parser-base-url http://127.0.0.1:8001/v1 --model Qwen/Qwen2.5-7B-Instruct \
        --per-source 50 --out runs/ladder

`--base-url` is the server started with the SDK's tool parser plugin (`toolcall-sdk
launch`), `--wrong-parser-base-url` the same model behind vLLM's plain `hermes` parser (the
`auto` rung's server; without it that rung asks `--base-url`). Each source keeps
`--per-source` cases spread over its categories (`eval --limit`). Writes
`OUT/<source>/{report.json,report.md,ladder.svg,results.jsonl}` (a rerun resumes them) and
`OUT/summary.md`, the pass rate of each rung per source beside the seed's. Progress is
printed as plain lines. The eval code does the work; this script only chooses the sources.

Needs `pip install -e '.[cli]'` and `pip install --no-deps bfcl-eval==2026.3.23`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

if __name__ == "__main__":  # `python benchmarks/ladder.py`: put the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console

from toolcall_sdk._call_tags import CALL_TAG_MODES
from toolcall_sdk._errors import ToolCallError
from toolcall_sdk._listed_values import LISTED_VALUES
from toolcall_sdk.evals._cli import gather_cases, run_eval_command
from toolcall_sdk.evals._files import JSON_FILE, write_reports
from toolcall_sdk.evals._outdir import RESULTS_FILE
from toolcall_sdk.evals._pipelines import LADDER, describe_settings
from toolcall_sdk.evals._preflight import preflight
from toolcall_sdk.evals._report import build_report
from toolcall_sdk.evals._runner import load_records
from toolcall_sdk.evals._seed import SEED_PASS_RATES, SEED_SOURCE, seed_text
from toolcall_sdk.evals._settings import DEFAULT_MAX_TOKENS, EvalSettings
from toolcall_sdk.grounding._policy import CHOICES
from toolcall_sdk.grounding._unstated import OPTIONAL_VALUES
from toolcall_sdk.routing import ROUTER_NAMES

REPO: Final = Path(__file__).resolve().parents[1]
INVOICES: Final = REPO / "evals" / "invoices.jsonl"
BFCL_CATEGORIES: Final = ("simple_python", "multiple", "parallel", "irrelevance")
SUMMARY_FILE: Final = "summary.md"
COMBINED_DIR: Final = "all"


def _default(name: str) -> Any:
    """An `EvalSettings` field's default (the client's)."""
    return next(f.default for f in dataclasses.fields(EvalSettings) if f.name == name)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", required=True, help="the server with the plugin parser")
    parser.add_argument("--wrong-parser-base-url", help="the same model behind plain hermes")
    parser.add_argument("--model", help="served model name (default: the first served)")
    parser.add_argument("--api-key")
    parser.add_argument("--per-source", type=int, default=50, help="cases per source")
    parser.add_argument("--out", default="runs/ladder", help="folder for the reports")
    parser.add_argument("--cases", default=str(INVOICES), help="the case file ('' for none)")
    parser.add_argument(
        "--bfcl", default=",".join(BFCL_CATEGORIES), help="BFCL categories, comma-separated"
    )
    parser.add_argument("--router", default="llm", choices=ROUTER_NAMES)
    parser.add_argument(
        "--pipelines", default=",".join(LADDER), help="rungs to run, comma-separated"
    )
    parser.add_argument(
        "--grounding", default="off", choices=CHOICES, help="the full pipeline's grounding"
    )
    parser.add_argument(
        "--call-tags",
        default="off",
        choices=CALL_TAG_MODES,
        help="the full pipeline's call_tags",
    )
    parser.add_argument(
        "--listed-values",
        default=_default("listed_values"),
        choices=LISTED_VALUES,
        help="the full pipeline's listed_values (default: the client's)",
    )
    parser.add_argument(
        "--optional-values",
        default=_default("optional_values"),
        choices=OPTIONAL_VALUES,
        help="the full pipeline's optional_values (default: the client's)",
    )
    parser.add_argument(
        "--parallel-calls",
        dest="parallel_tool_calls",
        action="store_const",
        const=True,
        default=None,
        help="send parallel_tool_calls=true with every rung (default: not sent)",
    )
    parser.add_argument("--max-retries", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument(
        "--allow-code", action="store_true", help="trust a --cases file whose tools are Python"
    )
    parser.add_argument("--fresh", action="store_true", help="discard earlier results")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console(width=160)
    rungs = tuple(p.strip() for p in args.pipelines.split(",") if p.strip())
    if unknown := [p for p in rungs if p not in LADDER]:
        print(f"error: unknown rung(s) {unknown}; choose from {', '.join(LADDER)}", file=sys.stderr)
        return 2
    # This repository's own case file names its tools as Python; trusting it is trusting
    # the checkout this script runs from. Any other file needs --allow-code.
    allow_code = args.allow_code or Path(args.cases).resolve() == INVOICES
    sources: list[tuple[str, str, list[str], str | None]] = (
        [(Path(args.cases).stem, args.cases, [args.cases], None)] if args.cases else []
    )
    for category in [c.strip() for c in args.bfcl.split(",") if c.strip()]:
        sources.append((f"bfcl-{category}", f"bfcl:{category}", [], category))
    try:
        model = preflight(args.base_url, model=args.model, api_key=args.api_key, timeout=30)
        if args.wrong_parser_base_url:
            preflight(args.wrong_parser_base_url, model=model, api_key=args.api_key, timeout=30)
        loaded = [
            gather_cases(files, bfcl, limit=args.per_source, allow_code=allow_code)
            for _, _, files, bfcl in sources
        ]
    except (ValueError, OSError, ToolCallError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = EvalSettings(
        base_url=args.base_url,
        model=model,
        api_key=args.api_key,
        router=args.router,
        max_retries=args.max_retries,
        timeout=args.timeout,
        max_tokens=args.max_tokens or None,
        wrong_parser_base_url=args.wrong_parser_base_url,
        grounding=args.grounding,
        call_tags=args.call_tags,
        listed_values=args.listed_values,
        optional_values=args.optional_values,
        parallel_tool_calls=args.parallel_tool_calls,
    )
    out = Path(args.out)
    code = 0
    for (name, label, _, _), cases in zip(sources, loaded, strict=True):
        console.print(f"ladder: {name}, {len(cases)} cases x {len(rungs)} rungs", markup=False)
        code = max(
            code,
            run_eval_command(
                cases,
                settings,
                pipelines=rungs,
                out_dir=out / name,
                concurrency=args.concurrency,
                progress="plain",
                console=console,
                source=label,
                fresh=args.fresh,
            ),
        )
    summary = summary_markdown(out, [name for name, *_ in sources])
    (out / SUMMARY_FILE).write_text(summary, encoding="utf-8")
    console.print(summary, markup=False, highlight=False)
    console.print(f"wrote {out / SUMMARY_FILE}", markup=False)
    written = write_combined(out, [name for name, *_ in sources], settings)
    console.print("wrote " + ", ".join(str(p) for p in written), markup=False)
    return code


def write_combined(out: Path, names: Sequence[str], settings: EvalSettings) -> list[Path]:
    """One report over every source's finished pairs: `OUT/all/{report.*,ladder.svg}`.

    Each source's cases keep their own ids and categories, so the combined taxonomy, costs
    and latencies are those of all the cases together.
    """
    records: list[dict[str, Any]] = []
    for name in names:
        records.extend(load_records(out / name / RESULTS_FILE).values())
    meta: dict[str, Any] = {**describe_settings(settings), "cases": "+".join(names)}
    return write_reports(build_report(records, meta), records, out / COMBINED_DIR)


def summary_markdown(out: Path, names: Sequence[str]) -> str:
    """Pass rate per rung (rows) and source (columns), with the seed's figures."""
    rates: dict[str, dict[str, Any]] = {}
    for name in names:
        path = out / name / JSON_FILE
        report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        rates[name] = {row["pipeline"]: row for row in report.get("ladder", [])}
    lines = [
        "# The ladder",
        "",
        f"seed: {SEED_SOURCE}.",
        "",
        "| rung | seed | " + " | ".join(names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for rung in LADDER:
        cells = []
        for name in names:
            row = rates[name].get(rung)
            cells.append(f"{row['pass_rate']:.1%} ({row['cases']})" if row else "-")
        seed = seed_text(SEED_PASS_RATES.get(rung))
        lines.append(f"| {rung} | {seed} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
