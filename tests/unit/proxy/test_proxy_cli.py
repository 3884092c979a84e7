"""`toolcall-sdk proxy` on the command line: refusals and the missing-extra message."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from toolcall_sdk import install_command
from toolcall_sdk.cli import app


def test_refuses_to_bind_beyond_loopback_without_a_key() -> None:
    result = CliRunner().invoke(
        app, ["proxy", "--upstream", "http://127.0.0.1:8000/v1", "--host", "0.0.0.0"]
    )

    assert result.exit_code == 2
    assert "--api-key" in result.output


def test_refuses_an_upstream_that_is_not_a_url() -> None:
    result = CliRunner().invoke(app, ["proxy", "--upstream", "127.0.0.1:8000"])

    assert result.exit_code == 2
    assert "not an http(s) URL" in result.output


def test_missing_extra_is_one_line_naming_it() -> None:
    # A fresh interpreter where starlette cannot be imported (a None entry blocks it).
    code = (
        "import sys; sys.modules['starlette'] = None; sys.argv = ['toolcall-sdk', 'proxy', "
        "'--upstream', 'http://127.0.0.1:8000/v1']; from toolcall_sdk.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )

    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: toolcall-sdk proxy needs 'starlette', which is not installed: run "
        f"`{install_command('proxy')}`"
    ]


def test_refuses_an_unknown_grounding() -> None:
    result = CliRunner().invoke(
        app, ["proxy", "--upstream", "http://127.0.0.1:8000/v1", "--grounding", "numbers"]
    )

    assert result.exit_code == 2
    assert "--grounding must be one of default, all, off" in result.output
