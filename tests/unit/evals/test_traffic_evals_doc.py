"""docs/traffic-evals.md shows real terminal sessions: each is rerun here and must match."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.evals.test_cases_review import interactive_traffic, review_session
from tests.unit.evals.test_eval_compare import compare, plain_lines, two_runs

DOC = Path(__file__).parents[3] / "docs" / "traffic-evals.md"


def session(name: str) -> tuple[str, str]:
    """The command and the output of the console block under `<!-- session: NAME -->`."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- session: {name} -->\n```console\n(.*?)```", text, re.DOTALL)
    assert match, f"docs/traffic-evals.md has no session {name!r}"
    command, _, output = match.group(1).partition("\n")
    return command, output.rstrip("\n")


def test_the_review_session_is_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    interactive_traffic(Path("traffic"))

    command, shown = session("review")

    assert command == "$ toolcall-sdk cases review traffic --out cases.jsonl"
    assert review_session(Path("traffic"), Path("cases.jsonl")) == shown


def test_the_compare_session_is_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    two_runs(tmp_path)

    command, shown = session("compare")

    assert command == "$ toolcall-sdk eval compare runs/before runs/after"
    code, output = compare("runs/before", "runs/after")
    assert code == 0
    assert plain_lines(output) == shown
