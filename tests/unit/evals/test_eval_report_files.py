"""What the report files show: the seed's figures beside the rungs, a chart readable anywhere."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

from toolcall_sdk.evals import LADDER, build_report
from toolcall_sdk.evals._files import report_markdown
from toolcall_sdk.evals._svg import ladder_svg
from toolcall_sdk.evals._terminal import ladder_table

SVG = "{http://www.w3.org/2000/svg}"


def record(case_id: str, pipeline: str, verdict: str) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "pipeline": pipeline,
        "category": "c",
        "verdict": verdict,
        "message": "" if verdict == "pass" else "why",
        "tool": "t",
        "parser_miss": False,
        "repaired": False,
        "attempts": 1,
        "requests": 1,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "latency_s": 0.5,
    }


def ladder_records() -> list[dict[str, Any]]:
    """Two cases per rung; every rung passes one, `full` both."""
    return [
        record(case, rung, "pass" if case == "a" or rung == "full" else "wrong_args")
        for case in ("a", "b")
        for rung in LADDER
    ]


def test_the_chart_paints_a_white_background_before_anything_else() -> None:
    svg = ladder_svg(build_report(ladder_records()))
    root = ElementTree.fromstring(svg)

    first = root[0]
    assert first.tag == f"{SVG}rect"
    assert first.get("fill") == "#ffffff"
    assert (first.get("x"), first.get("y")) == ("0", "0")
    assert (first.get("width"), first.get("height")) == (root.get("width"), root.get("height"))


def test_the_chart_marks_the_seed_figure_on_the_rungs_the_seed_measured() -> None:
    svg = ladder_svg(build_report(ladder_records()))
    root = ElementTree.fromstring(svg)

    ticks = root.findall(f"{SVG}line[@class='seed']")
    titles = [tick.findtext(f"{SVG}title") for tick in ticks]
    assert titles == ["seed: ~70%", "seed: ~86%", "seed: ~93%", "seed: ~97.5%"]
    # On the bar's scale: 150 px of labels, then 480 px for 100%.
    assert [tick.get("x1") for tick in ticks] == ["486.0", "562.8", "596.4", "618.0"]


def test_markdown_and_terminal_tables_show_the_seed_beside_each_rung() -> None:
    report = build_report(ladder_records(), {"model": "m", "max_tokens": 256})

    markdown = report_markdown(report)
    assert "- max_tokens: `256`" in markdown
    assert "| pipeline | pass% | seed | requests/case |" in markdown
    rows = {line.split(" | ")[0][2:]: line for line in markdown.splitlines() if "| 50.0% |" in line}
    assert rows["auto"].startswith("| auto | 50.0% | ~70% | 1.00 |")
    assert rows["auto+parser"].startswith("| auto+parser | 50.0% | ~86% |")
    assert rows["auto+recover"].startswith("| auto+recover | 50.0% | - |")
    assert rows["required"].startswith("| required | 50.0% | - |")
    assert rows["required+validate"].startswith("| required+validate | 50.0% | ~93% |")
    assert "| full | 100.0% | ~97.5% | 1.00 | 15 | 0.50s / 0.50s |" in markdown
    assert "seed: seed 001 (Qwen2.5-7B-Instruct on vLLM, ~200 cases from real logs)." in markdown

    table = ladder_table(report)
    headers = [column.header for column in table.columns]
    assert headers[:3] == ["pipeline", "pass%", "seed"]
    assert list(table.columns[2].cells) == ["~70%", "~86%", "-", "-", "~93%", "~97.5%"]
    assert str(table.caption).startswith("seed: seed 001")
