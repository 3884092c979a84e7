"""canitoolcall's conformance corpus through `toolcall_sdk.parsing`, judged by its own checks.

Every fixture of the corpus (469 recorded outputs of nine tool-call families) is replayed
whole and streamed, cut at arbitrary character boundaries under canitoolcall's seeded
chunkings, in both ways the SDK picks a format: by detection (`"auto"`) and by the model-id
table (`format_for(model_id)`, as the client does). `benchmarks/conformance.py` holds the
replay and prints the per-family table (docs/parsing.md).
"""

from __future__ import annotations

import pytest
from canitoolcall.fixtures import Fixture, load_families, load_fixtures
from canitoolcall.results import Status

from benchmarks.conformance import MODES, failures, judge

# Fixtures no text parser can pass, with the reason. A fixture listed here that starts to
# pass fails the run (strict xfail), so the list never hides a fixed case.
KNOWN_FAILURES = {
    "kimi/k3-control-marker-text-in-value": (
        "the string value holds the text of Kimi K3's own closing tags; only the token ids "
        "tell them from the real ones, and the parsers read text"
    ),
    "llama/l3-meta-python-tag-type-function": (
        'a Llama 3 call with a leading "type": "function" key: the call prefix the parser '
        'holds text back for is {"name": ..., "parameters":'
    ),
}
FIXTURES = load_fixtures()
FAMILIES = load_families()


def _cases() -> list[object]:
    return [
        pytest.param(
            fixture,
            marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[fixture.id])
            if fixture.id in KNOWN_FAILURES
            else (),
            id=fixture.id,
        )
        for fixture in FIXTURES
    ]


def test_the_corpus_is_the_one_the_figures_are_for() -> None:
    assert len(FIXTURES) == 469
    assert len(FAMILIES) == 9
    assert set(KNOWN_FAILURES) <= {f.id for f in FIXTURES}
    assert len(KNOWN_FAILURES) <= 0.03 * len(FIXTURES)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fixture", _cases())
def test_fixture_conforms(fixture: Fixture, mode: str) -> None:
    case = judge(fixture, FAMILIES.get(fixture.family), mode)
    assert case.status in (Status.PASS, Status.SOFT_PASS), failures([case])
