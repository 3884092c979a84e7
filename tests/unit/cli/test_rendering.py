"""What the commands print reaches the terminal unchanged, square brackets included.

Rich reads `[embeds]` in `pip install "toolcall-sdk[embeds]"` as a style tag and drops it.
Every text the CLI can print is collected here (each string and f-string of the modules
behind the commands, the install hint of every extra, a checkout whose path has brackets)
and printed through each way the commands print, on the console the CLI makes
(`toolcall_sdk._console.cli_console`); each must come out as it went in.
"""

from __future__ import annotations

import ast
import io
import sys
import tomllib
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

import toolcall_sdk.cli as cli
from toolcall_sdk._console import cli_console
from toolcall_sdk._extras import InstallSource, install_command
from toolcall_sdk.doctor import Finding, Report, render_report
from toolcall_sdk.evals._report import Breakdown, EvalReport
from toolcall_sdk.evals._terminal import print_report
from toolcall_sdk.launcher._cli import _error
from toolcall_sdk.testing import RecordedRequest, Reply, ScriptedModel, text, tool_call

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "toolcall_sdk"
# The modules whose text the commands print: findings and fixes, the launcher's errors,
# warnings, family notes and diagnoses, eval's and BFCL's errors, the proxy's, the extras'.
SOURCES = sorted(
    {
        *(PACKAGE / "doctor").glob("*.py"),
        *(PACKAGE / "launcher").glob("*.py"),
        *(PACKAGE / "evals").glob("*.py"),
        *(PACKAGE / "bfcl").glob("*.py"),
        *(PACKAGE / "proxy").glob("*.py"),
        PACKAGE / "_families.py",
        PACKAGE / "_extras.py",
        PACKAGE / "cli.py",
        PACKAGE / "__main__.py",
    }
)
# What stands for a value in an f-string: data with brackets, as a model or a path has.
VALUE = "[value]"


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_literal(part) or VALUE for part in node.values)
    return None


def _module_texts(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # An f-string's pieces are collected whole, with the f-string.
    pieces = {id(p) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for p in n.values}
    texts: set[str] = set()
    for node in ast.walk(tree):
        found = _literal(node) if isinstance(node, ast.expr) and id(node) not in pieces else None
        if found is None:
            continue
        # One line each (a table cell keeps line breaks); no tabs or escapes (Rich expands
        # them, they are not what a user reads).
        for line in found.splitlines():
            line = line.strip()
            if line and not any(ch in line for ch in "\t\r\x1b"):
                texts.add(line)
    return texts


def _extras() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return sorted(tomllib.load(file)["project"]["optional-dependencies"])


def printed_texts() -> list[str]:
    texts: set[str] = set()
    for path in SOURCES:
        texts |= _module_texts(path)
    for extra in _extras():
        texts.add(install_command(extra))
        texts.add(InstallSource("toolcall-sdk").command(extra))
        texts.add(InstallSource("/home/me/[work]/toolcall-sdk", editable=True).command(extra))
    texts.add('unknown: the probe needs torch (pip install "toolcall-sdk[embeds]")')
    return sorted(texts)


TEXTS = printed_texts()


def _flat(text: str) -> str:
    return " ".join(text.split())


def _missing(output: str) -> list[str]:
    flat = _flat(output)
    return [text for text in TEXTS if _flat(text) not in flat]


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    # The CLI's console, wide enough that no cell is wrapped: the text is compared whole.
    return cli_console(width=100_000, file=buffer), buffer


def test_the_collection_holds_the_texts_at_risk() -> None:
    assert len(TEXTS) > 500
    assert any("[embeds]" in text for text in TEXTS)
    assert any(text.startswith('pip install -e "') for text in TEXTS)
    assert 'pip install "toolcall-sdk[cli]"' in TEXTS


def test_doctor_findings_and_fixes_keep_their_text() -> None:
    console, buffer = _console()
    findings = [Finding(f"check {i} {VALUE}", "warn", t, t) for i, t in enumerate(TEXTS)]

    render_report(Report("http://[::1]:8000/v1", "[model]", findings), console)

    assert _missing(buffer.getvalue()) == []
    assert "toolcall-sdk doctor: http://[::1]:8000/v1 ([model])" in buffer.getvalue()


def test_the_launchers_errors_keep_their_text() -> None:
    buffer = io.StringIO()
    console = cli_console(file=buffer, soft_wrap=True)  # launch's stderr console

    for message in TEXTS:
        _error(console, message)

    assert _missing(buffer.getvalue()) == []


def test_eval_error_messages_keep_their_text() -> None:
    console, buffer = _console()
    breakdown = Breakdown(
        key=f"category {VALUE}",
        pipeline="full",
        cases=len(TEXTS),
        failures={"hard_fail": len(TEXTS)},
        top_messages=[(message, 1) for message in TEXTS],
    )
    report = EvalReport(ladder=[], by_category=[breakdown], by_tool=[breakdown], cases=1)

    print_report(report, console)

    assert _missing(buffer.getvalue()) == []
    assert f"category {VALUE}" in buffer.getvalue()


def test_one_line_errors_keep_their_text(capsys: pytest.CaptureFixture[str]) -> None:
    for message in TEXTS:
        with pytest.raises(typer.Exit):
            cli._fail(message, code=2)

    assert _missing(capsys.readouterr().err) == []


def _healthy(request: RecordedRequest) -> Reply:
    if request.tools and request.tool_choice != "none":
        return tool_call(request.tools[0]["function"]["name"], {"city": "Paris"})
    return text("I")


def _cell(output: str, check: str, column: int) -> str:
    """The text of one column of the doctor's row for `check`, its wrapped lines joined."""
    pieces: list[str] = []
    inside = False
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) < 4:
            inside = False
            continue
        if cells[0]:
            inside = cells[0] == check
        if inside and cells[column]:
            pieces.append(cells[column])
    return " ".join(pieces)


def test_doctor_without_torch_shows_the_whole_install_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # as if the embeds extra were missing
    model = ScriptedModel(_healthy)

    with model.serve() as base_url:
        result = CliRunner().invoke(cli.app, ["doctor", base_url, "--hidden-size", "16"])

    assert result.exit_code == 0, result.output
    assert _cell(result.output, "prompt embeds", 2) == (
        f"unknown: the probe needs torch ({install_command('embeds')})"
    )
