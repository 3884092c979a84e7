"""A tiny MCP server over stdio for the tests: a ledger that counts what it was asked to do."""

from __future__ import annotations

from collections import Counter

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("ledger")
entries: Counter[str] = Counter()


@server.tool()
def add_entry(account: str, amount_vnd: int) -> str:
    """Add an entry to an account's ledger."""
    entries[account] += 1
    return f"entry {entries[account]} for {account}: {amount_vnd} VND"


@server.tool()
def close_books(year: int) -> str:
    """Close the books of a year."""
    # ToolError: the server reports the message (any other exception is hidden from clients).
    raise ToolError(f"the books of {year} are already closed")


@server.tool()
def count_entries(account: str) -> int:
    """How many entries an account has."""
    return entries[account]


if __name__ == "__main__":
    server.run()
