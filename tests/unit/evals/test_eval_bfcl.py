"""BFCL scoring: our checker against BFCL's own `ast_checker`, and BFCL cases in the runner."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolcall_sdk.bfcl._checker import bfcl_check, ground_truth_as_output

# Found, not imported: importing bfcl_eval at collection would leak it into every test
# (test_bfcl_data checks that loading data never imports it).
if importlib.util.find_spec("bfcl_eval") is None:
    pytest.skip(
        "bfcl-eval is not installed (pip install --no-deps bfcl-eval==2026.3.23)",
        allow_module_level=True,
    )

from toolcall_sdk.bfcl import load_category

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")
# The acceptance bar: same pass/fail on at least 99% of each category.
MIN_AGREEMENT = 0.99


@pytest.fixture(scope="module")
def official() -> Iterator[Callable[..., dict[str, Any]]]:
    """BFCL's `ast_checker`, imported with a stand-in for its provider-SDK model config."""

    class _Config:
        underscore_to_dot = False  # names are checked as BFCL writes them

    class _Mapping(dict[str, Any]):
        def __missing__(self, key: str) -> _Config:
            return _Config()

    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = _Mapping()  # type: ignore[attr-defined]
    before = set(sys.modules)
    sys.modules[stub.__name__] = stub
    try:
        module = importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
        language = importlib.import_module("bfcl_eval.constants.enums").Language.PYTHON
    except ImportError as exc:  # pragma: no cover - depends on bfcl-eval's own imports
        pytest.skip(f"BFCL's checker does not import here: {exc}")

    def check(functions: Any, output: Any, truth: Any, category: str) -> dict[str, Any]:
        try:
            result: dict[str, Any] = module.ast_checker(
                functions, output, truth, language, category, "stub-model"
            )
        except Exception as exc:  # BFCL crashes on a few malformed answers: a fail
            return {"valid": False, "error": [repr(exc)]}
        return result

    yield check
    # Unload BFCL (and the stub) again so later tests see a process without it.
    for name in set(sys.modules) - before:
        if name.startswith("bfcl_eval"):
            del sys.modules[name]


def _variants(truth: list[dict[str, Any]]) -> Iterator[list[dict[str, dict[str, Any]]]]:
    """The ground truth fed back, then perturbed ways a model gets it wrong."""
    exact = ground_truth_as_output(truth)
    yield exact
    yield exact[:-1]  # one call short
    for index, call in enumerate(exact):
        name, args = next(iter(call.items()))
        for param, value in args.items():
            changed = dict(args)
            if isinstance(value, bool):
                changed[param] = not value
            elif isinstance(value, int):
                changed[param] = float(value) if index % 2 else value + 1
            elif isinstance(value, float):
                changed[param] = int(value) if value.is_integer() else value * 2
            elif isinstance(value, str):
                changed[param] = value.upper() + " " if index % 2 else value + "x"
            elif isinstance(value, list):
                changed[param] = value[:-1]
            else:
                changed[param] = {}
            yield [*exact[:index], {name: changed}, *exact[index + 1 :]]
            break
        yield [*exact[:index], {name: {**args, "unexpected_arg": 1}}, *exact[index + 1 :]]
    yield list(reversed(exact))  # parallel calls in another order


@pytest.mark.parametrize("category", CATEGORIES)
def test_checker_agrees_with_bfcl(category: str, official: Callable[..., dict[str, Any]]) -> None:
    agree = total = passed_truth = 0
    disagreements: list[str] = []
    for case in load_category(category):
        assert case.ground_truth is not None
        for number, output in enumerate(_variants(case.ground_truth)):
            ours = bfcl_check(case.functions, output, case.ground_truth, category).valid
            theirs = bool(official(case.functions, output, case.ground_truth, category)["valid"])
            total += 1
            if number == 0:
                passed_truth += ours
            if ours == theirs:
                agree += 1
            else:
                disagreements.append(f"{case.id}#{number}: ours={ours} bfcl={theirs}")
    cases = len(load_category(category))
    assert agree / total >= MIN_AGREEMENT, disagreements[:10]
    # Fed its own ground truth, BFCL passes almost everything (a few answer quirks).
    assert passed_truth / cases >= 0.97


def test_bfcl_cases_score_with_bfcl_rules() -> None:
    from toolcall_sdk.evals import EvalSettings, run_eval_sync
    from toolcall_sdk.evals._bfcl_cases import bfcl_cases
    from toolcall_sdk.testing import ScriptedModel, tool_call

    [case] = [c for c in bfcl_cases("simple_python") if c.id == "simple_python_0"]
    [expected] = case.expected
    [(name, args)] = ground_truth_as_output([{expected.name: dict(expected.accept)}])[0].items()
    # Case and punctuation differences in strings pass under BFCL's rules.
    shouted = {k: (v.upper() + "." if isinstance(v, str) else v) for k, v in args.items()}
    model = ScriptedModel([tool_call(name, shouted), tool_call(name, {})])
    settings = EvalSettings(base_url=model.base_url, model="m")
    records = run_eval_sync(
        [case, case.__class__(**{**_fields(case), "id": "again"})],
        settings,
        pipelines=["auto"],
        transport=model.transport(),
        concurrency=1,
    )
    assert [r["verdict"] for r in records] == ["pass", "wrong_args"]
    assert records[1]["message"].endswith("missing_required")
    assert case.category == "bfcl/simple_python"


def _fields(case: Any) -> dict[str, Any]:
    return {name: getattr(case, name) for name in case.__slots__}


def test_unsupported_category_is_a_clear_error() -> None:
    from toolcall_sdk.evals._bfcl_cases import bfcl_cases

    with pytest.raises(ValueError, match=r"simple_java.*not supported"):
        bfcl_cases("simple_java")


def test_matcher_maps_dotted_names_both_ways() -> None:
    from toolcall_sdk.evals import ExpectedCall, MadeCall
    from toolcall_sdk.evals._bfcl_cases import bfcl_matcher

    functions = [
        {
            "name": "math.hypot",
            "parameters": {
                "type": "dict",
                "properties": {"x": {"type": "integer"}, "y": {"type": "float"}},
                "required": ["x"],
            },
        }
    ]
    match = bfcl_matcher(functions, "simple_python", {"math_hypot": "math.hypot"})
    expected = [ExpectedCall("math_hypot", {"x": [3], "y": [4.0, ""]})]
    assert match(expected, [MadeCall("math_hypot", {"x": 3, "y": 4})]) is None  # int for float
    missing = match(expected, [MadeCall("math_hypot", {"y": 4.0})])
    assert missing is not None
    assert (missing.kind, missing.field, missing.tool) == ("wrong_args", "x", "math_hypot")
    other = match(expected, [MadeCall("math_sqrt", {"x": 3})])
    assert other is not None
    assert other.kind == "wrong_tool"


def test_limit_spreads_over_a_bfcl_category_and_its_sub_groups() -> None:
    from toolcall_sdk.evals._cli import gather_cases

    # No sub-groups: the cases are spaced over the file (it runs topic by topic).
    picked = gather_cases([], "simple_python,irrelevance", limit=4)
    assert [c.id for c in picked] == [
        "simple_python_0",
        "simple_python_100",
        "simple_python_200",
        "simple_python_300",
        "irrelevance_0",
        "irrelevance_60",
        "irrelevance_120",
        "irrelevance_180",
    ]
    # live_* ids are `live_simple_<case>-<group>-<n>`: one case from each of 10 groups
    # spaced over the 138 there are, not the first 10 cases (which share a few groups).
    live = gather_cases([], "live_simple", limit=10)
    groups = [int(c.id.split("-")[1]) for c in live]
    assert len(set(groups)) == 10
    assert groups == sorted(groups)
    assert groups[-1] > 100
