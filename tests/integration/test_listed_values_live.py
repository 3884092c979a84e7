"""Every call a request asks for, on the real 0.5B: the left-out calls completed.

At temperature 0 the demo model answers a request that lists several values with one call
(BFCL `parallel`: one call for nearly every request). With `listed_values="complete"` each
left-out call is asked for in a named request with its listed value held; with
`"continue"` the answer is sent back with the opening of another call and the model writes
the rest; `"continue_listed"` does that only where the request states a value the answer's
calls left out. The tests assert the requests and the calls, never a rate.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import ToolCallClient, tool
from toolcall_sdk._listed_values import ListedValues
from toolcall_sdk.launcher import Server

from .conftest import MODEL


@tool
def math_factorial(number: int) -> int:
    """Calculate the factorial of a number."""
    result = 1
    for k in range(2, number + 1):
        result *= k
    return result


@tool
def spotify_play(artist: str, duration: int) -> str:
    """Play songs from an artist on Spotify for a number of minutes."""
    return f"playing {artist} for {duration} minutes"


# Requests that list values, each with the tools offered and the calls it asks for.
LISTED = [
    (
        [math_factorial],
        "What is the factorial of 5, 10 and 15?",
        [{"number": 5}, {"number": 10}, {"number": 15}],
    ),
    (
        [spotify_play],
        "Play songs from Taylor Swift for 20 minutes and Maroon 5 for 15 minutes on Spotify.",
        [{"artist": "Taylor Swift", "duration": 20}, {"artist": "Maroon 5", "duration": 15}],
    ),
]


def _call(server: Server, tools: list[Any], prompt: str, mode: ListedValues) -> Any:
    client = ToolCallClient(
        base_url=server.base_url,
        model=MODEL,
        tools=tools,
        router="always",
        max_tokens=100,
        listed_values=mode,
    )
    return client.call(prompt)


@pytest.mark.parametrize(
    ("tools", "prompt", "calls"),
    LISTED,
    ids=["factorial", "spotify"],
)
def test_each_listed_value_gets_its_call(
    demo_server: Server, tools: list[Any], prompt: str, calls: list[dict[str, Any]]
) -> None:
    alone = _call(demo_server, tools, prompt, "off")
    completed = _call(demo_server, tools, prompt, "complete")

    assert [c.arguments.model_dump() for c in alone.calls] == calls[:1]
    assert [c.arguments.model_dump() for c in completed.calls] == calls
    name = tools[0].name
    named = {"type": "function", "function": {"name": name}}
    assert [a.request.tool_choice for a in completed.attempts] == [named] * len(calls)


@pytest.mark.parametrize(
    ("tools", "prompt", "calls"),
    [*LISTED, ([math_factorial], "What is the factorial of 7?", [{"number": 7}])],
    ids=["factorial", "spotify", "one-asked"],
)
def test_the_continued_answer_writes_each_call_asked_for_and_no_other(
    demo_server: Server, tools: list[Any], prompt: str, calls: list[dict[str, Any]]
) -> None:
    continued = _call(demo_server, tools, prompt, "continue")

    # One request for the answer, one to continue it: the 0.5B writes the other calls
    # there, and where one was asked it writes {"number": 10}, which the request never
    # states, so it is dropped.
    assert [c.arguments.model_dump() for c in continued.calls] == calls
    named = {"type": "function", "function": {"name": tools[0].name}}
    assert [a.request.tool_choice for a in continued.attempts] == [named, "none"]


@pytest.mark.parametrize(
    ("tools", "prompt", "calls"),
    [LISTED[0], ([math_factorial], "What is the factorial of 7?", [{"number": 7}])],
    ids=["listed", "one-asked"],
)
def test_continue_listed_continues_only_where_the_request_states_more(
    demo_server: Server, tools: list[Any], prompt: str, calls: list[dict[str, Any]]
) -> None:
    answer = _call(demo_server, tools, prompt, "continue_listed")

    assert [c.arguments.model_dump() for c in answer.calls] == calls
    named = {"type": "function", "function": {"name": tools[0].name}}
    # "the factorial of 7" states nothing the call left out: no continuation is sent.
    expected = [named, "none"] if len(calls) > 1 else [named]
    assert [a.request.tool_choice for a in answer.attempts] == expected
