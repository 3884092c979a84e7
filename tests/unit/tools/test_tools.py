"""`@tool`: arguments models built from signatures and docstrings."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from toolcall_sdk import Tool, ToolDefinitionError, tool

from ._future_tools import Address, Priority, ship_order


def test_bare_decorator_keeps_the_function_callable() -> None:
    @tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    assert isinstance(add, Tool)
    assert add(1) == 3
    assert add.name == "add"
    assert add.description == "Add two numbers."
    schema = add.openai_schema(strict=False)["function"]["parameters"]
    assert schema["properties"]["a"] == {"description": "First.", "type": "integer"}
    assert schema["required"] == ["a"]
    assert schema["additionalProperties"] is False
    assert "title" not in schema


def test_options_override_name_and_description() -> None:
    @tool(name="lookup", description="Look things up.", strict=False)
    def find(query: str) -> str:
        """Ignored summary."""
        return query

    entry = find.openai_schema(strict=True)
    assert entry["function"]["name"] == "lookup"
    assert entry["function"]["description"] == "Look things up."
    assert "strict" not in entry["function"]  # the tool's own strict=False wins


def test_string_annotations_enums_literals_nested_models() -> None:
    args = ship_order.args_model.model_validate(
        {"order_id": "ORD-12345", "address": {"street": "1 Main", "city": "Hue"}, "carrier": "ups"}
    )
    assert args.address == Address(street="1 Main", city="Hue")  # type: ignore[attr-defined]
    assert args.priority is Priority.LOW  # type: ignore[attr-defined]
    schema = ship_order.openai_schema(strict=False)["function"]
    props = schema["parameters"]["properties"]
    assert props["order_id"]["description"] == "Order id."
    assert props["order_id"]["pattern"] == r"^ORD-\d{5}$"
    assert props["priority"]["description"] == "How fast."
    assert props["carrier"]["enum"] == ["dhl", "ups"]
    assert schema["description"] == "Ship an order to an address."
    with pytest.raises(ValidationError):
        ship_order.args_model.model_validate({"order_id": "ORD-1", "address": {}})


def test_async_function_is_detected() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        return url

    assert fetch.is_async
    assert asyncio.run(fetch("x")) == "x"


def test_pydantic_model_becomes_a_call_only_tool() -> None:
    class CreateTicket(BaseModel):
        """Open a support ticket."""

        title: str
        urgent: bool = False

    ticket = tool(CreateTicket)
    assert ticket.name == "create_ticket"
    assert ticket.description == "Open a support ticket."
    assert ticket.args_model is CreateTicket
    with pytest.raises(ToolDefinitionError, match="call-only"):
        ticket.invoke(CreateTicket(title="x"))


def test_extra_arguments_are_rejected() -> None:
    @tool
    def greet(name: str) -> str:
        """Greet."""
        return name

    with pytest.raises(ValidationError, match="Extra inputs"):
        greet.args_model.model_validate({"name": "a", "nickname": "b"})


def test_annotated_field_keeps_its_constraints() -> None:
    @tool
    def pay(amount: Annotated[int, Field(gt=0, le=1000)], when: date) -> None:
        """Pay."""

    props = pay.openai_schema(strict=False)["function"]["parameters"]["properties"]
    assert props["amount"]["exclusiveMinimum"] == 0
    assert props["amount"]["maximum"] == 1000
    assert props["when"]["format"] == "date"


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        ("def f(*args: int) -> None: ...", r"\*args"),
        ("def f(**kw: int) -> None: ...", r"\*\*kwargs"),
        ("def f(x) -> None: ...", "no type annotation"),
        ("def f(x: int, /) -> None: ...", "positional-only"),
    ],
)
def test_signatures_that_cannot_become_tools(definition: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(definition, namespace)  # test input, not model text
    with pytest.raises(ToolDefinitionError, match=message):
        tool(namespace["f"])


def test_bad_names_and_lambdas() -> None:
    with pytest.raises(ToolDefinitionError, match="not valid"):
        tool(name="has space")(lambda x: x)
    with pytest.raises(ToolDefinitionError, match="lambda"):
        tool(lambda x: x)


def test_unresolvable_annotation_names_the_cause() -> None:
    def f(x: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
        """F."""

    with pytest.raises(ToolDefinitionError, match="Missing"):
        tool(f)


@pytest.mark.parametrize(
    "doc",
    [
        "Move money.\n\nArgs:\n    amount: How much.\n    to: Who gets it.\n",
        "Move money.\n\nParameters\n----------\namount : int\n    How much.\nto : str\n"
        "    Who gets it.\n",
        "Move money.\n\n:param amount: How much.\n:param to: Who gets it.\n",
    ],
    ids=["google", "numpy", "rest"],
)
def test_docstring_styles(doc: str) -> None:
    def transfer(amount: int, to: str) -> None:
        pass

    transfer.__doc__ = doc
    props = tool(transfer).openai_schema(strict=False)["function"]
    assert props["description"] == "Move money."
    assert props["parameters"]["properties"]["amount"]["description"] == "How much."
    assert props["parameters"]["properties"]["to"]["description"] == "Who gets it."


class _Opaque:
    """A class Pydantic has no schema for."""


def test_unsupported_parameter_types_name_the_tool_and_parameter() -> None:
    from collections.abc import Callable

    def with_callback(city: str, callback: Callable[[str], None]) -> None:
        """Has a callback."""

    def with_object(city: str, handle: _Opaque) -> None:
        """Has an arbitrary object."""

    for function, parameter in ((with_callback, "callback"), (with_object, "handle")):
        with pytest.raises(ToolDefinitionError) as excinfo:
            tool(function)
        message = str(excinfo.value)
        assert excinfo.value.tool_name == function.__name__
        assert f"tool {function.__name__!r}" in message
        assert f"parameter {parameter!r}" in message
        assert "JSON" in message
        assert "errors.pydantic.dev" not in message


def test_a_model_tool_with_an_unsupported_field_names_the_field() -> None:
    from collections.abc import Callable

    from pydantic import BaseModel

    class Hook(BaseModel):
        url: str
        transform: Callable[[str], str]

    with pytest.raises(ToolDefinitionError, match=r"'hook'.*field 'transform'"):
        tool(Hook)
