"""`toolcall-sdk proxy` on the command line: refusals (one line, exit 2) and the missing-extra
message."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from toolcall_sdk import install_command
from toolcall_sdk.cli import app
from toolcall_sdk.proxy import ProxyConfigError, serve_proxy


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


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--port", "99999"], "error: --port must be between 1 and 65535 (got 99999)"),
        (["--port", "0"], "error: --port must be between 1 and 65535 (got 0)"),
        (["--port", "-1"], "error: --port must be between 1 and 65535 (got -1)"),
        (["--host", ""], "error: --host must not be empty: give an address, e.g. 127.0.0.1"),
        (
            ["--log-level", "loud"],
            "error: --log-level must be one of critical, error, warning, info, debug, trace "
            "(got 'loud')",
        ),
        (["--timeout", "nan"], "error: --timeout must be a positive number of seconds (got nan)"),
    ],
)
def test_an_invalid_option_is_one_line_and_a_usage_error(option: list[str], message: str) -> None:
    # Checked before anything binds: uvicorn would fail on them with a traceback.
    result = CliRunner().invoke(app, ["proxy", "--upstream", "http://127.0.0.1:8000/v1", *option])

    assert result.exit_code == 2
    assert result.output.splitlines() == [message]


@pytest.mark.parametrize("port", [0, 65536, True])
def test_serve_proxy_refuses_a_port_outside_1_to_65535(port: int) -> None:
    with pytest.raises(ProxyConfigError, match="--port must be between 1 and 65535"):
        serve_proxy("http://127.0.0.1:8000/v1", port=port)
