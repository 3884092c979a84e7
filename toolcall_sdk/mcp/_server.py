"""`McpServer`: a stdio MCP server's tools as SDK tools.

The MCP session is asynchronous and bound to the event loop that opened it, while the
clients run tools from sync code (`ToolCallClient`) or from their own loop
(`AsyncToolCallClient`, in a worker thread for sync tools). So the session lives on an
event loop of its own, in a background thread (an anyio blocking portal), and each tool
call is handed to it; the tools are plain sync functions to both clients.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import sys
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp import types as mcp_types
from pydantic import BaseModel

from toolcall_sdk._context import RunContext
from toolcall_sdk._errors import StrictSchemaError, ToolCallError, ToolDefinitionError
from toolcall_sdk._schema import openai_tool_entry
from toolcall_sdk._schema_tools import tool_from_openai
from toolcall_sdk._tools import Tool

__all__ = ["McpServer", "McpTool", "McpToolError"]

# MCP allows longer names and dots; OpenAI-compatible servers take [A-Za-z0-9_-]{1,64}.
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64
_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


class McpToolError(ToolCallError):
    """The MCP server answered a tool call with an error result.

    Recorded as the call's `.error` and reported to the model like any tool error.

    Attributes:
        tool_name: The tool's name on the server.
    """

    def __init__(self, message: str, *, tool_name: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class McpTool(Tool[..., Any]):
    """A tool listed by an MCP server: validated here, run by the server.

    Attributes:
        remote_name: The tool's name on the server (`name` is the one the model sees).
        input_schema: The input schema the server listed.
    """

    def __init__(
        self,
        *,
        server: McpServer,
        remote_name: str,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        args_model: type[BaseModel],
        timeout: float | None,
        requires_approval: bool,
    ) -> None:
        super().__init__(
            name=name,
            description=description,
            args_model=args_model,
            timeout=timeout,
            requires_approval=requires_approval,
        )
        self.remote_name = remote_name
        self.input_schema = input_schema
        self._server = server

    def __repr__(self) -> str:
        return f"<McpTool {self.name!r} (server tool {self.remote_name!r})>"

    def openai_schema(self, *, strict: bool = True) -> dict[str, Any]:
        """The `tools` entry: the server's schema, in strict form when it can be."""
        use_strict = strict if self.strict is None else self.strict
        for strict_form in (True, False) if use_strict else (False,):
            try:
                return openai_tool_entry(
                    name=self.name,
                    description=self.description,
                    parameters=copy.deepcopy(self.input_schema),
                    strict=strict_form,
                )
            except StrictSchemaError:
                continue  # a free-form object: sent as the server wrote it
        raise AssertionError("the plain form never raises StrictSchemaError")

    def invoke(self, arguments: BaseModel, context: RunContext[Any] | None = None) -> str:
        """Call the tool on the server with the validated arguments (keys as in its schema).

        Returns:
            The text of the server's result.

        Raises:
            McpToolError: The server reported the call as failed.
        """
        values = arguments.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return self._server.call(self.remote_name, values)


class McpServer:
    """An MCP server started as a subprocess and spoken to over stdio.

    Use it as a context manager (or `open()`/`close()`); inside, `.tools` are SDK tools
    for either client's `tools=`. A tool call waits for the server's answer: give
    `timeout` to bound it like `@tool(timeout=...)`.

    Args:
        command: The executable that starts the server (e.g. `"python"`, `"npx"`).
        args: Its arguments.
        env: Extra environment variables for the server.
        cwd: The server's working directory.
        include: Offer only these tools (names on the server); None offers all.
        prefix: Put before each tool's name (keeps names of two servers apart).
        timeout: Seconds a call may take (`ToolTimeoutError` past it); None waits.
        requires_approval: True for every tool, or the names (on the server) of the tools
            that pause a run with `ApprovalRequired` before they are called.
        errlog: Where the server's stderr goes (default: this process's stderr).
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        include: Collection[str] | None = None,
        prefix: str = "",
        timeout: float | None = None,
        requires_approval: bool | Collection[str] = False,
        errlog: TextIO | None = None,
    ) -> None:
        self._parameters = StdioServerParameters(
            command=command, args=list(args), env=dict(env) if env else None, cwd=cwd
        )
        self._include = None if include is None else set(include)
        self._prefix = prefix
        self._timeout = timeout
        self._approval = requires_approval
        self._errlog = errlog
        self._stack: contextlib.ExitStack | None = None
        self._portal: BlockingPortal | None = None
        self._session: ClientSession | None = None
        self._tools: list[McpTool] = []

    def __enter__(self) -> McpServer:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def tools(self) -> list[McpTool]:
        """The server's tools as SDK tools (listed when the connection opened)."""
        self._connected()
        return list(self._tools)

    def open(self) -> None:
        """Start the server, initialise the session and list its tools.

        Raises:
            ToolDefinitionError: A listed tool cannot become an SDK tool, or `include`
                names a tool the server does not have.
        """
        if self._stack is not None:
            return
        stack = contextlib.ExitStack()
        try:
            portal = stack.enter_context(start_blocking_portal(name="toolcall-sdk-mcp"))
            self._session = stack.enter_context(portal.wrap_async_context_manager(self._connect()))
            self._portal = portal
            self._stack = stack
            listed = portal.call(self._list_tools)
            self._tools = self._as_tools(listed)
        except BaseException:
            self._stack = None
            stack.close()
            raise

    def close(self) -> None:
        """End the session and stop the server."""
        stack, self._stack = self._stack, None
        self._portal = self._session = None
        if stack is not None:
            stack.close()

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Call a tool on the server directly (no validation here) and return its text.

        Raises:
            McpToolError: The server reported the call as failed.
        """
        portal, session = self._connected()
        result = portal.call(session.call_tool, name, dict(arguments))
        if not isinstance(result, mcp_types.CallToolResult):
            raise McpToolError(
                f"MCP tool {name!r} answered with {type(result).__name__}, not a tool result",
                tool_name=name,
            )
        text = _result_text(result)
        if result.is_error:
            raise McpToolError(text or f"MCP tool {name!r} failed", tool_name=name)
        return text

    @contextlib.asynccontextmanager
    async def _connect(self) -> AsyncIterator[ClientSession]:
        errlog = self._errlog if self._errlog is not None else sys.stderr
        async with (
            stdio_client(self._parameters, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session

    async def _list_tools(self) -> list[mcp_types.Tool]:
        session = self._session
        assert session is not None
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        while True:
            params = None if cursor is None else mcp_types.PaginatedRequestParams(cursor=cursor)
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                return tools

    def _as_tools(self, listed: Sequence[mcp_types.Tool]) -> list[McpTool]:
        names = {tool.name for tool in listed}
        if self._include is not None and not self._include <= names:
            raise ToolDefinitionError(
                f"include names tool(s) {sorted(self._include - names)} that the MCP server "
                f"does not list; it lists {sorted(names)}"
            )
        return [
            self._as_tool(tool)
            for tool in listed
            if self._include is None or tool.name in self._include
        ]

    def _as_tool(self, listed: mcp_types.Tool) -> McpTool:
        name = _NOT_IN_NAME.sub("_", f"{self._prefix}{listed.name}")[:_MAX_NAME]
        schema = dict(listed.input_schema or _EMPTY_OBJECT)
        description = listed.description or ""
        definition = {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": schema},
        }
        approval = self._approval
        return McpTool(
            server=self,
            remote_name=listed.name,
            name=name,
            description=description,
            input_schema=schema,
            args_model=tool_from_openai(definition).args_model,
            timeout=self._timeout,
            requires_approval=approval if isinstance(approval, bool) else listed.name in approval,
        )

    def _connected(self) -> tuple[BlockingPortal, ClientSession]:
        if self._portal is None or self._session is None:
            raise ToolCallError(
                "the MCP server is not connected: use `with McpServer(...) as server:` "
                "(or call open() first)"
            )
        return self._portal, self._session


def _result_text(result: mcp_types.CallToolResult) -> str:
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        else:  # images, audio, resources: the model gets what it is, not the bytes
            parts.append(f"[{block.type}]")
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False, default=str)
    return "\n".join(parts)
