"""What the library imports, and what it needs installed: each check in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolcall_sdk import install_command


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


# A fresh interpreter in which the named top-level modules cannot be imported, as if they
# were not installed; then CODE runs.
_BLOCKED = """
import sys
from importlib.abc import MetaPathFinder

BLOCKED = {blocked!r}

class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
"""


def _run_without(blocked: set[str], code: str) -> subprocess.CompletedProcess[str]:
    probe = _BLOCKED.format(blocked=sorted(blocked)) + code
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)


@pytest.mark.parametrize("missing", ["typer", "rich", "platformdirs"])
def test_the_command_without_its_extra_is_one_line(missing: str) -> None:
    for argv in (["--help"], ["launch", "--demo", "--dry-run"], []):
        done = _run_without(
            {missing},
            f"sys.argv = ['toolcall-sdk', *{argv!r}]\n"
            "from toolcall_sdk.__main__ import main\n"
            "main()\n",
        )

        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert done.stderr.splitlines() == [
            f"toolcall-sdk: the command line needs {missing!r}, which is not installed: "
            f"run `{install_command('cli')}`"
        ]


def test_the_command_with_its_extra_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolcall_sdk", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("toolcall-sdk ")


def test_the_library_imports_without_the_cli_extra() -> None:
    done = _run_without(
        {"typer", "rich", "platformdirs", "click"},
        "import toolcall_sdk, toolcall_sdk.evals, toolcall_sdk.doctor, toolcall_sdk.launcher\n"
        "import toolcall_sdk.bfcl, toolcall_sdk.parsing, toolcall_sdk.testing\n"
        "from toolcall_sdk.launcher import build_command\n"
        "print(build_command('Qwen/Qwen2.5-7B-Instruct', command='vllm serve')[:3])\n"
        "toolcall_sdk.ToolCallClient\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['vllm', 'serve', 'Qwen/Qwen2.5-7B-Instruct']"


def test_the_launchers_default_log_folder_names_the_extra() -> None:
    done = _run_without(
        {"platformdirs"},
        "from toolcall_sdk import MissingDependencyError\n"
        "from toolcall_sdk.launcher._process import default_log_path\n"
        "try:\n"
        "    default_log_path(8000)\n"
        "except MissingDependencyError as exc:\n"
        "    print(exc)\n",
    )
    assert done.returncode == 0, done.stderr
    assert install_command("cli") in done.stdout
