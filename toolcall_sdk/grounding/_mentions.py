"""What a text states: a number or a date, with the words it was written in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

__all__ = ["DateMention", "NumberMention", "show_number"]


@dataclass(frozen=True, slots=True)
class NumberMention:
    """One number as written.

    Attributes:
        quote: The words, as the text has them (`12.5 million VND`).
        shown: The value feedback shows for it (`12500000`).
        values: Every value the words can mean: `1.500` is 1500 in Vietnam and 1.5 in
            England; `15%` is 15 and 0.15. The check asks whether a value *could* be what
            was written, so a second reading can only let a value pass.
        start: Where the words start in the text (orders quotes as the text does).
    """

    quote: str
    shown: Decimal
    values: frozenset[Decimal]
    start: int = 0


@dataclass(frozen=True, slots=True)
class DateMention:
    """One date as written; `year` is None for a date written without one (`March 12`),
    `day` is None for a month (`January 2028`), `month` is None for a day of the month
    alone (`the 15th`).

    Attributes:
        quote: The words, as the text has them.
        year: The year, if written.
        month: The month, if written.
        day: The day, if written.
        start: Where the words start in the text.
    """

    quote: str
    year: int | None
    month: int | None
    day: int | None
    start: int = 0

    def matches(self, value: date) -> bool:
        """Whether `value` is a date these words can mean."""
        if self.month is not None and value.month != self.month:
            return False
        if self.year is not None and value.year != self.year:
            return False
        return self.day is None or value.day == self.day

    @property
    def shown(self) -> str:
        """The date as feedback shows it: ISO, with what was not written left out."""
        if self.month is None:
            return f"day {self.day}"
        if self.year is None:
            return f"--{self.month:02d}-{self.day or 1:02d}"
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"


def show_number(value: Decimal) -> str:
    """A number in plain digits: `12500000`, `0.15`, never `1.25E+7`."""
    if value == value.to_integral_value():
        return str(int(value))
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
