"""Date layouts a field's description asks for: `mm-dd-yyyy`, `DD/MM/YYYY`, `yyyy.mm.dd`.

Many hand-written tool schemas type a date as a plain string and say in the description how
to write it ("The date for the UV index, in the format mm-dd-yyyy."; BFCL's `live_multiple`
asks `MM/DD/YYYY` in 212 parameters). Small models write ISO dates whatever the description
says: asked for the UV index "for tomorrow, June01 2023", Qwen2.5-Coder-0.5B wrote
`date="2023-06-01"`, which a function reading `mm-dd-yyyy` takes for nothing, or for the
wrong day. The date is right; only its layout is not the one the tool documents.

`DateLayout` is a layout read from a description, and `described_layout` finds the one a
parameter schema asks for. It is used twice:

- the repair `date_layout` (`parsing.repair`) rewrites a date written year first
  (`2023-06-01`, `2023/06/01`) in the described layout (`06-01-2023`). Year first is the
  only form whose reading is certain: `06/01/2023` is June or January depending on who
  wrote it, and is left alone;
- the grounding check reads a value in the described layout as the date it is, and holds it
  to the dates the conversation states, as it does an ISO date.

A description is read only when it names exactly one date-only layout (day, month and year
once each, one separator): a layout followed by a time (`dd/mm/yyyy HH:MM`), or two
different layouts, is not one the field can be held to. The schema must be a free string:
`format`, `pattern`, `enum` and `const` say how to write the value themselves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Final

__all__ = ["DateLayout", "described_layout", "parameter_layout", "year_first_date"]

# Three parts of day, month and year, one separator between them, not inside a word.
_LAYOUT: Final = re.compile(
    r"(?<![A-Za-z])(dd|mm|yyyy|yy)([-/.])(dd|mm|yyyy|yy)\2(dd|mm|yyyy|yy)(?![A-Za-z])",
    re.IGNORECASE,
)
# A time right after the layout: the field wants a date-time, which this does not write.
_TIME_AFTER: Final = re.compile(r"[\sT,]*(?:hh|HH|h:|H:)")
_YEAR_FIRST: Final = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")


@dataclass(frozen=True, slots=True)
class DateLayout:
    """A date layout: its parts in order (`dd`, `mm`, `yyyy` or `yy`) and their separator."""

    parts: tuple[str, str, str]
    separator: str

    def __str__(self) -> str:
        return self.separator.join(self.parts)

    def write(self, day: date) -> str:
        """`day` in this layout, zero-padded (`06-01-2023`)."""
        written = {
            "dd": f"{day.day:02d}",
            "mm": f"{day.month:02d}",
            "yyyy": f"{day.year:04d}",
            "yy": f"{day.year % 100:02d}",
        }
        return self.separator.join(written[part] for part in self.parts)

    def read(self, value: str) -> date | None:
        """The date `value` writes in this layout (one or two digits for a day or a month),
        or None. A two-digit year is read in this century."""
        pieces = value.strip().split(self.separator)
        if len(pieces) != 3 or not all(p.isdigit() for p in pieces):
            return None
        found: dict[str, int] = {}
        for part, piece in zip(self.parts, pieces, strict=True):
            width = len(part) if part.startswith("y") else None
            if (width is not None and len(piece) != width) or (width is None and len(piece) > 2):
                return None
            found[part[0]] = int(piece) + (2000 if part == "yy" else 0)
        try:
            return date(found["y"], found["m"], found["d"])
        except ValueError:
            return None


def described_layout(schema: Any) -> DateLayout | None:
    """The date layout a parameter schema's description asks for, or None (see above)."""
    if not isinstance(schema, Mapping):
        return None
    kinds = schema.get("type")
    if kinds != "string" and not (isinstance(kinds, list) and "string" in kinds):
        return None
    if any(key in schema for key in ("format", "pattern", "enum", "const")):
        return None
    description = schema.get("description")
    if not isinstance(description, str):
        return None
    layouts: set[DateLayout] = set()
    for match in _LAYOUT.finditer(description):
        parts = (match[1].lower(), match[3].lower(), match[4].lower())
        if sorted(p[0] for p in parts) != ["d", "m", "y"]:
            return None
        if _TIME_AFTER.match(description, match.end()):
            return None
        layouts.add(DateLayout(parts, match[2]))
    return layouts.pop() if len(layouts) == 1 else None


def parameter_layout(schema: Any) -> DateLayout | None:
    """`described_layout` of a parameter as a tool's schema gives it, the strict form's
    nullable `anyOf` included (its description stands beside the branches)."""
    if not isinstance(schema, Mapping):
        return None
    found = described_layout(schema)
    if found is not None or not isinstance(schema.get("anyOf"), list):
        return found
    description = schema.get("description")
    layouts = {
        described_layout({"description": description, **branch})
        for branch in schema["anyOf"]
        if isinstance(branch, Mapping) and branch.get("type") != "null"
    }
    return layouts.pop() if len(layouts) == 1 else None


def year_first_date(value: str) -> date | None:
    """The date a year-first string writes (`2023-06-01`, `2023/6/1`), or None."""
    match = _YEAR_FIRST.fullmatch(value.strip())
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
