"""First contact: wrong arguments, wrong URLs, keys and a closed client get clear, typed errors."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import (
    AsyncToolCallClient,
    ToolCallClient,
    ToolCallError,
)
from toolcall_sdk.errors import (
    ClientClosedError,
    EndpointNotFoundError,
    InvalidArgumentError,
    ModelNotFoundError,
)
from toolcall_sdk.testing import ScriptedModel, http_error, tool_call

from ..conftest import ClientFactory

URL = "http://127.0.0.1:9/v1"
TWINS = [ToolCallClient, AsyncToolCallClient]


def _weather(city: str) -> str:
    """Weather."""
    return city


@pytest.mark.parametrize("cls", TWINS)
@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"max_retries": "2"}, "max_retries must be an int (got '2')"),
        ({"max_retries": -1}, "max_retries must be >= 0"),
        ({"max_retries": True}, "max_retries must be an int"),
        ({"tools": _weather}, "tools must be a list of tools, e.g. tools=[_weather]"),
        ({"tools": "get_weather"}, "tools must be a list of tools"),
        ({"temperature": "hot"}, "temperature must be a number"),
        ({"timeout": 0}, "timeout must be positive"),
        ({"timeout": float("nan")}, "timeout must be finite"),
        ({"recover": "yes"}, "recover must be True or False"),
        ({"tool_choice": "none"}, "tool_choice must be one of 'required', 'auto'"),
        ({"retry": 3}, "retry must be a RetryPolicy"),
        ({"max_tokens": 0}, "max_tokens must be >= 1"),
    ],
)
def test_wrong_options_are_refused_with_what_to_pass(
    cls: Any, options: dict[str, Any], says: str
) -> None:
    with pytest.raises(
        InvalidArgumentError,
        match=says.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]"),
    ) as raised:
        cls(base_url=URL, model="m", **options)
    assert isinstance(raised.value, ToolCallError)
    assert isinstance(raised.value, (TypeError, ValueError))


@pytest.mark.parametrize("cls", TWINS)
def test_model_is_required(cls: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="model is required"):
        cls(base_url=URL, model="")


@pytest.mark.parametrize("cls", TWINS)
@pytest.mark.parametrize(
    ("url", "suggestion"),
    [
        ("localhost:8000", "'http://localhost:8000/v1'"),
        ("127.0.0.1:8000/v1", "'http://127.0.0.1:8000/v1'"),
        ("ftp://host/v1", "'http://host/v1'"),
    ],
)
def test_a_url_without_scheme_names_the_fix_at_construction(
    cls: Any, url: str, suggestion: str
) -> None:
    with pytest.raises(InvalidArgumentError, match="is not an http\\(s\\) URL") as raised:
        cls(base_url=url, model="m")
    assert suggestion in str(raised.value)


def test_messages_of_the_wrong_shape_are_named(make_client: ClientFactory) -> None:
    client = make_client(ScriptedModel([]), [])
    with pytest.raises(InvalidArgumentError, match="must be a string or a list of chat messages"):
        client.call(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"one message, not a list: pass \[message\]"):
        client.call({"role": "user", "content": "hi"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="messages is empty"):
        client.call([])
    with pytest.raises(InvalidArgumentError, match=r"messages\[0\] has no 'role'"):
        client.call([{"content": "hi"}])


def test_a_closed_client_says_so(make_client: ClientFactory) -> None:
    model = ScriptedModel([tool_call("_weather", {"city": "Hue"})])
    client = make_client(model, [_weather])
    client.close()
    with pytest.raises(ClientClosedError, match="was closed"):
        client.call("weather?")
    assert isinstance(ClientClosedError("x"), RuntimeError)
    assert model.requests == []


def test_a_404_without_a_model_message_points_at_v1(make_client: ClientFactory) -> None:
    model = ScriptedModel([http_error(404, {"detail": "Not Found"})])
    client = make_client(model, [_weather])
    with pytest.raises(EndpointNotFoundError, match=r"ends in /v1") as raised:
        client.call("weather?")
    assert raised.value.status_code == 404
    assert len(model.requests) == 1  # a 404 is never retried


def test_a_404_naming_the_model_stays_model_not_found(make_client: ClientFactory) -> None:
    body = {"object": "error", "message": "The model `x` does not exist.", "code": 404}
    model = ScriptedModel([http_error(404, body)])
    client = make_client(model, [_weather])
    with pytest.raises(ModelNotFoundError, match="does not serve model"):
        client.call("weather?")


def test_openai_key_is_not_sent_to_a_self_hosted_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key")
    monkeypatch.delenv("TOOLCALL_API_KEY", raising=False)
    model = ScriptedModel([tool_call("_weather", {"city": "Hue"})])
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[_weather],
        router="always",
        http_client=model.http_client(),
    )
    client.call("weather?")
    assert model.requests[0].headers["authorization"] == "Bearer EMPTY"


def test_toolcall_api_key_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_API_KEY", "local-secret")
    model = ScriptedModel([tool_call("_weather", {"city": "Hue"})])
    client = ToolCallClient(
        base_url=model.base_url,
        model="m",
        tools=[_weather],
        router="always",
        http_client=model.http_client(),
    )
    client.call("weather?")
    assert model.requests[0].headers["authorization"] == "Bearer local-secret"
