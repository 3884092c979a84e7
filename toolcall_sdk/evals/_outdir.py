"""The output folder remembers which run it belongs to.

Results are reused when an interrupted eval is run again, which is only right against the
same server, model and settings. `run.json` records them next to `results.jsonl`; a run with
other settings is refused (`--fresh` discards the old results, or a new `--out` keeps them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from toolcall_sdk._errors import ToolCallError
from toolcall_sdk.evals._settings import EvalSettings, describe_settings

__all__ = ["RESULTS_FILE", "RUN_FILE", "OutDirConflictError", "prepare_out_dir", "run_identity"]

RESULTS_FILE: Final = "results.jsonl"
"""One finished (case, pipeline) result per line, appended as each finishes."""
RUN_FILE: Final = "run.json"
"""The server, model and options the results in the folder were made with."""


class OutDirConflictError(ToolCallError, ValueError):
    """The output folder holds results of a run with another server, model or settings."""


def run_identity(settings: EvalSettings) -> dict[str, Any]:
    """What results depend on, as stored in `run.json` (no credential)."""
    identity = dict(describe_settings(settings))
    for key in ("base_url", "wrong_parser_base_url"):
        if identity.get(key):
            identity[key] = str(identity[key]).rstrip("/")
    return identity


def prepare_out_dir(out_dir: Path, settings: EvalSettings, *, fresh: bool = False) -> None:
    """Make `out_dir` ready for a run with `settings`, refusing to mix two runs.

    Args:
        out_dir: The output folder (created if missing).
        settings: The run's server, model and options.
        fresh: Discard earlier results first instead of resuming from them.

    Raises:
        OutDirConflictError: The folder holds results of a run with other settings, or
            results with no record of their run.
    """
    results = out_dir / RESULTS_FILE
    run_file = out_dir / RUN_FILE
    if fresh:
        results.unlink(missing_ok=True)
        run_file.unlink(missing_ok=True)
    identity = run_identity(settings)
    has_results = results.exists() and results.stat().st_size > 0
    if run_file.exists():
        recorded = _read(run_file)
        changed = [key for key in identity if recorded.get(key) != identity[key]]
        if changed and has_results:
            what = ", ".join(f"{k} {recorded.get(k)!r} (now {identity[k]!r})" for k in changed)
            raise OutDirConflictError(
                f"{out_dir} holds results of a run with {what}; resuming would mix the two. "
                "Use a new --out, or --fresh to discard them"
            )
    elif has_results:
        raise OutDirConflictError(
            f"{out_dir} holds results with no {RUN_FILE} saying which server and model made "
            "them. Use a new --out, or --fresh to discard them"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    run_file.write_text(json.dumps(identity, indent=1) + "\n", encoding="utf-8")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
