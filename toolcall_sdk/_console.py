"""The Rich console every command prints through, and how data goes on it.

What a command prints about the world (findings, fixes, error messages, install hints,
file paths, model output) is data, not markup: Rich reads `[embeds]` in
`pip install "toolcall-sdk[embeds]"` as a style tag and drops it. Such text goes on the
console as `rich.text.Text` (`plain()`), which Rich never parses; only the commands' own
decoration is written in markup. The console also leaves `:name:` alone (no emoji) and does
not colour numbers and paths, so the terminal shows the text exactly as it was made.

Rich is the CLI's dependency (the `cli` extra), imported when a console is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = ["cli_console", "plain"]


def cli_console(
    *,
    stderr: bool = False,
    width: int | None = None,
    file: TextIO | None = None,
    soft_wrap: bool = False,
) -> Console:
    """The console a command prints on.

    Args:
        stderr: Write to standard error instead of standard output.
        width: Columns to lay tables out in; None for the terminal's.
        file: Write there instead (tests).
        soft_wrap: Leave long lines to the terminal instead of wrapping them.
    """
    from rich.console import Console

    return Console(
        stderr=stderr, width=width, file=file, soft_wrap=soft_wrap, highlight=False, emoji=False
    )


def plain(text: str, style: str = "") -> Text:
    """`text` as Rich shows it: every character kept, brackets included."""
    from rich.text import Text

    return Text(text, style=style)
