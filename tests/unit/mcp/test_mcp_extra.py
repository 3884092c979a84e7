"""Without the `mcp` extra, `toolcall_sdk.mcp` says which extra to install."""

from __future__ import annotations

import subprocess
import sys

from toolcall_sdk import install_command


def test_missing_extra_names_the_install_command() -> None:
    code = (
        "import sys; sys.modules['mcp'] = None\n"  # as if the package were not installed
        "from toolcall_sdk import MissingDependencyError\n"
        "try:\n"
        "    import toolcall_sdk.mcp\n"
        "except MissingDependencyError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert install_command("mcp") in out.stdout
