"""The small-model replay corpus through `client.call(recover=True)`, both twins.

`data/small_model_replays.jsonl`: answers written by hand in the styles open 1-9B models
use for BFCL-like questions, each with what the model meant (see `benchmarks/replays.py`,
which prints the table). Every right answer must be read as exactly the calls meant, on the
first attempt; every wrong one must be rejected with the expected problem, so nothing runs.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.replays import Replay, load_replays, load_tools, replay
from toolcall_sdk.testing import ScriptedModel

from ..conftest import ClientFactory

REPLAYS = load_replays()
TOOLS = load_tools()


def test_the_corpus_covers_every_style() -> None:
    assert 40 <= len(REPLAYS) <= 80
    styles = {case.style for case in REPLAYS}
    assert {
        "xlam-envelope",
        "xlam-list",
        "glm4-name-line",
        "bare-pythonic",
        "fenced",
        "hermes-python-dict",
        "dotted-name",
    } <= styles
    assert sum(case.calls is None for case in REPLAYS) >= 15  # wrong answers too
    assert all(set(case.tools) <= set(TOOLS) for case in REPLAYS)


@pytest.mark.parametrize("case", REPLAYS, ids=[case.id for case in REPLAYS])
def test_replay(make_client: ClientFactory, case: Replay) -> None:
    def factory(model: ScriptedModel, tools: list[Any], *, model_id: str) -> Any:
        return make_client(model, tools, model_id=model_id, max_retries=0, recover=True)

    outcome = replay(case, TOOLS, factory)

    assert outcome.passed, outcome.got
