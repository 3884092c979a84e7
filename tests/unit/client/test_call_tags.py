"""`call_tags=`: an `auto` request carries a structural tag that holds a call, once the model
starts it, to the tool's schema (and to the stated values with `"grounded"`); a server that
refuses the tag is asked again without it, once per client."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolcall_sdk import InvalidArgumentError, ToolCallClient
from toolcall_sdk.errors import ContextLengthExceededError
from toolcall_sdk.events import StreamCompleted
from toolcall_sdk.testing import ScriptedModel, http_error, text, tool_call

from ..conftest import ClientFactory, Ledger

REQUEST = "Invoice CUS-000042 for 12.5 million VND."


def _call(amount: int) -> Any:
    return tool_call("create_invoice", {"customer_id": "CUS-000042", "amount_vnd": amount})


def _tag(request: Any) -> dict[str, Any]:
    assert request.json is not None
    tag: dict[str, Any] = request.json["response_format"]
    return tag


def test_an_auto_request_carries_a_tag_per_tool_in_each_call_form(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    model = ScriptedModel([_call(12500000)])
    client = make_client(model, [invoice], router="llm", call_tags="schema")

    client.run(REQUEST)

    [request] = model.calls_for("call")
    assert request.json is not None
    assert request.json["tool_choice"] == "auto"
    tag = _tag(request)
    assert tag["type"] == "structural_tag"
    # The closing quote is part of each trigger: `create_invoice` never fires on a longer
    # name, and a tool nobody offered never fires at all.
    assert tag["triggers"] == [
        '{"name": "create_invoice"',
        '{\n  "name": "create_invoice"',
        '{\n    "name": "create_invoice"',
    ]
    assert [(s["begin"], s["end"]) for s in tag["structures"]] == [
        ('{"name": "create_invoice", "arguments": ', "}"),
        ('{\n  "name": "create_invoice",\n  "arguments": ', "\n}"),
        ('{\n    "name": "create_invoice",\n    "arguments": ', "\n}"),
    ]
    # The tool's strict schema, as the request's `tools` carries it.
    schema = request.json["tools"][0]["function"]["parameters"]
    assert all(s["schema"] == schema for s in tag["structures"])
    assert "enum" not in schema["properties"]["amount_vnd"]
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]


def test_grounded_tags_hold_the_stated_values_and_say_so(
    make_client: ClientFactory, invoice: Any
) -> None:
    model = ScriptedModel([_call(12500000)])
    client = make_client(model, [invoice], router="llm", call_tags="grounded")

    result = client.run(REQUEST)

    [request] = model.calls_for("call")
    held = _tag(request)["structures"][0]["schema"]["properties"]
    assert 12500000 in held["amount_vnd"]["enum"]
    assert 125000000 not in held["amount_vnd"]["enum"]
    # A free string (no pattern) stays free.
    assert "enum" not in held["customer_id"]
    # The request's own tools stay as they were: only a call the model starts is held.
    assert request.json is not None
    assert (
        "enum" not in request.json["tools"][0]["function"]["parameters"]["properties"]["amount_vnd"]
    )
    assert result.attempts[0].request.constrained == ("create_invoice:/amount_vnd",)


def test_off_and_forced_requests_carry_no_tag(make_client: ClientFactory, invoice: Any) -> None:
    # The forced retry after a wrong answer is held by vLLM's own grammar: no tag there.
    model = ScriptedModel([tool_call("create_invoice", {"amount_vnd": "ten"}), _call(12500000)])
    client = make_client(model, [invoice], router="llm", call_tags="grounded")
    client.run(REQUEST)
    first, retry = model.calls_for("call")
    assert first.json is not None
    assert retry.json is not None
    assert "response_format" in first.json
    assert retry.json["tool_choice"] != "auto"
    assert "response_format" not in retry.json

    plain = ScriptedModel([_call(12500000)])
    make_client(plain, [invoice], router="llm").run(REQUEST)
    [request] = plain.calls_for("call")
    assert request.json is not None
    assert "response_format" not in request.json


def test_a_server_that_refuses_the_tag_is_asked_again_without_it_once_per_client(
    make_client: ClientFactory,
    invoice: Any,
    ledger: Ledger,
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel(
        [
            http_error(400, {"object": "error", "message": "Invalid response_format"}),
            _call(12500000),
            _call(12500000),
        ]
    )
    client = make_client(model, [invoice], router="llm", call_tags="schema")

    with caplog.at_level(logging.WARNING, logger="toolcall_sdk"):
        client.run(REQUEST)
        client.run(REQUEST)

    tagged, untagged, later = model.calls_for("call")
    assert tagged.json is not None
    assert untagged.json is not None
    assert later.json is not None
    assert "response_format" in tagged.json
    assert "response_format" not in untagged.json
    assert untagged.json["tools"] == tagged.json["tools"]
    assert "response_format" not in later.json
    # Each request ran its call once; the refusal is told once.
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})] * 2
    assert [r.getMessage() for r in caplog.records].count(caplog.records[0].getMessage()) == 1
    assert "refused a structural tag" in caplog.records[0].getMessage()


def test_a_streamed_call_is_asked_again_without_the_refused_tag(
    make_client: ClientFactory, invoice: Any
) -> None:
    # The 400 comes before anything is shown, so the untagged request may stream in its place.
    model = ScriptedModel([http_error(400), _call(12500000)])
    client = make_client(model, [invoice], router="llm", call_tags="schema")

    events = list(client.stream(REQUEST))

    last = events[-1]
    assert isinstance(last, StreamCompleted)
    assert [call.arguments.model_dump()["amount_vnd"] for call in last.result.calls] == [12500000]
    tagged, untagged = model.calls_for("call")
    assert tagged.stream
    assert untagged.stream
    assert untagged.json is not None
    assert "response_format" not in untagged.json


def test_a_400_that_is_not_the_tags_is_raised_and_tags_stay_on(
    make_client: ClientFactory, invoice: Any, ledger: Ledger
) -> None:
    too_long = {"object": "error", "message": "maximum context length is 4096 tokens"}
    model = ScriptedModel([http_error(400, too_long), http_error(400, too_long), _call(12500000)])
    client = make_client(model, [invoice], router="llm", call_tags="schema")

    with pytest.raises(ContextLengthExceededError, match="maximum context length"):
        client.run(REQUEST)
    client.run(REQUEST)

    first, again, later = model.calls_for("call")
    # The untagged request failed the same way: the 400 was not the tag's.
    assert first.json is not None
    assert again.json is not None
    assert "response_format" in first.json
    assert "response_format" not in again.json
    assert later.json is not None
    assert "response_format" in later.json
    assert ledger.calls == [("create_invoice", {"amount_vnd": 12500000})]


def test_a_format_the_caller_sends_is_left_alone(make_client: ClientFactory, invoice: Any) -> None:
    own = {"type": "json_object"}
    model = ScriptedModel([text("no call")])
    client = make_client(
        model, [invoice], router="llm", call_tags="schema", extra_body={"response_format": own}
    )
    client.run(REQUEST)
    [request] = model.calls_for("call")
    assert request.json is not None
    assert request.json["response_format"] == own


def test_an_unknown_mode_is_refused_when_the_client_is_built(invoice: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="call_tags"):
        ToolCallClient(
            base_url="http://127.0.0.1:1/v1",
            model="m",
            tools=[invoice],
            call_tags="on",  # type: ignore[arg-type]
        )
