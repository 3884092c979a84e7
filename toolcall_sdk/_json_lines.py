"""Reading a JSON Lines file one object at a time, with the line number of each."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["json_lines"]


def json_lines(
    lines: Iterable[str], not_json: Callable[[int, json.JSONDecodeError], Exception]
) -> Iterator[tuple[int, Any]]:
    """Each non-blank line decoded, with its 1-based number.

    Args:
        lines: The file's lines (an open text file).
        not_json: Builds the error to raise for a line that is not JSON (its number and
            the decoder's error); the caller's error names its file and its kind of line.
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise not_json(number, exc) from exc
        yield number, value
