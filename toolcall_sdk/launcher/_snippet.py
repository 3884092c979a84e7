"""The ready-to-paste client code printed once a server is up."""

from __future__ import annotations

import json

__all__ = ["client_snippet"]


def client_snippet(
    base_url: str, model: str, *, api_key: bool = False, hidden_size: int | None = None
) -> str:
    """Return Python code that builds a `ToolCallClient` for a running server.

    Args:
        base_url: The server's OpenAI-compatible base URL.
        model: The model name the server serves.
        api_key: Whether the server wants an API key; the code then reads it from
            `$VLLM_API_KEY` instead of holding it.
        hidden_size: The model's hidden size, for a server that takes prompt embeddings:
            the client then refuses tensors of another width before sending them.

    Returns:
        The code, one statement per line.
    """
    # json.dumps writes a double-quoted literal that is also valid Python.
    lines = ["import os", ""] if api_key else []
    lines += [
        "from toolcall_sdk import ToolCallClient",
        "",
        "client = ToolCallClient(",
        f"    base_url={json.dumps(base_url)},",
        f"    model={json.dumps(model)},",
        "    tools=[...],  # your @tool functions",
    ]
    if api_key:
        lines.append('    api_key=os.environ["VLLM_API_KEY"],')
    if hidden_size is not None:
        lines.append(f"    hidden_size={hidden_size},  # prompt embeddings are checked against it")
    lines.append(")")
    return "\n".join(lines)
