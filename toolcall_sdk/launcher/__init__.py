"""Start vLLM with the right tool-calling flags for a model family.

`toolcall-sdk launch MODEL` on the command line; from Python::

    from toolcall_sdk.launcher import build_command, resolve_family, serve

    resolve_family("Qwen/Qwen2.5-7B-Instruct").tool_call_parser   # "hermes"
    build_command("meta-llama/Llama-3.1-8B-Instruct")             # ["vllm", "serve", ...]
    with serve("Qwen/Qwen2.5-7B-Instruct") as server:             # starts, waits, stops
        server.base_url                                           # "http://127.0.0.1:PORT/v1"

Nothing here imports vLLM: the launcher finds it on disk and runs it as a separate process.
See docs/launch.md for the family table and docs/scaling.md for several GPUs and nodes
(`ParallelOptions`). The CPU demo model (`launch --demo`) is served with
`demo_options(model_dir)` and `DEMO_SERVE_ENV`; its trainer is a separate distribution
(`demo-model/`, docs/demo-model.md) that this package never imports.
"""

from toolcall_sdk.launcher._command import (
    DEFAULT_GPU_MEMORY_UTILIZATION,
    DEFAULT_HOST,
    DEFAULT_MAX_MODEL_LEN,
    DEFAULT_PORT,
    LaunchOptions,
    LaunchPlan,
    build_command,
    format_command,
    plan_launch,
)
from toolcall_sdk.launcher._demo import DEMO_SERVE_ENV, DEMO_SERVED_MODEL_NAME, demo_options
from toolcall_sdk.launcher._diagnosis import CAUSES, Cause, Diagnosis, diagnose
from toolcall_sdk.launcher._errors import (
    ChatTemplateNotFoundError,
    LaunchError,
    ParallelLayoutError,
    PortInUseError,
    ServerExitedError,
    ServerStartError,
    ServerStartTimeout,
    UnknownModelFamilyError,
    VLLMNotFoundError,
)
from toolcall_sdk.launcher._families import (
    FAMILIES,
    ModelFamily,
    get_family,
    known_tool_parsers,
    resolve_family,
)
from toolcall_sdk.launcher._parallel import ParallelOptions
from toolcall_sdk.launcher._process import (
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_STOP_TIMEOUT,
    Server,
    serve,
    start_server,
)
from toolcall_sdk.launcher._snippet import client_snippet
from toolcall_sdk.launcher._vllm import COMMAND_ENV, EXAMPLES_ENV

__all__ = [
    "CAUSES",
    "COMMAND_ENV",
    "DEFAULT_GPU_MEMORY_UTILIZATION",
    "DEFAULT_HOST",
    "DEFAULT_MAX_MODEL_LEN",
    "DEFAULT_PORT",
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_STOP_TIMEOUT",
    "DEMO_SERVED_MODEL_NAME",
    "DEMO_SERVE_ENV",
    "EXAMPLES_ENV",
    "FAMILIES",
    "Cause",
    "ChatTemplateNotFoundError",
    "Diagnosis",
    "LaunchError",
    "LaunchOptions",
    "LaunchPlan",
    "ModelFamily",
    "ParallelLayoutError",
    "ParallelOptions",
    "PortInUseError",
    "Server",
    "ServerExitedError",
    "ServerStartError",
    "ServerStartTimeout",
    "UnknownModelFamilyError",
    "VLLMNotFoundError",
    "build_command",
    "client_snippet",
    "demo_options",
    "diagnose",
    "format_command",
    "get_family",
    "known_tool_parsers",
    "plan_launch",
    "resolve_family",
    "serve",
    "start_server",
]
