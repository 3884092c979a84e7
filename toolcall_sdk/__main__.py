"""`toolcall-sdk` (and `python -m toolcall_sdk`): the command line, when its extra is installed.

The library installs without the command line's dependencies (typer, rich, platformdirs:
the `cli` extra). This entry point looks for them before loading the commands, so a missing
one is one line naming the install, not a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Final

from toolcall_sdk._extras import install_command

__all__ = ["main"]

# What `toolcall_sdk.cli` and its commands import from the `cli` extra.
_CLI_MODULES: Final = ("typer", "rich", "platformdirs")
_EXIT_USAGE: Final = 2


def main() -> None:
    """Run the `toolcall-sdk` command line, or say in one line how to install it."""
    for name in _CLI_MODULES:
        try:
            importlib.import_module(name)
        except ImportError as exc:  # the module, or one of its own dependencies, is missing
            missing = exc.name or name
            print(
                f"toolcall-sdk: the command line needs {missing!r}, which is not installed: "
                f"run `{install_command('cli')}`",
                file=sys.stderr,
            )
            raise SystemExit(_EXIT_USAGE) from None
    from toolcall_sdk.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
