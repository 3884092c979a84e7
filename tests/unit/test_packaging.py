"""What the library imports, and what it needs installed: each check in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_a_client_for_a_model_id_does_not_import_the_launcher() -> None:
    # The parsers find a model's format in the family registry, which lives below them.
    loaded = _modules_after(
        "import toolcall_sdk, toolcall_sdk.parsing\n"
        "from toolcall_sdk.parsing import format_for\n"
        "assert format_for('Qwen/Qwen2.5-7B-Instruct') == 'hermes'\n"
        "toolcall_sdk.ToolCallClient(base_url='http://127.0.0.1:9/v1',\n"
        "                            model='Qwen/Qwen2.5-7B-Instruct', tools=[])\n"
    )
    assert "toolcall_sdk._families" in loaded
    assert not {m for m in loaded if m.startswith("toolcall_sdk.launcher")}


def test_the_registry_needs_only_the_standard_library() -> None:
    loaded = _modules_after("import toolcall_sdk._families")
    ours = {m for m in loaded if m.startswith("toolcall_sdk.")}
    assert ours <= {"toolcall_sdk._version", "toolcall_sdk._errors", "toolcall_sdk._families"}
    assert not {"pydantic", "openai", "httpx2"} & loaded


def test_errors_sit_below_results_at_run_time() -> None:
    # `_results` raises `ToolExecutionError`; `_errors` names results in annotations only.
    loaded = _modules_after("import toolcall_sdk._errors")
    assert "toolcall_sdk._results" not in loaded
    assert "pydantic" not in loaded
