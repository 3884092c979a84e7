"""Bundled encoders: the calibration names its encoder, and the default reads Korean and Chinese."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_sdk import EmbeddingRouter, RouterError

from .._router_extra import requires_minilm_extra, requires_router_extra


def _tool(name: str, description: str, parameter: str, kind: str = "string") -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {parameter: {"type": kind}},
                "required": [parameter],
            },
        },
    }


TOOLBOX = [
    _tool("send_email", "Send an email to a recipient.", "to"),
    _tool("get_stock_price", "Latest stock price for a ticker symbol.", "ticker"),
    _tool("get_weather", "Current weather for a city.", "city"),
    _tool("convert_currency", "Convert an amount between currencies.", "amount", "number"),
]


def user(content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


def test_bundled_calibrations_name_their_encoders() -> None:
    from toolcall_sdk.routing.embedding import DEFAULT_ENCODER, ENCODERS
    from toolcall_sdk.routing.embedding._router import BUNDLED_CALIBRATIONS

    assert DEFAULT_ENCODER == "use-multilingual"
    assert set(BUNDLED_CALIBRATIONS) == set(ENCODERS)
    for encoder, path in BUNDLED_CALIBRATIONS.items():
        assert json.loads(path.read_text())["encoder"] == encoder


@requires_router_extra
@pytest.mark.parametrize(
    ("request_text", "tool_name"),
    [
        ("서울 날씨 어때요?", "get_weather"),
        ("首尔今天天气怎么样？", "get_weather"),  # noqa: RUF001 (Chinese punctuation)
        ("100달러를 유로로 환전해 주세요", "convert_currency"),
        ("给张伟发一封邮件", "send_email"),
    ],
)
def test_the_default_encoder_reads_korean_and_chinese(request_text: str, tool_name: str) -> None:
    decision = EmbeddingRouter().decide(user(request_text), TOOLBOX)
    assert decision.tools[0] == tool_name
    assert EmbeddingRouter().calibration.encoder == "use-multilingual"


@requires_router_extra
def test_a_calibration_is_used_only_with_its_encoder(tmp_path: Path) -> None:
    from toolcall_sdk.routing.embedding._router import BUNDLED_CALIBRATIONS

    router = EmbeddingRouter(BUNDLED_CALIBRATIONS["minilm"], encoder="use-multilingual")
    with pytest.raises(RouterError, match=r"fitted with the encoder 'minilm'.*encoder='minilm'"):
        router.decide(user("Weather in Oslo?"), TOOLBOX)
    # Saved and loaded, a calibration keeps its encoder, and the router follows it.
    EmbeddingRouter().save(tmp_path / "router.json")
    assert EmbeddingRouter.load(tmp_path / "router.json").encoder_name == "use-multilingual"


def test_a_file_from_before_encoders_had_names_is_minilm(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="numpy comes with the router extra, not installed here")
    from toolcall_sdk.routing.embedding._calibration import Calibration

    old = {
        "format": "toolcall-sdk/embedding-router-calibration/v1",
        "feature_names": ["cos_max"],
        "mean": [0.5],
        "scale": [0.25],
        "weights": [1.5],
        "bias": -0.2,
        "threshold": 0.4,
        "info": {},
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert Calibration.load(path).encoder == "minilm"
    router = EmbeddingRouter(path, encoder=lambda texts: [[1.0] for _ in texts])
    assert router.calibration.encoder == "minilm"


@requires_minilm_extra
def test_minilm_stays_available_with_its_own_calibration() -> None:
    router = EmbeddingRouter(encoder="minilm")
    assert router.calibration.encoder == "minilm"
    decision = router.decide(user("What's the weather in Oslo right now?"), TOOLBOX)
    assert decision.call is True
    assert decision.tools[0] == "get_weather"
