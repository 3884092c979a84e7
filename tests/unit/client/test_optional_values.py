"""An optional free-text value nobody stated is left out where its tool documents the
default, before the call is validated; anything with footing in the conversation stays."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from toolcall_sdk import InvalidArgumentError, tool
from toolcall_sdk.grounding import Derived
from toolcall_sdk.testing import ScriptedModel, tool_call

from ..conftest import ClientFactory, Ledger

ASKED = "Find an acoustic instrument within my budget of $1000."
MAKE = "Maker of the instrument. Default to not use if not specified."


@pytest.fixture
def tools(ledger: Ledger) -> list[Any]:
    @tool
    def find_instrument(
        budget: int,
        type: Annotated[str, Field(description="Type of the instrument")],
        make: Annotated[str | None, Field(description=MAKE)] = None,
        finish: Annotated[str | None, Field(description="The finish of the body.")] = None,
        sort: Annotated[
            Literal["price", "rating"], Field(description="Sort order. Default is price.")
        ] = "price",
        store: Annotated[str, Field(description="Store to search. Default is 'online'.")] = (
            "online"
        ),
        tags: Annotated[list[str] | None, Field(description="Optional tags to filter by.")] = None,
        label: Annotated[str | None, Derived(), Field(description="Optional label.")] = None,
    ) -> str:
        """Find an instrument."""
        ledger.calls.append(
            (
                "find_instrument",
                {"make": make, "finish": finish, "store": store, "tags": tags, "label": label},
            )
        )
        return "found"

    return [find_instrument]


def asked(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_an_optional_value_nobody_gave_is_left_out_without_a_retry(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    # The 0.5B demo model's answer to BFCL simple_python_280.
    model = ScriptedModel(
        [tool_call("find_instrument", {"budget": 1000, "type": "acoustic", "make": "Fender"})]
    )
    client = make_client(model, tools)

    result = client.run(asked(ASKED))

    assert len(model.requests) == 1
    assert result.attempts[0].repairs == ["find_instrument:unstated_optional:/make"]
    assert result.calls[0].arguments.model_dump()["make"] is None
    assert ledger.calls == [
        (
            "find_instrument",
            {"make": None, "finish": None, "store": "online", "tags": None, "label": None},
        )
    ]


@pytest.mark.parametrize(
    ("said", "make"),
    [
        ("Find a Fender acoustic instrument within my budget of $1000.", "Fender"),
        # A word of the conversation that begins with the value's first three letters.
        ("Find an acoustic instrument by Yamahaa within my budget of $1000.", "Yamaha"),
        ("Find an acoustic instrument for women within my budget of $1000.", "Woman Music"),
    ],
)
def test_a_value_with_footing_in_the_conversation_is_kept(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger, said: str, make: str
) -> None:
    model = ScriptedModel(
        [tool_call("find_instrument", {"budget": 1000, "type": "acoustic", "make": make})]
    )

    result = make_client(model, tools).run(asked(said))

    assert result.attempts[0].repairs == []
    assert ledger.calls[0][1]["make"] == make


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("finish", "Rosewood"),  # its description says nothing of leaving it out
        ("sort", "rating"),  # a fixed choice
        ("store", "online"),  # the field's own default
        ("label", "Staff pick"),  # Derived(): the model works it out
        ("type", "electric"),  # required
    ],
)
def test_values_the_rule_does_not_judge_are_kept(
    make_client: ClientFactory, tools: list[Any], field: str, value: str
) -> None:
    arguments = {"budget": 1000, "type": "acoustic", field: value}
    model = ScriptedModel([tool_call("find_instrument", arguments)])

    result = make_client(model, tools).run(asked(ASKED))

    assert result.attempts[0].repairs == []
    assert getattr(result.calls[0].arguments, field) == value


def test_a_list_is_left_out_only_when_none_of_its_items_is_stated(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    model = ScriptedModel(
        [
            tool_call("find_instrument", {"budget": 1000, "type": "acoustic", "tags": ["vintage"]}),
            tool_call(
                "find_instrument",
                {"budget": 1000, "type": "acoustic", "tags": ["vintage", "acoustic"]},
            ),
        ]
    )
    client = make_client(model, tools)

    first = client.run(asked(ASKED))
    second = client.run(asked(ASKED))

    assert first.attempts[0].repairs == ["find_instrument:unstated_optional:/tags"]
    assert second.attempts[0].repairs == []
    assert [entry[1]["tags"] for entry in ledger.calls] == [None, ["vintage", "acoustic"]]


def test_a_tool_result_states_values_for_the_next_call(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    messages: list[dict[str, Any]] = [
        *asked(ASKED),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "brands", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "In stock: Fender, Taylor."},
    ]
    model = ScriptedModel(
        [tool_call("find_instrument", {"budget": 1000, "type": "acoustic", "make": "Taylor"})]
    )

    result = make_client(model, tools).run(messages)

    assert result.attempts[0].repairs == []
    assert ledger.calls[0][1]["make"] == "Taylor"


def test_optional_values_any_keeps_what_the_model_wrote(
    make_client: ClientFactory, tools: list[Any], ledger: Ledger
) -> None:
    model = ScriptedModel(
        [tool_call("find_instrument", {"budget": 1000, "type": "acoustic", "make": "Fender"})]
    )

    result = make_client(model, tools, optional_values="any").run(asked(ASKED))

    assert result.attempts[0].repairs == []
    assert ledger.calls[0][1]["make"] == "Fender"


def test_an_unknown_optional_values_setting_is_refused(
    make_client: ClientFactory, tools: list[Any]
) -> None:
    with pytest.raises(InvalidArgumentError, match="optional_values"):
        make_client(ScriptedModel([]), tools, optional_values="drop")
