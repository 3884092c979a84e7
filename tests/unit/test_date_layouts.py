"""Reading the date layout a parameter's description asks for, and writing dates in it."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from toolcall_sdk._date_layouts import described_layout, parameter_layout, year_first_date
from toolcall_sdk.parsing.repair import write_described_dates


def _string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


@pytest.mark.parametrize(
    ("description", "layout"),
    [
        ("The date for the UV index, in the format mm-dd-yyyy.", "mm-dd-yyyy"),
        ("formatted as 'DD-MM-YYYY'. Defaults to today.", "dd-mm-yyyy"),
        ("Date as MM/DD/YY", "mm/dd/yy"),
        ("Format: 'yyyy-mm-dd'.", "yyyy-mm-dd"),
        ("Day in dd.mm.yyyy", "dd.mm.yyyy"),
    ],
)
def test_a_described_layout_is_read(description: str, layout: str) -> None:
    found = described_layout(_string(description))
    assert found is not None
    assert str(found) == layout


@pytest.mark.parametrize(
    "schema",
    [
        _string("in the format of 'dd/mm/yyyy HH:MM', the local time"),  # a date-time
        _string("mm/dd/yyyy or dd/mm/yyyy"),  # two layouts
        _string("mm-mm-yyyy"),  # no day
        _string("The date (month-day-year)"),  # words, not a layout
        _string("in mm-dd-yyyy", format="date"),  # the schema says how already
        _string("in mm-dd-yyyy", pattern=r"^\d{2}-\d{2}-\d{4}$"),
        {"type": "integer", "description": "days since mm-dd-yyyy"},
        _string("The date of the event."),
    ],
)
def test_no_layout_is_read_where_the_field_cannot_be_held_to_one(schema: dict[str, Any]) -> None:
    assert described_layout(schema) is None


def test_the_strict_forms_nullable_branch_takes_the_outer_description() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "MM/DD/YYYY"}
    found = parameter_layout(schema)
    assert found is not None
    assert str(found) == "mm/dd/yyyy"


def test_a_layout_reads_and_writes_its_dates() -> None:
    layout = described_layout(_string("dd.mm.yy"))
    assert layout is not None
    assert layout.write(date(2023, 6, 1)) == "01.06.23"
    assert layout.read("1.6.23") == date(2023, 6, 1)
    assert layout.read("01.06.2023") is None  # four digits where two are asked
    assert layout.read("31.02.23") is None  # no such day
    assert layout.read("01-06-23") is None  # another separator


def test_only_a_year_first_date_has_a_certain_reading() -> None:
    assert year_first_date("2023-06-01") == date(2023, 6, 1)
    assert year_first_date("2023/6/1") == date(2023, 6, 1)
    assert year_first_date("06/01/2023") is None
    assert year_first_date("2023-02-30") is None


def test_the_repair_rewrites_top_level_parameters_only() -> None:
    schema = {
        "type": "object",
        "properties": {
            "start": _string("mm/dd/yyyy"),
            "end": _string("mm/dd/yyyy"),
            "trip": {"type": "object", "properties": {"on": _string("mm/dd/yyyy")}},
        },
    }
    data = {"start": "2023-06-01", "end": "06/30/2023", "trip": {"on": "2023-06-02"}}

    repaired, repairs = write_described_dates(data, schema)

    assert repaired == {"start": "06/01/2023", "end": "06/30/2023", "trip": {"on": "2023-06-02"}}
    assert repairs == ["date_layout:/start"]
    assert data["start"] == "2023-06-01"  # the caller's object is not changed
