"""`_next_calls`: the text a continuation starts from, the calls read from what follows,
and which of them join the answer (the cases are the 0.5B's own continuations, from
`benchmarks/next_call_probe.py` on BFCL)."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk._next_calls import (
    continuation,
    continued_calls,
    continued_format,
    continued_request,
    kept,
    lists_more,
    names_another,
    states_another_number,
)


@pytest.mark.parametrize(
    ("model", "fmt"),
    [
        ("Qwen/Qwen2.5-Coder-1.5B-Instruct", "qwen25_coder"),
        ("Qwen/Qwen2.5-7B-Instruct", "hermes"),
        ("meta-llama/Llama-3.2-3B-Instruct", None),
        ("my-model", None),
    ],
)
def test_the_format_comes_from_the_model_family(model: str, fmt: str | None) -> None:
    assert continued_format(model) == fmt


def test_a_fenced_continuation_reads_every_call_the_model_wrote() -> None:
    text = continuation("qwen25_coder", [("f", {"x": 1})], "f")
    assert text.endswith('```json\n{\n  "name": "f",\n  "arguments":')
    written = ' {\n    "x": 2\n  }\n}\n```\n```json\n{"name": "f", "arguments": {"x": 3}}\n```'
    written += '\n```json\n{"name": "g", "arguments": {"x": 4}}\n```\nThen 5.'
    assert continued_calls("qwen25_coder", "f", written) == [{"x": 2}, {"x": 3}]


def test_a_value_written_bare_is_no_call() -> None:
    # What the 0.5B wrote after an opening that ended in a space.
    assert continued_calls("qwen25_coder", "f", ' 10,\n  "units": "meters"\n}\n```') == []


@pytest.mark.parametrize(
    ("request_text", "first", "new", "joins"),
    [
        pytest.param(
            "Play Taylor Swift for 20 minutes and Maroon 5 for 15 minutes.",
            {"artist": "Taylor Swift", "duration": 20},
            {"artist": "Maroon 5", "duration": 15},
            True,
            id="listed",
        ),
        pytest.param(
            "Get directions from Sydney to Melbourne using the fastest route.",
            {"start": "Sydney", "end": "Melbourne", "route_type": "fastest"},
            {"start": "Sydney", "end": "Melbourne", "route_type": "scenic"},
            False,
            id="a-value-nobody-gave",
        ),
        pytest.param(
            "Predict the house prices for the next month in New York.",
            {"location": "New York", "months": 1},
            {"location": "New York", "months": 2},
            False,
            id="a-number-nobody-gave",
        ),
        pytest.param(
            "Find the highest common factor of 36 and 24.",
            {"number1": 36, "number2": 24},
            {"number1": 24, "number2": 36},
            False,
            id="a-swap",
        ),
        pytest.param(
            "Get me data on precipitation in the Amazon for the last six months and last year.",
            {"location": "Amazon", "time_frame": "six_months"},
            {"location": "Amazon", "time_frame": "year"},
            True,
            id="a-word-stated",
        ),
        pytest.param(
            "The integral of x^2 - 1 from 0 to 3, and from 1 to 2.",
            {"polynomial": [1, 0, -1], "limits": [0, 3]},
            {"polynomial": [1, 0, -1], "limits": [1, 2]},
            True,
            id="a-list",
        ),
        pytest.param(
            "A neuron cell in detail, then a muscle cell.",
            {"cell": "neuron", "detailed": True},
            {"cell": "muscle", "detailed": False},
            False,
            id="a-boolean-is-never-stated",
        ),
        pytest.param(
            "The factorial of 5.",
            {"number": 5},
            {"number": 5.0},
            False,
            id="a-repeat",
        ),
    ],
)
def test_a_continued_call_joins_only_with_new_stated_values(
    request_text: str, first: dict[str, Any], new: dict[str, Any], joins: bool
) -> None:
    assert kept(first, [first], new, request_text) is joins


def test_a_value_an_earlier_continued_call_used_is_not_new() -> None:
    request_text = "The factorial of 5, 10 and 15."
    earlier = [{"number": 5}, {"number": 10}]
    assert not kept({"number": 5}, earlier, {"number": 10}, request_text)
    assert kept({"number": 5}, earlier, {"number": 15}, request_text)


def test_the_request_continues_the_assistant_turn_as_text() -> None:
    params = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "tool_choice": "required",
        "parallel_tool_calls": True,
        "response_format": {"type": "structural_tag"},
        "extra_body": {"top_k": 1, "structured_outputs": {"json": {}}},
        "max_tokens": 50,
    }
    request = continued_request(params, "opening")
    assert request == {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "opening"},
        ],
        "tools": params["tools"],
        "tool_choice": "none",
        "extra_body": {"top_k": 1, "continue_final_message": True, "add_generation_prompt": False},
        "max_tokens": 50,
    }


@pytest.mark.parametrize(
    ("request_text", "calls", "another"),
    [
        ("The factorial of 5, 10 and 15.", [{"number": 5}], True),
        ("The factorial of 5, 10 and 15.", [{"number": n} for n in (5, 10, 15)], False),
        (
            "Invoice CUS-000042 for 12.5 million VND.",
            [{"id": "CUS-000042", "amount": 12500000}],
            False,
        ),
        ("Rates of USD to AUD and USD to CAD.", [{"base": "USD", "target": "AUD"}], False),
        ("Invoice cus 872835, due 2027-01-20.", [{"id": "CUS-872835", "due": "2027-01-20"}], False),
        ("Cancel INV-414842, it was issued twice.", [{"id": "INV-414842"}], False),
        ("Accelerated at 4 m/s^2 over 30 m.", [{"a": 4, "d": 30}], False),
        ("Accelerated at 4 m/s^2 over 30 m and 50 m.", [{"a": 4, "d": 30}], True),
    ],
    ids=[
        "left-out",
        "all-used",
        "read-in-any-form",
        "names-only",
        "digits-inside-a-string",
        "a-number-in-words",
        "an-exponent",
        "after-an-exponent",
    ],
)
def test_another_number_is_one_no_call_has_among_its_readings(
    request_text: str, calls: list[dict[str, Any]], another: bool
) -> None:
    assert states_another_number(calls, request_text) is another


@pytest.mark.parametrize(
    ("request_text", "calls", "another"),
    [
        ("Concerts near Berlin and Paris next Friday.", [{"city": "Berlin"}], True),
        ("Concerts near Berlin and Paris.", [{"city": "Berlin"}, {"city": "Paris"}], False),
        (
            "News on 'Climate Change' and 'Artificial Intelligence'.",
            [{"t": "Climate Change"}],
            True,
        ),
        ("Rates of USD to AUD or CAD.", [{"base": "USD", "target": "AUD"}], True),
        ("Rates of USD to AUD and USD to CAD.", [{"base": "USD", "target": "AUD"}], True),
        (
            "Between New York City and Washington D.C.",
            [{"a": "New York City", "b": "Washington D.C."}],
            False,
        ),
        ("Directions avoiding highways and toll roads.", [{"avoid": "highways"}], False),
        ("Weather in Berlin, Germany.", [{"city": "Berlin"}], False),
        ("weather and Paris", [{"topic": "weather"}], False),
        ("Weather in Berlin and then book a table.", [{"city": "Berlin"}], False),
    ],
    ids=[
        "listed",
        "all-used",
        "quoted",
        "or",
        "a-pair-after-and",
        "two-fields-of-one-call",
        "lower-case",
        "a-comma-alone",
        "lower-case-at-the-start",
        "a-sentence-goes-on",
    ],
)
def test_another_name_is_listed_beside_one_a_call_used(
    request_text: str, calls: list[dict[str, Any]], another: bool
) -> None:
    assert names_another(calls, request_text) is another


def test_lists_more_is_either() -> None:
    assert lists_more([{"number": 5}], "The factorial of 5 and 7.")
    assert lists_more([{"city": "Berlin"}], "Berlin and Paris")
    assert not lists_more([{"number": 5}], "The factorial of 5.")
    assert not lists_more([{"number": 5}], "")
