"""Calls held once they start, on a live server: the `full` rung with `call_tags` off,
`schema` and `grounded`, over the same cases in one run.

The cases are the bundled invoices (values in several forms: where the 0.5B writes an
amount ten times over) and BFCL `simple_python`, `multiple`, `parallel` and
`irrelevance` (where a tag must not turn a text answer into a call), `--per-source` of
each, spread over their sub-groups as `eval --limit` spreads them. The cases are split in
two by position (`_lever.halves`): the even ones choose the default, the odd ones report
it.

Printed per mode and part: pass count, the difference against `off` measured in the same
run, wrong_args, requests and completion tokens per case and p50 latency; then per source.

    python benchmarks/call_tags.py --base-url URL --model NAME [--per-source 12]
        [--modes off,schema,grounded] [--grounding off|default|all] [--out FILE.json]

Needs `pip install --no-deps bfcl-eval==2026.3.23` for the BFCL cases.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

if __name__ == "__main__":  # `python benchmarks/call_tags.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lever import lever_parser, report, run_modes, sourced_cases
from toolcall_sdk._call_tags import CALL_TAG_MODES
from toolcall_sdk.evals._settings import EvalSettings
from toolcall_sdk.grounding._policy import CHOICES

SOURCES = ("invoices", "simple_python", "multiple", "parallel", "irrelevance")


def main(argv: Sequence[str] | None = None) -> int:
    parser = lever_parser(__doc__, SOURCES, per_source=12)
    parser.add_argument("--modes", default=",".join(CALL_TAG_MODES), help="call_tags values")
    parser.add_argument("--grounding", default="off", choices=CHOICES)
    args = parser.parse_args(argv)
    cases, by_source = sourced_cases(args.sources.split(","), args.per_source)
    modes = args.modes.split(",")

    def settings_for(mode: str) -> EvalSettings:
        return EvalSettings(
            base_url=args.base_url,
            model=args.model,
            timeout=args.timeout,
            grounding=args.grounding,
            call_tags=mode,
        )

    results = run_modes(cases, modes, settings_for, concurrency=args.concurrency)
    report(results, cases, by_source, base=modes[0], out=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
