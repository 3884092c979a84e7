"""`Grounded()` and `Derived()`: per-field markers, put on a field through `Annotated`.

```python
@tool
def create_invoice(
    customer_id: str,
    city: Annotated[str, Grounded()],          # free text, but it must be the user's
    total_vnd: Annotated[int, Derived()],      # computed by the model: never checked
) -> dict: ...
```

`markers_of(model)` finds them on an arguments model, nested models and list items
included, keyed by the field's path (`("items", "*", "total")`: `*` for any list item).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

__all__ = ["ANY_ITEM", "Derived", "FieldMarks", "Grounded", "Mark", "markers_of"]

Mark = Literal["grounded", "derived"]
ANY_ITEM = "*"
# Arguments models nest a few levels; a self-referencing model must not recurse forever.
_MAX_DEPTH = 16


@dataclass(frozen=True, slots=True)
class Grounded:
    """This field's value must be found in the conversation, whatever its kind.

    On free text it asks for the words as written (letter case, accents and separators
    aside): `Annotated[str, Grounded()]` rejects `Hanoi` when the user asked about Huế.
    It applies even where the policy leaves the field's kind out; `grounding=False`
    turns it off with everything else.
    """


@dataclass(frozen=True, slots=True)
class Derived:
    """This field's value is computed, not copied (a total, a unit conversion): the
    grounding check never looks at it, nor inside it."""


@dataclass(frozen=True, slots=True)
class FieldMarks:
    """What the arguments model says about one field path."""

    mark: Mark | None = None
    default: Any = PydanticUndefined  # the field's default value, if it has one


def markers_of(model: type[BaseModel]) -> dict[tuple[str, ...], FieldMarks]:
    """The marked or defaulted fields of `model`, by path (keys as the model sends them)."""
    found: dict[tuple[str, ...], FieldMarks] = {}
    _collect(model, (), found, 0)
    return found


def _collect(
    model: type[BaseModel],
    path: tuple[str, ...],
    found: dict[tuple[str, ...], FieldMarks],
    depth: int,
) -> None:
    if depth > _MAX_DEPTH:
        return
    for name, info in model.model_fields.items():
        key = (*path, info.alias or name)
        if info.default is not PydanticUndefined:
            found[key] = FieldMarks(default=info.default)
        _mark(found, key, _mark_in(info.metadata))
        for inner, nested in _inside(info.annotation, key):
            _mark(found, nested, _annotated_mark(inner))
            child = _model(inner)
            if child is not None:
                _collect(child, nested, found, depth + 1)


def _mark(
    found: dict[tuple[str, ...], FieldMarks], key: tuple[str, ...], mark: Mark | None
) -> None:
    if mark is None:
        return
    known = found.get(key)
    if known is None:
        found[key] = FieldMarks(mark=mark)
    elif known.mark is None:
        found[key] = FieldMarks(mark=mark, default=known.default)


def _mark_in(metadata: Any) -> Mark | None:
    for item in metadata or ():
        if isinstance(item, Derived):
            return "derived"
        if isinstance(item, Grounded):
            return "grounded"
    return None


def _annotated_mark(annotation: Any) -> Mark | None:
    if typing.get_origin(annotation) is typing.Annotated:
        return _mark_in(typing.get_args(annotation)[1:])
    return None


def _inside(annotation: Any, path: tuple[str, ...]) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """The annotation itself and the item types of its lists, each with its path."""
    yield annotation, path
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        yield from _inside(args[0], path)
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                yield from _inside(arg, path)
    elif origin in (list, tuple, set, frozenset) and args:
        for arg in args:
            if arg is not Ellipsis:
                yield from _inside(arg, (*path, ANY_ITEM))


def _model(annotation: Any) -> type[BaseModel] | None:
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None
