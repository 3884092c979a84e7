"""The ladder as an SVG bar chart, written directly (no plotting library needed).

One horizontal bar per pipeline, split by taxonomy class, so the chart shows the pass
rate and the failure mix at once; a black tick marks the seed's pass rate on the rungs it
measured. The chart paints its own white background: its text is black, and a viewer with a
dark theme would otherwise show it on black.
"""

from __future__ import annotations

from typing import Final
from xml.sax.saxutils import escape

from toolcall_sdk.evals._report import EvalReport
from toolcall_sdk.evals._seed import seed_text
from toolcall_sdk.evals._taxonomy import CLASSES

__all__ = ["BACKGROUND", "COLORS", "ladder_svg"]

COLORS: Final[dict[str, str]] = {
    "pass": "#2e7d32",
    "wrong_tool": "#f9a825",
    "wrong_args": "#ef6c00",
    "hard_fail": "#c62828",
    "missed_call": "#6a1b9a",
    "spurious_call": "#1565c0",
    "wrong_answer": "#546e7a",
}
_LABEL_W: Final = 150
_BAR_W: Final = 480
_ROW_H: Final = 34
_TOP: Final = 40
BACKGROUND: Final = "#ffffff"


def ladder_svg(report: EvalReport) -> str:
    """Render the ladder and its failure mix as a standalone SVG document."""
    rows = report.ladder
    legend_y = _TOP + len(rows) * _ROW_H + 16
    height = legend_y + 30
    width = _LABEL_W + _BAR_W + 80
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" '
        f'fill="{BACKGROUND}"/>',
        f'<text x="10" y="22" font-size="15" font-weight="bold">'
        f"Tool-calling ladder: outcome per case ({report.cases} cases)</text>",
    ]
    for index, row in enumerate(rows):
        y = _TOP + index * _ROW_H
        parts.append(f'<text x="10" y="{y + 17}">{escape(row.pipeline)}</text>')
        x = float(_LABEL_W)
        for name in CLASSES:
            count = row.classes.get(name, 0)
            if not count or not row.cases:
                continue
            w = _BAR_W * count / row.cases
            parts.append(
                f'<rect class="{name}" x="{x:.1f}" y="{y}" width="{w:.1f}" height="24" '
                f'fill="{COLORS[name]}"><title>{name}: {count}</title></rect>'
            )
            x += w
        if row.seed_pass_rate is not None:
            seed_x = _LABEL_W + _BAR_W * row.seed_pass_rate
            parts.append(
                f'<line class="seed" x1="{seed_x:.1f}" y1="{y - 3}" x2="{seed_x:.1f}" '
                f'y2="{y + 27}" stroke="#000000" stroke-width="2">'
                f"<title>seed: {seed_text(row.seed_pass_rate)}</title></line>"
            )
        parts.append(f'<text x="{_LABEL_W + _BAR_W + 8}" y="{y + 17}">{row.pass_rate:.1%}</text>')
    x = 10
    for name in CLASSES:
        parts.append(f'<rect x="{x}" y="{legend_y}" width="12" height="12" fill="{COLORS[name]}"/>')
        parts.append(f'<text x="{x + 16}" y="{legend_y + 11}">{name}</text>')
        x += 22 + 8 * len(name)
    if any(row.seed_pass_rate is not None for row in rows):
        parts.append(
            f'<line x1="{x + 6}" y1="{legend_y - 2}" x2="{x + 6}" y2="{legend_y + 14}" '
            'stroke="#000000" stroke-width="2"/>'
        )
        parts.append(f'<text x="{x + 16}" y="{legend_y + 11}">seed</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
