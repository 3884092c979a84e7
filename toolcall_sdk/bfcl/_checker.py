"""BFCL's AST-checker rules for Python categories, reimplemented without `bfcl_eval`.

`bfcl_eval`'s checker imports a module that imports every provider SDK, so the SDK keeps
its own copy of the rules (tests compare the two on BFCL's ground truth):

- Shape: `simple_*` wants exactly one call; `multiple` as many calls as answers (one),
  checked against the first; `parallel*` as many calls as answers, matched in any order
  (each answer takes the first unmatched call that passes).
- A call: the function name must be the expected one; every parameter the function marks
  required must be present; every parameter sent must exist in the function and among
  the answer's parameters; an answer parameter left out must accept `""` (optional).
- Types (BFCL's names): `string`, `integer`, `float`, `boolean`, `array`, `tuple`, `dict`,
  `any` (treated as a string). An `int` sent for a `float` counts as that float. A value of
  another type still passes when its type is that of the acceptable values (BFCL calls it
  a variable); array items are type-checked one level deep.
- Values: strings compare after standardisation (spaces and `,./-_*^` removed, lower
  case, `'` as `"`), also inside lists and dict values; dicts key by key; lists of dicts
  item by item; other values by Python equality with one of the acceptable values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["BfclVerdict", "bfcl_check", "ground_truth_as_output"]

_PY_TYPES: Final[dict[str, type]] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_NESTED: Final = ("array", "tuple")
_STRIP: Final = re.compile(r"[ ,./\-_*^]")
_OPTIONAL: Final = ""


@dataclass(frozen=True, slots=True)
class BfclVerdict:
    """The checker's answer for one case.

    Attributes:
        valid: Whether the calls pass.
        kind: `wrong_count`, `wrong_func_name`, `missing_required`, `unexpected_param`,
            `type_error`, `value_error`, `missing_optional` or `no_match` (parallel).
        message: Why, in words.
        param: The parameter at fault, when one is.
        function: The expected function concerned, when known.
    """

    valid: bool
    kind: str = ""
    message: str = ""
    param: str | None = None
    function: str | None = None


_OK: Final = BfclVerdict(True)


def bfcl_check(
    functions: Sequence[Mapping[str, Any]],
    output: Sequence[Mapping[str, Mapping[str, Any]]],
    ground_truth: Sequence[Mapping[str, Mapping[str, Sequence[Any]]]],
    category: str,
) -> BfclVerdict:
    """Check a model's calls against a BFCL answer (Python categories).

    Args:
        functions: The case's BFCL function documents (BFCL types, BFCL names).
        output: The calls made, each `{bfcl_name: {param: value}}`.
        ground_truth: The case's answers, each `{bfcl_name: {param: [acceptable values]}}`.
        category: The BFCL category (decides simple, multiple or parallel).
    """
    if "parallel" in category:
        return _parallel(functions, output, ground_truth)
    if "multiple" in category:
        if len(output) != len(ground_truth):
            return BfclVerdict(False, "wrong_count", "wrong number of calls")
        name = next(iter(ground_truth[0]))
        return _call(_find(functions, name), output[0], ground_truth[0])
    if len(output) != 1:
        return BfclVerdict(False, "wrong_count", "wrong number of calls")
    return _call(functions[0], output[0], ground_truth[0])


def ground_truth_as_output(
    ground_truth: Sequence[Mapping[str, Mapping[str, Sequence[Any]]]],
) -> list[dict[str, dict[str, Any]]]:
    """The calls a perfect model would make: each parameter's first acceptable value.

    A parameter whose only acceptable value is `""` (may be omitted) is left out.
    """
    calls: list[dict[str, dict[str, Any]]] = []
    for answer in ground_truth:
        for name, params in answer.items():
            args = {}
            for param, values in params.items():
                chosen = [v for v in values if not (isinstance(v, str) and v == _OPTIONAL)]
                if chosen:
                    args[param] = chosen[0]
            calls.append({name: args})
    return calls


def _find(functions: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any]:
    for function in functions:
        if function.get("name") == name:
            return function
    return {"name": name, "parameters": {"properties": {}, "required": []}}


def _parallel(
    functions: Sequence[Mapping[str, Any]],
    output: Sequence[Mapping[str, Mapping[str, Any]]],
    ground_truth: Sequence[Mapping[str, Mapping[str, Sequence[Any]]]],
) -> BfclVerdict:
    if len(output) != len(ground_truth):
        return BfclVerdict(False, "wrong_count", "wrong number of calls")
    used: set[int] = set()
    for answer in ground_truth:
        name = next(iter(answer))
        function = _find(functions, name)
        first: BfclVerdict | None = None
        for index, call in enumerate(output):
            if index in used:
                continue
            verdict = _call(function, call, answer)
            if verdict.valid:
                used.add(index)
                break
            first = first or verdict
        else:
            found = first or BfclVerdict(False, "no_match", "", function=name)
            return BfclVerdict(
                False,
                found.kind,
                f"no call matches the answer for {name}: {found.message}",
                param=found.param,
                function=name,
            )
    return _OK


def _call(
    function: Mapping[str, Any],
    call: Mapping[str, Mapping[str, Any]],
    answer: Mapping[str, Mapping[str, Sequence[Any]]],
) -> BfclVerdict:
    name = str(function.get("name"))
    accepted = next(iter(answer.values()))
    if name not in call:
        return BfclVerdict(False, "wrong_func_name", f"{name} was not called", function=name)
    params = call[name]
    schema = function.get("parameters") or {}
    properties = schema.get("properties") or {}
    for required in schema.get("required") or ():
        if required not in params:
            return _fail("missing_required", f"{required} is required", required, name)
    for param, value in params.items():
        if param not in properties or param not in accepted:
            return _fail("unexpected_param", f"{param} is not expected", param, name)
        verdict = _parameter(name, param, value, properties[param], accepted[param])
        if not verdict.valid:
            return verdict
    for param, values in accepted.items():
        if param not in params and _OPTIONAL not in values:
            return _fail("missing_optional", f"{param} is expected", param, name)
    return _OK


def _parameter(
    name: str, param: str, value: Any, spec: Mapping[str, Any], accepted: Sequence[Any]
) -> BfclVerdict:
    kind = str(spec.get("type"))
    py_type = _PY_TYPES.get(kind)
    if py_type is None:
        return _fail("type_error", f"{param}: unknown BFCL type {kind!r}", param, name)
    item_type: type | None = None
    if kind in _NESTED:
        items = spec.get("items") or {}
        item_type = _PY_TYPES.get(str(items.get("type")))
        if item_type is None:
            return _fail("type_error", f"{param}: unknown item type", param, name)
    if kind == "float" and type(value) is int:
        value = float(value)  # Python's own int-to-float leniency
    typed, variable = _type_ok(value, accepted, py_type, item_type)
    if not typed:
        return _fail(
            "type_error", f"{param}: expected {kind}, got {type(value).__name__}", param, name
        )
    if not variable:
        if py_type is dict:
            ok = _dict_ok(value, accepted)
        elif py_type is list and item_type is dict:
            ok = _list_of_dicts_ok(value, accepted)
        elif py_type is str:
            ok = _std(value) in [_std(a) for a in accepted if isinstance(a, str)]
        elif py_type is list:
            ok = _std_list(value) in [_std_list(a) for a in accepted if _indexable(a)]
        else:
            ok = value in accepted
    else:
        ok = value in accepted
    if not ok:
        return _fail("value_error", f"{param}: {value!r} is not accepted", param, name)
    return _OK


def _type_ok(
    value: Any, accepted: Sequence[Any], py_type: type, item_type: type | None
) -> tuple[bool, bool]:
    """(type is acceptable, value is a "variable": typed like the answers, not the schema)."""
    answer_type = _answer_type(accepted)
    variable = answer_type is not None and answer_type is not py_type
    if type(value) is py_type:
        if item_type is None:
            return True, variable
        sequence: Any = value
        for option in accepted:
            if not isinstance(option, list) or all(
                _item_type_ok(item, option, item_type) for item in sequence
            ):
                return True, variable
        return False, variable
    if answer_type is not None and type(value) is answer_type:
        return True, True
    return False, variable


def _item_type_ok(item: Any, accepted: Sequence[Any], item_type: type) -> bool:
    if type(item) is item_type:
        return True
    answer_type = _answer_type(accepted)
    return answer_type is not None and type(item) is answer_type


def _answer_type(accepted: Sequence[Any]) -> type | None:
    for option in accepted:
        if not (isinstance(option, str) and option == _OPTIONAL):
            return type(option)
    return None


def _dict_ok(value: Mapping[str, Any], accepted: Sequence[Any]) -> bool:
    for option in accepted:
        if isinstance(option, str) and option == _OPTIONAL:
            continue
        if not isinstance(option, Mapping):
            continue
        if _one_dict_ok(value, option):
            return True
    return False


def _one_dict_ok(value: Mapping[str, Any], option: Mapping[str, Any]) -> bool:
    for key, item in value.items():
        if key not in option:
            return False
        wanted = [_std(a) if isinstance(a, str) else a for a in option[key]]
        if (_std(item) if isinstance(item, str) else item) not in wanted:
            return False
    return all(key in value or _OPTIONAL in values for key, values in option.items())


def _list_of_dicts_ok(value: Sequence[Any], accepted: Sequence[Any]) -> bool:
    for option in accepted:
        if not _indexable(option) or len(value) != len(option):
            continue
        if all(_dict_ok(item, [option[i]]) for i, item in enumerate(value)):
            return True
    return False


def _indexable(value: Any) -> bool:
    return isinstance(value, list | tuple | str)


def _std(text: str) -> str:
    return _STRIP.sub("", text).lower().replace("'", '"')


def _std_list(values: Sequence[Any]) -> list[Any]:
    return [_std(v) if isinstance(v, str) else v for v in values]


def _fail(kind: str, message: str, param: str | None, function: str) -> BfclVerdict:
    return BfclVerdict(False, kind, message, param=param, function=function)
