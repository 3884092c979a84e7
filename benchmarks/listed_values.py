"""Every call a request asks for, on a live server: the `full` rung once per
`listed_values` mode (`off`, `ask`, `complete`, `continue`, `continue_listed`), over the
same cases in one run.

The cases are BFCL `parallel` (requests that list several values: one call each),
`multiple` and `simple_python` (one call: a check that asking costs them nothing) and the
bundled invoices (one call, values in several forms), `--per-source` of each, spread over
their sub-groups as `eval --limit` spreads them. The cases are split in two by position
(`_lever.halves`): the even ones choose the default, the odd ones report it.

Printed per mode and part: pass count, the difference against `off` measured in the same
run, wrong_args, requests per case and p50 latency; then per source.

    python benchmarks/listed_values.py --base-url URL --model NAME [--per-source 20]
        [--modes off,continue_listed] [--half dev|held-out] [--out FILE.json]

Needs `pip install --no-deps bfcl-eval==2026.3.23` for the BFCL cases.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

if __name__ == "__main__":  # `python benchmarks/listed_values.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lever import lever_parser, only_half, report, run_modes, sourced_cases
from toolcall_sdk.evals._settings import EvalSettings

SOURCES = ("parallel", "parallel_multiple", "multiple", "simple_python", "invoices")
MODES = ("off", "ask")


def main(argv: Sequence[str] | None = None) -> int:
    parser = lever_parser(__doc__, SOURCES, per_source=20)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--half",
        choices=("dev", "held-out"),
        help="run one half of the cases only (even positions: dev; odd: held-out)",
    )
    args = parser.parse_args(argv)
    every, by_source = sourced_cases(args.sources.split(","), args.per_source)
    cases, by_source = only_half(every, by_source, args.half)

    def settings_for(mode: str) -> EvalSettings:
        return EvalSettings(
            base_url=args.base_url, model=args.model, timeout=args.timeout, listed_values=mode
        )

    results = run_modes(cases, args.modes.split(","), settings_for, concurrency=args.concurrency)
    report(results, cases, by_source, base="off", out=args.out, half=args.half)
    return 0


if __name__ == "__main__":
    sys.exit(main())
