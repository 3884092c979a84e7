"""Writing a generated case file, or checking that the committed one is what a generator writes.

Shared by the generators in this folder (`make_invoices.py`, `make_multistep.py`), which run
as scripts with this folder first on `sys.path`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def render(cases: Sequence[dict[str, Any]]) -> str:
    """The cases as JSON Lines, one case a line, non-ASCII text kept as it is."""
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)


def write_or_check(out: Path, cases: Sequence[dict[str, Any]], script: str, argv: list[str]) -> int:
    """Write `out`, or with `--check` in `argv` say whether it is up to date (exit 0) or not (1)."""
    text = render(cases)
    if "--check" in argv:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{out} differs from what {script} writes")
        return 0 if same else 1
    out.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} cases to {out}")
    return 0
