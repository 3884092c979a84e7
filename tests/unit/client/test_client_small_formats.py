"""What small models write outside the formats, read back by `call(recover=True)`.

The scripted server has no tool parser: every answer arrives as text. Each form is read as
a format (no repair) or as a recorded repair, and only where the offered tool names make it
safe; everything is validated as usual before anything runs.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import ContentDelta, StreamCompleted, ToolCallFailed, ToolCallStarted, tool
from toolcall_sdk.testing import ScriptedModel, text, tool_call

from ..conftest import ClientFactory, Ledger

HYPOT = {"x": 4, "y": 5}
THOUGHT = '{"thought": "", "tool_calls": [{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}]}'


@pytest.fixture
def math_hypot(ledger: Ledger) -> Any:
    @tool
    def math_hypot(x: int, y: int, z: int = 0) -> float:
        """Euclidean norm of a vector.

        Args:
            x: First coordinate.
            y: Second coordinate.
            z: Third coordinate.
        """
        ledger.calls.append(("math_hypot", {"x": x, "y": y, "z": z}))
        return float((x * x + y * y + z * z) ** 0.5)

    return math_hypot


@pytest.fixture
def math_factorial(ledger: Ledger) -> Any:
    @tool
    def math_factorial(number: int) -> int:
        """Factorial of a non-negative integer."""
        ledger.calls.append(("math_factorial", {"number": number}))
        return 1

    return math_factorial


@pytest.fixture
def tools(math_hypot: Any, math_factorial: Any) -> list[Any]:
    return [math_hypot, math_factorial]


@pytest.mark.parametrize(
    ("answer", "repairs"),
    [
        # xLAM-1 envelope, xLAM-2 list: the `xlam` format, no repair.
        ('{"tool_calls": [{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}]}', []),
        (THOUGHT, []),
        ('[{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}]', []),
        # GLM-4: the name on one line, the JSON arguments on the next.
        ('math_hypot\n{"x": 4, "y": 5}', ["math_hypot:name_line"]),
        # A bare Python call, the tool's dotted form as in Python's own library.
        ("math.hypot(x=4, y=5)", ["math_hypot:bare_call", "math_hypot:tool_name:math.hypot"]),
        ("math_hypot(x=4, y=5)", ["math_hypot:bare_call"]),
        # Markdown fences around any format.
        (
            '```json\n{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}\n```',
            ["math_hypot:fenced_code"],
        ),
        ("```python\n[math_hypot(x=4, y=5)]\n```", ["math_hypot:fenced_code"]),
        (
            "```python\nmath_hypot(x=4, y=5)\n```",
            ["math_hypot:fenced_code", "math_hypot:bare_call"],
        ),
        (
            '```tool_call\n{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}\n```',
            ["math_hypot:fenced_code"],
        ),
        # A Python dict inside a Hermes call.
        (
            "<tool_call>\n{'name': 'math_hypot', 'arguments': {'x': 4, 'y': 5}}\n</tool_call>",
            ["math_hypot:python_literal"],
        ),
        # A pythonic list (a format) whose name has dots: only the name is repaired.
        ("[math.hypot(x=4, y=5)]", ["math_hypot:tool_name:math.hypot"]),
    ],
    ids=[
        "xlam-envelope",
        "xlam-thought",
        "xlam-list",
        "glm4-name-line",
        "bare-dotted",
        "bare",
        "fence-json",
        "fence-pythonic-list",
        "fence-bare",
        "fence-tool-call",
        "hermes-python-dict",
        "pythonic-dotted",
    ],
)
def test_small_model_forms_are_read_and_recorded(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, answer: str, repairs: list[str]
) -> None:
    model = ScriptedModel([text(answer)])
    client = make_client(model, tools)

    result = client.run("What is the hypotenuse of a 4-5 right triangle?")

    assert [(c.name, c.arguments.model_dump()) for c in result.calls] == [
        ("math_hypot", {**HYPOT, "z": 0})
    ]
    (attempt,) = result.attempts
    assert attempt.parser_miss is True
    assert attempt.repairs == repairs
    assert attempt.ok
    assert ledger.count("math_hypot") == 1
    # The history holds the call under the offered name, as a real tool call.
    assert result.messages[-2]["tool_calls"][0]["function"]["name"] == "math_hypot"


def test_bare_calls_on_separate_lines_are_parallel_calls(
    make_client: ClientFactory, tools: list[Any]
) -> None:
    answer = "math.hypot(x=4, y=5)\nmath.factorial(number=5)"
    model = ScriptedModel([text(answer)])

    result = make_client(model, tools).call("Hypotenuse of 4 and 5, and 5 factorial?")

    assert [(c.name, c.id) for c in result.calls] == [
        ("math_hypot", "r00100000"),
        ("math_factorial", "r00100001"),
    ]
    assert result.attempts[0].repairs == [
        "math_hypot:bare_call",
        "math_factorial:bare_call",
        "math_hypot:tool_name:math.hypot",
        "math_factorial:tool_name:math.factorial",
    ]


def test_a_dotted_name_from_the_server_parser_is_repaired(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    model = ScriptedModel([tool_call("math.factorial", {"number": 5})])

    result = make_client(model, tools).run("5 factorial?")

    assert result.call.name == "math_factorial"
    assert result.attempts[0].parser_miss is False
    assert result.attempts[0].repairs == ["math_factorial:tool_name:math.factorial"]
    assert result.messages[-2]["tool_calls"][0]["function"]["name"] == "math_factorial"
    assert ledger.count("math_factorial") == 1


def test_streamed_answers_read_the_same(make_client: ClientFactory, tools: list[Any]) -> None:
    answer = "Sure.\n```python\nmath.hypot(x=4, y=5)\n```"
    whole = make_client(ScriptedModel([text(answer)]), tools).call("Hypotenuse?")
    streamed = make_client(ScriptedModel([text(answer)]), tools).call("Hypotenuse?", stream=True)

    assert streamed.calls == whole.calls
    assert streamed.content == whole.content == "Sure."
    assert streamed.attempts[0].repairs == whole.attempts[0].repairs


# What must stay text, or be caught before anything runs ----------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        # Mentions in prose, offered or not.
        "You could call math_hypot(x=4, y=5) to get it.",
        "Use foo(x=1) for that.",
        # A bare call or a name line of a tool that is not offered.
        "foo(x=1)",
        "math.sqrt(x=41)",
        'foo\n{"x": 1}',
        # Not keyword literals: nothing is evaluated, and nothing guessed.
        "math_hypot(4, 5)",
        "math_hypot(x=__import__('os').getcwd(), y=5)",
        "<tool_call>{'name': 'math_hypot', 'arguments': {'x': len('abcd'), 'y': 5}}</tool_call>",
        # A call drafted in reasoning, then a text answer.
        "<think>\nmath_hypot(x=4, y=5)\n</think>\nI cannot answer that.",
    ],
    ids=[
        "mention-offered",
        "mention-unknown",
        "bare-unknown",
        "bare-dotted-unknown",
        "name-line-unknown",
        "positional",
        "expression",
        "dict-expression",
        "drafted-in-think",
    ],
)
def test_text_that_is_no_call_is_bounced_as_no_call(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, answer: str
) -> None:
    model = ScriptedModel([text(answer), tool_call("math_hypot", HYPOT)])

    result = make_client(model, tools).run("Hypotenuse of 4 and 5?")

    first = result.attempts[0]
    assert first.parser_miss is False
    assert first.error_kinds == ["no_tool_call"]
    assert first.repairs == []
    assert ledger.count("math_hypot") == 1  # only the retry's call ran


def test_two_offered_tools_matching_a_dotted_name_is_an_unknown_tool(
    make_client: ClientFactory, ledger: Ledger
) -> None:
    @tool(name="math_hypot")
    def underscored(x: int, y: int) -> float:
        """Norm (underscored name)."""
        ledger.calls.append(("math_hypot", {}))
        return 0.0

    @tool(name="math-hypot")
    def hyphenated(x: int, y: int) -> float:
        """Norm (hyphenated name)."""
        ledger.calls.append(("math-hypot", {}))
        return 0.0

    model = ScriptedModel([text("math.hypot(x=4, y=5)"), tool_call("math_hypot", HYPOT)])

    result = make_client(model, [underscored, hyphenated]).run("Hypotenuse?")

    # Neither name is the one the model wrote, and which it meant is unknown: not read.
    assert result.attempts[0].error_kinds == ["no_tool_call"]
    assert ledger.calls == [("math_hypot", {})]

    server_parsed = ScriptedModel([tool_call("math.hypot", HYPOT)])
    with pytest.raises(ToolCallFailed) as failed:
        make_client(server_parsed, [underscored, hyphenated], max_retries=0).call("Hypotenuse?")
    (attempt,) = failed.value.attempts
    assert attempt.error_kinds == ["unknown_tool"]
    assert attempt.repairs == []
    assert "no tool named 'math.hypot'" in attempt.problems[0].message


def test_wrong_arguments_in_a_read_form_are_caught_before_running(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    model = ScriptedModel(
        [text('math_hypot\n{"x": "four", "y": 5}'), tool_call("math_hypot", HYPOT)]
    )

    result = make_client(model, tools).run("Hypotenuse of 4 and 5?")

    first = result.attempts[0]
    assert first.parser_miss is True
    assert first.repairs == ["math_hypot:name_line"]
    assert first.error_kinds == ["invalid_arguments"]
    feedback = model.calls_for("call")[1].messages[-1]
    assert feedback["role"] == "tool"
    assert feedback["tool_call_id"] == "r00100000"
    assert "x: Input should be a valid integer" in feedback["content"]
    assert ledger.calls == [("math_hypot", {"x": 4, "y": 5, "z": 0})]


def test_recovery_off_reads_no_small_model_form(
    make_client: ClientFactory, tools: list[Any]
) -> None:
    model = ScriptedModel([text("math_hypot(x=4, y=5)")])

    with pytest.raises(ToolCallFailed) as failed:
        make_client(model, tools, recover=False, max_retries=0).call("Hypotenuse?")

    assert failed.value.attempts[0].error_kinds == ["no_tool_call"]


def test_an_xlam_model_streams_its_calls_as_events(
    make_client: ClientFactory, tools: list[Any]
) -> None:
    answer = '[{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}]'
    model = ScriptedModel([text(answer)])
    client = make_client(model, tools, model_id="Salesforce/Llama-xLAM-2-8b-fc-r")

    events = list(client.stream("Hypotenuse?"))

    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.id, e.name) for e in started] == [("r00100000", "math_hypot")]
    assert not [e for e in events if isinstance(e, ContentDelta)]
    completed = events[-1]
    assert isinstance(completed, StreamCompleted)
    result = completed.result
    assert result.call.arguments.model_dump() == {**HYPOT, "z": 0}
    assert result.attempts[0].repairs == []


def test_recovered_bare_text_values_are_typed_by_the_offered_schemas(
    make_client: ClientFactory,
) -> None:
    @tool
    def lookup_zip(zip_code: str, radius_km: int) -> str:
        """Places near a postal code."""
        return zip_code

    leaked = (
        "<tool_call>\n<function=lookup_zip>\n<parameter=zip_code>\n10001\n</parameter>\n"
        "<parameter=radius_km>\n5\n</parameter>\n</function>\n</tool_call>"
    )
    model = ScriptedModel([text(leaked)])

    result = make_client(model, [lookup_zip]).call("Places near 10001?")

    # Read as JSON without the schema, the code would be the integer 10001: a wrong type.
    assert result.call.arguments.model_dump() == {"zip_code": "10001", "radius_km": 5}
    assert result.attempts[0].parser_miss is True
