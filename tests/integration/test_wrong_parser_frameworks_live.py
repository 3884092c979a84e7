"""Agent frameworks through `toolcall-sdk proxy`, against the real model behind the wrong parser.

Each framework's own code talks to vLLM serving Qwen2.5-Coder with vLLM's hermes parser:
straight to vLLM the call stays in the text (no tool call: the framework sees a plain
answer), and with only `base_url` changed to the proxy (its defaults) the same code gets a
validated call. The frameworks live in the `frameworks` dependency group (scripts/test.sh
installs it).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolcall_sdk.launcher import Server
from toolcall_sdk.proxy import create_app, serve_in_thread
from toolcall_sdk_demo.tools import get_weather as demo_weather

from .conftest import MODEL

QUESTION = "What's the weather in Paris?"
# The demo tool, handed to each framework as plain JSON Schema.
WEATHER = demo_weather.openai_schema(strict=False)["function"]
ran: list[dict[str, str]] = []


def get_weather(city: str, unit: str = "celsius") -> str:
    """Get the current weather for a city."""
    ran.append({"city": city, "unit": unit})
    return f"18 degrees {unit} in {city}"


@pytest.fixture
def via_proxy(hermes_server: Server) -> Iterator[Callable[[], str]]:
    with contextlib.ExitStack() as stack:

        def start() -> str:
            return stack.enter_context(serve_in_thread(create_app(hermes_server.base_url)))

        yield start


def test_langchain_chat_openai_bind_tools(
    hermes_server: Server, via_proxy: Callable[[], str]
) -> None:
    langchain_openai = pytest.importorskip("langchain_openai", reason="frameworks group")

    def ask(base_url: str) -> Any:
        llm = langchain_openai.ChatOpenAI(
            base_url=base_url,
            api_key="EMPTY",
            model=MODEL,
            temperature=0,
            max_tokens=200,
            max_retries=0,
        )
        return llm.bind_tools([{"type": "function", "function": WEATHER}]).invoke(QUESTION)

    direct = ask(hermes_server.base_url)
    assert direct.tool_calls == []
    assert '"name": "get_weather"' in str(direct.content)

    through = ask(via_proxy())
    [call] = through.tool_calls
    assert call["name"] == "get_weather"
    assert call["args"]["city"] == "Paris"


def test_openai_agents_chat_completions_model(
    hermes_server: Server, via_proxy: Callable[[], str]
) -> None:
    agents = pytest.importorskip("agents", reason="frameworks group")
    import openai

    agents.set_tracing_disabled(True)

    async def invoke(context: Any, arguments: str) -> str:
        return get_weather(**json.loads(arguments))

    weather = agents.FunctionTool(
        name=WEATHER["name"],
        description=WEATHER["description"],
        params_json_schema=WEATHER["parameters"],
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )

    def run(base_url: str) -> Any:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0)
        agent = agents.Agent(
            name="weather",
            instructions="",
            tools=[weather],
            model=agents.OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
            model_settings=agents.ModelSettings(temperature=0, max_tokens=200),
            tool_use_behavior="stop_on_first_tool",
        )
        return agents.Runner.run_sync(agent, QUESTION, max_turns=2)

    ran.clear()
    direct = run(hermes_server.base_url)
    assert ran == []  # the call stayed in the text: the tool never ran
    assert '"name": "get_weather"' in str(direct.final_output)

    through = run(via_proxy())
    assert [r["city"] for r in ran] == ["Paris"]
    assert through.final_output == f"18 degrees {ran[0]['unit']} in Paris"


def test_pydantic_ai_openai_model(hermes_server: Server, via_proxy: Callable[[], str]) -> None:
    pytest.importorskip("pydantic_ai", reason="frameworks group")
    from pydantic_ai.direct import model_request_sync
    from pydantic_ai.messages import ModelRequest, TextPart, ToolCallPart
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import ToolDefinition

    weather = ToolDefinition(
        name=WEATHER["name"],
        description=WEATHER["description"],
        parameters_json_schema=WEATHER["parameters"],
    )

    def ask(base_url: str) -> Any:
        model = OpenAIChatModel(MODEL, provider=OpenAIProvider(base_url=base_url, api_key="EMPTY"))
        return model_request_sync(
            model,
            [ModelRequest.user_text_prompt(QUESTION)],
            model_settings=ModelSettings(temperature=0, max_tokens=200),
            model_request_parameters=ModelRequestParameters(
                function_tools=[weather], allow_text_output=True
            ),
        )

    direct = ask(hermes_server.base_url)
    assert not [p for p in direct.parts if isinstance(p, ToolCallPart)]
    assert any('"get_weather"' in p.content for p in direct.parts if isinstance(p, TextPart))

    through = ask(via_proxy())
    [call] = [p for p in through.parts if isinstance(p, ToolCallPart)]
    assert call.tool_name == "get_weather"
    assert call.args_as_dict()["city"] == "Paris"
