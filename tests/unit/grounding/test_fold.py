"""Finding a value's letters and words in a text, case, accents and separators aside."""

from __future__ import annotations

import pytest

from toolcall_sdk.grounding._fold import Letters, fold, squeeze, words_of


def letters(text: str) -> Letters:
    return Letters(fold(text))


def test_folding_takes_case_and_accents_off() -> None:
    assert fold("Huế, Đà Nẵng, Thủ Đức") == "hue, da nang, thu duc"


@pytest.mark.parametrize("written", ["CUS-000042", "cus 000042", "CUS000042", "Cus_000042."])
def test_an_identifier_is_found_across_separators(written: str) -> None:
    assert letters(f"Bill {written} today").has_chars(squeeze("CUS-000042"))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("invoice INV-2024-77", "INV-2024-7"),  # a shorter id is not inside a longer one
        ("invoice INV-2024-7", "INV-2024-77"),
        ("order XCUS-000042", "CUS-000042"),
        ("customer CUS-000024", "CUS-000042"),
        ("nothing here", "---"),  # no letters or digits: nothing to find
    ],
)
def test_an_identifier_is_not_found_where_it_is_not_whole(text: str, value: str) -> None:
    assert not letters(text).has_chars(squeeze(value))


def test_words_may_be_apart_but_not_run_together() -> None:
    assert letters("ship to ho-chi-minh city").has_words(words_of("Ho Chi Minh City"))
    assert letters("ship to Hồ Chí Minh").has_words(words_of("ho chi minh"))
    assert not letters("ship to hochiminh").has_words(words_of("Ho Chi Minh"))
    assert not letters("ship to Ho Chi Minh").has_words(words_of("Hochiminh"))
    assert not letters("ship to Hanoi").has_words(words_of("Hue"))
