"""Grounded decoding on a live server: the `full` rung with `grounded_decoding` off, on the
retry after an `ungrounded` finding, and on every forced request, over the same cases.

Each mode runs the invoices cases (evals/invoices.jsonl) through the SDK's `full` pipeline
(the client's defaults, `grounding=all` so the check finds wrong values and `retry` has
something to react to) against one server, one mode after the other. The cases are split
in two by their position: the even ones choose the default (`dev`), the odd ones report
it (`held-out`): a default is never reported on the cases that chose it.

Printed per mode and half: pass rate, wrong_args, requests per case, p50 latency, and the
pass-rate difference against `off` measured in the same run.

    python benchmarks/grounded_decoding.py --base-url URL --model NAME [--cases N]
        [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # `python benchmarks/grounded_decoding.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lever import halves, print_table
from toolcall_sdk.evals._cases import load_cases
from toolcall_sdk.evals._runner import run_eval_sync
from toolcall_sdk.evals._settings import EvalSettings

ROOT = Path(__file__).resolve().parents[1]
MODES = ("off", "retry", "forced")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--cases", type=int, default=40, help="the first N invoices cases")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--out", type=Path, help="write every record and summary as JSON")
    args = parser.parse_args(argv)
    cases = load_cases(ROOT / "evals" / "invoices.jsonl", allow_code=True)[: args.cases]
    parts = halves(cases)
    results: dict[str, list[dict[str, Any]]] = {}
    for mode in args.modes.split(","):
        settings = EvalSettings(
            base_url=args.base_url,
            model=args.model,
            timeout=args.timeout,
            grounding="all",
            grounded_decoding=mode,
        )
        started = time.monotonic()
        results[mode] = run_eval_sync(
            cases, settings, pipelines=["full"], concurrency=args.concurrency
        )
        print(
            f"{mode}: {len(results[mode])} cases in {time.monotonic() - started:.0f} s", flush=True
        )
    table = print_table(results, parts, base="off")
    if args.out is not None:
        args.out.write_text(json.dumps({"summary": table, "records": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
