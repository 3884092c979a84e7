"""Errors raised by the launcher.

The tree (under the SDK's root, `toolcall_sdk.ToolCallError`)::

    ToolCallError
    ├── LaunchError                  the vLLM server could not be planned or started
    │   ├── UnknownModelFamilyError  no registry entry matches the model; pass --tool-call-parser
    │   ├── ChatTemplateNotFoundError the family's chat template file is not on this machine
    │   ├── VLLMNotFoundError        no way to start vLLM was found on this machine
    │   ├── PortInUseError           something already listens on the chosen host and port
    │   ├── ParallelLayoutError      the parallel / multi-node options contradict each other
    │   └── ServerStartError         the server process failed to become ready
    │       ├── ServerExitedError    it exited before /health answered; `.log_tail`, `.diagnosis`
    │       └── ServerStartTimeout   /health did not answer within the startup timeout
    └── UnknownFamilyError           the registry's own error (toolcall_sdk._families)
        └── UnknownModelFamilyError  (also a LaunchError, above)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_sdk._errors import ToolCallError
from toolcall_sdk._families import UnknownFamilyError

if TYPE_CHECKING:
    from toolcall_sdk.launcher._diagnosis import Diagnosis

__all__ = [
    "ChatTemplateNotFoundError",
    "LaunchError",
    "ParallelLayoutError",
    "PortInUseError",
    "ServerExitedError",
    "ServerStartError",
    "ServerStartTimeout",
    "UnknownModelFamilyError",
    "VLLMNotFoundError",
]


class LaunchError(ToolCallError):
    """The vLLM server could not be planned or started."""


class UnknownModelFamilyError(LaunchError, UnknownFamilyError):
    """No registry entry matches the model, so its tool-call parser is unknown.

    Also an `UnknownFamilyError`, the registry's own error, so code that catches that one
    catches this one too.

    Attributes:
        model: The model id or path that was looked up.
        known_parsers: The parser names the registry knows, sorted.
    """

    def __init__(self, message: str, *, model: str, known_parsers: Sequence[str]) -> None:
        UnknownFamilyError.__init__(self, message, model=model, known_parsers=known_parsers)


class ChatTemplateNotFoundError(LaunchError):
    """A chat template that vLLM ships in its `examples/` folder is not on this machine.

    Attributes:
        template: The template's file name.
        searched: The folders that were searched, in order.
    """

    def __init__(self, message: str, *, template: str, searched: Sequence[Path]) -> None:
        super().__init__(message)
        self.template = template
        self.searched = list(searched)


class VLLMNotFoundError(LaunchError):
    """Neither the `vllm` command nor an importable `vllm` package was found."""


class PortInUseError(LaunchError):
    """Something already listens on the host and port the server was asked to use.

    Attributes:
        host: The host.
        port: The port.
    """

    def __init__(self, message: str, *, host: str, port: int) -> None:
        super().__init__(message)
        self.host = host
        self.port = port


class ParallelLayoutError(LaunchError):
    """The parallel or multi-node options cannot work together (docs/scaling.md).

    Raised while planning, before anything starts: a node given a layout vLLM would refuse
    (or one that would wait for peers that cannot reach it) is caught where it is written.
    """


class ServerStartError(LaunchError):
    """The server process did not become ready.

    Attributes:
        log_path: The file that holds the server's output.
        log_tail: The last lines of that output.
        diagnosis: The likely cause found in the log, if one was recognised.
    """

    def __init__(
        self,
        message: str,
        *,
        log_path: Path,
        log_tail: str,
        diagnosis: Diagnosis | None,
    ) -> None:
        super().__init__(message)
        self.log_path = log_path
        self.log_tail = log_tail
        self.diagnosis = diagnosis


class ServerExitedError(ServerStartError):
    """The server process exited before `/health` answered.

    Attributes:
        returncode: The process's exit status (negative: killed by that signal).
    """

    def __init__(
        self,
        message: str,
        *,
        returncode: int,
        log_path: Path,
        log_tail: str,
        diagnosis: Diagnosis | None,
    ) -> None:
        super().__init__(message, log_path=log_path, log_tail=log_tail, diagnosis=diagnosis)
        self.returncode = returncode


class ServerStartTimeout(ServerStartError):
    """`/health` did not answer 200 within the startup timeout; the process was stopped."""
