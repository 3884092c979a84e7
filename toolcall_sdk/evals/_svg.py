"""The ladder as an SVG bar chart, written directly (no plotting library needed).

One horizontal bar per pipeline, split by taxonomy class, so the chart shows the pass
rate and the failure mix at once.
"""

from __future__ import annotations

from typing import Final
from xml.sax.saxutils import escape

from toolcall_sdk.evals._report import EvalReport
from toolcall_sdk.evals._taxonomy import CLASSES

__all__ = ["COLORS", "ladder_svg"]

COLORS: Final[dict[str, str]] = {
    "pass": "#2e7d32",
    "wrong_tool": "#f9a825",
    "wrong_args": "#ef6c00",
    "hard_fail": "#c62828",
    "missed_call": "#6a1b9a",
    "spurious_call": "#1565c0",
}
_LABEL_W: Final = 150
_BAR_W: Final = 480
_ROW_H: Final = 34
_TOP: Final = 40


def ladder_svg(report: EvalReport) -> str:
    """Render the ladder and its failure mix as a standalone SVG document."""
    rows = report.ladder
    legend_y = _TOP + len(rows) * _ROW_H + 16
    height = legend_y + 30
    width = _LABEL_W + _BAR_W + 80
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
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
        parts.append(f'<text x="{_LABEL_W + _BAR_W + 8}" y="{y + 17}">{row.pass_rate:.1%}</text>')
    x = 10
    for name in CLASSES:
        parts.append(f'<rect x="{x}" y="{legend_y}" width="12" height="12" fill="{COLORS[name]}"/>')
        parts.append(f'<text x="{x + 16}" y="{legend_y + 11}">{name}</text>')
        x += 22 + 8 * len(name)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
