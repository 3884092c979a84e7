"""Each class name means one thing in the whole package."""

from __future__ import annotations

import collections
import importlib
import pkgutil

import pytest

import toolcall_sdk
import toolcall_sdk.parsing


def test_no_two_classes_share_a_name() -> None:
    # `Answer` was a pipeline answer and a rendered completion; `CallStarted` a hook event and
    # a parser event. A reader (or a `from ... import`) must not have to ask which one. A
    # private class may share its name with another module's private one (each is local),
    # never with a class the package shows (`_PendingCall` next to `PendingCall`).
    shown: dict[str, set[str]] = collections.defaultdict(set)
    private: dict[str, set[str]] = collections.defaultdict(set)
    for module in pkgutil.walk_packages(toolcall_sdk.__path__, "toolcall_sdk."):
        try:
            loaded = importlib.import_module(module.name)
        except ImportError:  # an optional dependency (vllm) this machine lacks
            continue
        for name, value in vars(loaded).items():
            if isinstance(value, type) and value.__module__ == module.name:
                kind = private if name.startswith("_") else shown
                kind[name.lstrip("_")].add(module.name)
    assert {name: sorted(where) for name, where in shown.items() if len(where) > 1} == {}
    assert {name: sorted(private[name]) for name in set(private) & set(shown)} == {}


@pytest.mark.parametrize(
    ("old", "new"), [("CallStarted", "ParsedCallStarted"), ("CallFinished", "ParsedCallFinished")]
)
def test_the_parser_events_old_names_still_work_with_a_warning(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=new):
        value = getattr(toolcall_sdk.parsing, old)
    assert value is getattr(toolcall_sdk.parsing, new)
    assert old not in toolcall_sdk.parsing.__all__
