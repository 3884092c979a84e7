"""Tools served by an MCP server, as SDK tools (extra `mcp`: `pip install "toolcall-sdk[mcp]"`).

    from toolcall_sdk.mcp import McpServer

    with McpServer("python", ["ledger_server.py"]) as ledger:
        client = ToolCallClient(model=..., tools=ledger.tools)
        result = client.run("Book 500 VND to A-1", max_steps=4)

Each tool the server lists becomes a `Tool`: its input schema becomes the Pydantic model
that validates the model's arguments (the same feedback and retries as `@tool`), and
running it calls the server. See docs/agents.md.
"""

from toolcall_sdk._extras import require

require("mcp", extra="mcp", feature="toolcall_sdk.mcp")

from toolcall_sdk.mcp._server import McpServer, McpTool, McpToolError  # noqa: E402

__all__ = ["McpServer", "McpTool", "McpToolError"]
