"""pytest fixtures for testing your own tools and prompts against a scripted model, offline.

Installed with the package as a pytest plugin (entry point `pytest11`), so the fixtures are
there in any test of a project that installs toolcall-sdk:

```python
from toolcall_sdk import ToolCallClient
from toolcall_sdk.testing import tool_call

def test_invoice(toolcall_model):
    model = toolcall_model([tool_call("create_invoice", {"customer_id": "CUS-000001", ...})])
    client = ToolCallClient(base_url=model.base_url, model="m", tools=[create_invoice],
                            http_client=model.http_client())
    ...

def test_streaming_ui(toolcall_served_model):
    model, base_url = toolcall_served_model([tool_call("get_weather", {"city": "Oslo"})])
    client = ToolCallClient(base_url=base_url, model="m", tools=[get_weather])
    ...
```

Importing this module costs nothing beyond pytest: the scripted model (and openai with it)
is imported when a test asks for a fixture. Turn the plugin off with
`-p no:toolcall_sdk.pytest_plugin`. See docs/testing.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

if TYPE_CHECKING:
    from toolcall_sdk.testing import ScriptedModel

__all__ = ["ServedModel", "toolcall_model", "toolcall_served_model"]


class ServedModel(NamedTuple):
    """A scripted model serving on 127.0.0.1 for one test: `model, base_url = ...`.

    Attributes:
        model: The `ScriptedModel` (its `requests`, `calls_for()`, `errors`).
        base_url: Its real URL, `http://127.0.0.1:PORT/v1`.
    """

    model: ScriptedModel
    base_url: str


@pytest.fixture
def toolcall_model() -> Callable[..., ScriptedModel]:
    """Make a `ScriptedModel` answering in-process (no socket).

    Call it with the script and `ScriptedModel`'s options; give the client
    `base_url=model.base_url` and `http_client=model.http_client()` (or
    `async_http_client()` for `AsyncToolCallClient`).
    """
    from toolcall_sdk.testing import ScriptedModel

    def make(script: Any, **options: Any) -> ScriptedModel:
        return ScriptedModel(script, **options)

    return make


@pytest.fixture
def toolcall_served_model() -> Iterator[Callable[..., ServedModel]]:
    """Make a `ScriptedModel` serving over real HTTP, stopped when the test ends.

    For what needs a socket: streaming as the server sends it, timeouts, dropped
    connections, code that builds its own HTTP client. Returns `(model, base_url)`.
    """
    from toolcall_sdk.testing import ScriptedModel

    with contextlib.ExitStack() as servers:

        def make(script: Any, **options: Any) -> ServedModel:
            model = ScriptedModel(script, **options)
            return ServedModel(model, servers.enter_context(model.serve()))

        yield make
