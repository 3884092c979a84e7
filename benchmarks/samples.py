"""Several answers to one request, on a live server: the `full` rung with `samples=1` and
`samples=k`, over the same cases in one run.

The cases are the bundled invoices (values in several forms: where the 0.5B writes an
amount ten times over) and BFCL `simple_python`, `multiple` and `parallel`, `--per-source`
of each, spread over their sub-groups as `eval --limit` spreads them. The cases are split
in two by position (`_lever.halves`): the even ones choose the default, the odd ones
report it. `--grounding all` lets the grounding check decide which answers vote.

Printed per mode and part: pass count, the difference against `samples=1` measured in the
same run, wrong_args, requests and completion tokens per case (every sampled answer is
counted) and p50 latency; then per source.

    python benchmarks/samples.py --base-url URL --model NAME [--per-source 12]
        [--samples 1,3,5] [--grounding off|default|all] [--out FILE.json]

Needs `pip install --no-deps bfcl-eval==2026.3.23` for the BFCL cases.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

if __name__ == "__main__":  # `python benchmarks/samples.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lever import lever_parser, report, run_modes, sourced_cases
from toolcall_sdk.evals._settings import EvalSettings
from toolcall_sdk.grounding._policy import CHOICES

SOURCES = ("invoices", "simple_python", "multiple", "parallel")


def main(argv: Sequence[str] | None = None) -> int:
    parser = lever_parser(__doc__, SOURCES, per_source=12)
    parser.add_argument("--samples", default="1,3", help="the modes: answers per request")
    parser.add_argument("--grounding", default="off", choices=CHOICES)
    args = parser.parse_args(argv)
    cases, by_source = sourced_cases(args.sources.split(","), args.per_source)
    modes = [f"samples={k}" for k in args.samples.split(",")]

    def settings_for(mode: str) -> EvalSettings:
        return EvalSettings(
            base_url=args.base_url,
            model=args.model,
            timeout=args.timeout,
            grounding=args.grounding,
            samples=int(mode.split("=")[1]),
        )

    results = run_modes(cases, modes, settings_for, concurrency=args.concurrency)
    report(results, cases, by_source, base=modes[0], out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
