"""The one error type of the demo build: a line that says what went wrong and what to do."""

from __future__ import annotations

__all__ = ["DemoModelError"]


class DemoModelError(RuntimeError):
    """The demo model could not be fetched, checked or converted.

    The message is one line naming the cause and the fix (a bad hash, a full disk, too little
    memory, a missing package); `python -m toolcall_sdk_demo` prints it as `error: ...`.
    """
