"""How the commands' `--help` names values, and the check that a URL went to its option.

Recent typer releases print each value's Python type beside it (`<bool>` beside a flag,
`<list[str]>` beside `VLLM_ARGS`), which tells a user nothing and costs an 80-column
terminal the width the help text needs. The command classes here name a value by its
metavar (`--port PORT`, `--base-url URL`) and a flag by nothing. Older typer releases,
which name values as click does (`INTEGER`), are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import typer
import typer.core

__all__ = ["HelpCommand", "HelpGroup", "looks_like_url"]


def looks_like_url(text: str) -> bool:
    """`text` is a server URL (what `--base-url` and `--upstream` take), not a file or model."""
    return text.startswith(("http://", "https://"))


def _name_values_by_metavar(params: Iterable[Any]) -> None:
    for param in params:
        if not hasattr(param, "display_type_rich"):
            continue  # a typer that names types as click does
        # An argument's metavar already stands in the name column; a flag takes no value.
        label = None if param.param_type_name == "argument" else param.metavar
        # Per instance: typer builds the parameters, so their class cannot be chosen.
        param.__dict__["display_type_rich"] = lambda ctx=None, _label=label: _label


class HelpCommand(typer.core.TyperCommand):
    """A command whose help names values by their metavar, not their Python type."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write the help, each value named by its metavar."""
        _name_values_by_metavar(self.get_params(ctx))
        super().format_help(ctx, formatter)


class HelpGroup(typer.core.TyperGroup):
    """The command group whose help names values by their metavar (`--version`, `--help`)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write the help, each value named by its metavar."""
        _name_values_by_metavar(self.get_params(ctx))
        super().format_help(ctx, formatter)
