"""The public surface: exported names, import cost, the CLI entry point."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

import toolcall_sdk
from toolcall_sdk import ToolCallError
from toolcall_sdk.cli import app

EXPORTED = [
    "AlreadyResumed",
    "AlwaysRouter",
    "ApprovalRequired",
    "AsyncToolCallClient",
    "Attempt",
    "AttemptFailed",
    "AuthenticationError",
    "BalancePolicy",
    "ClientClosedError",
    "ClientMetrics",
    "ContentDelta",
    "ContextLengthExceededError",
    "DeadlineExceededError",
    "Derived",
    "EmbeddingRouter",
    "EndpointNotFoundError",
    "FieldError",
    "Grounded",
    "GroundingPolicy",
    "HybridRouter",
    "InMemoryResumeLedger",
    "InvalidArgumentError",
    "LLMRouter",
    "LoopDetected",
    "MalformedResponseError",
    "MaxStepsExceeded",
    "MissingDependencyError",
    "ModelNotFoundError",
    "ModelRetry",
    "NeverRouter",
    "PendingCall",
    "Problem",
    "PromptEmbedsError",
    "RateLimitedError",
    "RequestRejectedError",
    "RequestSummary",
    "ResponseTooLargeError",
    "ResumeError",
    "ResumeLedger",
    "RetryPolicy",
    "RouteDecision",
    "Router",
    "RouterError",
    "RunContext",
    "RunStopped",
    "SQLiteResumeLedger",
    "ServerConnectionError",
    "ServerError",
    "ServerState",
    "ServerTimeoutError",
    "ServerUnavailableError",
    "Step",
    "StreamCompleted",
    "StrictSchemaError",
    "Tool",
    "ToolArgumentsDelta",
    "ToolCall",
    "ToolCallClient",
    "ToolCallError",
    "ToolCallEvent",
    "ToolCallFailed",
    "ToolCallResult",
    "ToolCallStarted",
    "ToolCallValidated",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolTimeoutError",
    "ToolValidatorError",
    "TransportError",
    "Usage",
    "UsageLimitExceeded",
    "__version__",
    "install_command",
    "to_strict_schema",
    "tool",
    "tool_from_openai",
]


def test_exported_members() -> None:
    assert toolcall_sdk.__all__ == EXPORTED
    for name in EXPORTED:
        assert hasattr(toolcall_sdk, name)


def test_every_error_derives_from_the_root() -> None:
    exported = [getattr(toolcall_sdk, name) for name in EXPORTED]
    errors = [
        obj
        for obj in exported
        if isinstance(obj, type)
        and issubclass(obj, Exception)
        and obj is not toolcall_sdk.ModelRetry
    ]
    assert len(errors) == 33
    assert all(issubclass(error, ToolCallError) for error in errors)
    assert not issubclass(toolcall_sdk.ModelRetry, ToolCallError)  # a signal, not an error


def test_import_stays_light() -> None:
    code = (
        "import sys, toolcall_sdk; "
        "heavy = [m for m in ('torch', 'vllm', 'transformers', 'sentence_transformers') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_names_load_on_first_use() -> None:
    # `import toolcall_sdk` (and so `toolcall-sdk --help`) does not pay for openai; the
    # first exported name that needs it brings it in, and `import *` gives every name.
    code = (
        "import sys, toolcall_sdk; before = 'openai' in sys.modules; "
        "from toolcall_sdk import *; "
        "print(before, 'openai' in sys.modules, ToolCallClient.__module__, "
        "sorted(set(toolcall_sdk.__all__) - set(dir(toolcall_sdk))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True toolcall_sdk._client []"


def test_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(toolcall_sdk, "NoSuchName")


def test_cli_version_and_help() -> None:
    runner = CliRunner()
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0
    assert version.stdout.strip() == f"toolcall-sdk {toolcall_sdk.__version__}"
    helptext = runner.invoke(app, ["--help"])
    assert helptext.exit_code == 0
    for command in ("launch", "doctor", "eval"):
        assert command in helptext.stdout
    assert "not yet available" not in helptext.stdout


def test_eval_without_cases_says_what_to_give() -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "m"])
    assert result.exit_code == 2
    assert "give a case file" in result.output


def test_public_homes_hold_the_same_objects_as_the_package() -> None:
    import toolcall_sdk.errors
    import toolcall_sdk.events
    import toolcall_sdk.parsing
    import toolcall_sdk.routing
    import toolcall_sdk.testing

    homes = {
        "errors": toolcall_sdk.errors,
        "events": toolcall_sdk.events,
        "routing": toolcall_sdk.routing,
    }
    for home in homes.values():
        for name in home.__all__:
            if name in EXPORTED:
                assert getattr(home, name) is getattr(toolcall_sdk, name), name
    assert "ToolCallFailed" in toolcall_sdk.errors.__all__
    assert "StreamCompleted" in toolcall_sdk.events.__all__
    assert {"LLMRouter", "HybridRouter", "EmbeddingRouter", "RouteDecision"} <= set(
        toolcall_sdk.routing.__all__
    )
    assert "StreamParser" in toolcall_sdk.parsing.__all__
    assert "ScriptedModel" in toolcall_sdk.testing.__all__
