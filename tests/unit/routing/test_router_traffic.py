"""Learning from traffic: recorded decisions and eval cases as labelled routing cases (JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import EmbeddingRouter, RouteDecision, RouterError, tool
from toolcall_sdk.routing import decision_record, read_routing_cases

from .._router_extra import requires_router_extra

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def user(content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_recorded_decision_reads_back_once_labelled(tmp_path: Path) -> None:
    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return city

    decision = RouteDecision(call=True, tools=["get_weather"], score=0.8, router="embedding")
    labelled = decision_record(user("Weather in Oslo?"), [get_weather], decision, should_call=True)
    pending = decision_record(user("hi"), [get_weather], decision)  # not labelled yet

    # A @tool is stored as its OpenAI dict (the schema the SDK builds for it).
    (stored,) = labelled["tools"]
    assert stored["function"]["name"] == "get_weather"
    assert stored["function"]["description"] == "Current weather for a city."
    assert stored["function"]["parameters"]["required"] == ["city"]
    assert labelled["decision"] == {
        "call": True,
        "tools": ["get_weather"],
        "score": 0.8,
        "router": "embedding",
    }
    cases = read_routing_cases(_write(tmp_path / "decisions.jsonl", [labelled, pending]))
    assert cases == [(user("Weather in Oslo?"), [stored], True)]


def test_eval_case_lines_are_labelled_by_their_expected_calls(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "messages": user("Weather in Oslo?"), "tools": [WEATHER],
         "expected": {"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}},
        {"id": "b", "messages": user("Tell me a joke"), "tools": [WEATHER],
         "expected": {"calls": []}},
    ]  # fmt: skip
    cases = read_routing_cases(_write(tmp_path / "cases.jsonl", rows))
    assert [label for _, _, label in cases] == [True, False]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"messages": [], "tools": "tools.py:TOOLS", "expected": {"calls": []}}', "allow_code"),
        ("not json", "not JSON"),
        ('{"tools": []}', "'messages' list"),
        ('{"messages": [], "tools": [], "should_call": "yes"}', "true, false or null"),
    ],
)
def test_unreadable_lines_name_the_line_and_the_fix(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RouterError, match=message) as info:
        read_routing_cases(path)
    assert f"{path}:1" in str(info.value)


def test_a_missing_file_is_a_router_error(tmp_path: Path) -> None:
    with pytest.raises(RouterError, match="cannot read routing cases"):
        read_routing_cases(tmp_path / "missing.jsonl")


@requires_router_extra
def test_refresh_moves_the_calibration_only_as_far_as_the_traffic_asks(tmp_path: Path) -> None:
    weather = [WEATHER]
    cases = [
        (user(f"weather for {city}"), weather, True) for city in ("oslo", "hanoi", "lima", "quito")
    ]
    cases += [(user(t), weather, False) for t in ("Hi", "Thanks!", "Who are you?", "ok", "bye")]
    bundled = EmbeddingRouter().calibration

    held = EmbeddingRouter().refresh(cases, strength=1e9, min_recall=1.0, note="held")
    free = EmbeddingRouter().refresh(cases, strength=0.1, min_recall=1.0, note="free")

    assert (
        held.calibration.feature_names == free.calibration.feature_names == (bundled.feature_names)
    )
    assert held.calibration.scale == bundled.scale  # the scaling stays the prior's
    assert held.calibration.weights == pytest.approx(bundled.weights, abs=1e-6)
    assert free.calibration.weights != pytest.approx(bundled.weights, abs=1e-3)
    assert free.calibration.info["refreshed"] == {"note": "free", "cases": 9, "calls": 4}
    assert free.calibration.encoder == bundled.encoder
    # min_recall=1.0: every "call" case of the traffic is kept by the new threshold.
    assert all(free.decide(m, t).call for m, t, label in cases if label)
    with pytest.raises(ValueError, match="strength must be more than 0"):
        EmbeddingRouter().refresh(cases, strength=0.0)
    path = tmp_path / "refreshed.json"
    free.save(path)
    assert EmbeddingRouter.load(path).calibration.info["refreshed"]["note"] == "free"
