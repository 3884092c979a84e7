"""vLLM tool-parser plugin: every format the SDK reads, for models whose tags are plain tokens.

vLLM loads this file inside its server process (it is the only file of the SDK that imports
vLLM; the SDK itself never imports it). It registers one parser per format,
`toolcall_<format>` (`toolcall_hermes`, `toolcall_qwen3_xml`, `toolcall_glm45`, ...):

    PLUGIN=$(python -c 'from toolcall_sdk.vllm_plugin import plugin_path; print(plugin_path())')
    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$PLUGIN" --tool-call-parser toolcall_hermes

It reads the model's text with the SDK's own `toolcall_sdk.parsing` (the same code the client
uses to recover calls), so a tag the tokenizer splits into `<`, `tool`, `_call`, `>` is held
back until it completes or cannot, and never reaches the client as content; text after the
calls is kept as content. The decisions are made in `toolcall_sdk.vllm_plugin._adapter`; this
file only copies them into vLLM's classes. The SDK must be importable in vLLM's Python.

For `tool_choice="required"` and named calls, `toolcall_hermes` asks vLLM for the same Hermes
structural tag as vLLM's own `hermes` parser, so constrained calls are decoded the same way.
(The file keeps its first name, `hermes_buffered.py`, so existing command lines still work.)

Tested with vLLM 0.32.0 (tests/integration/test_plugin_live.py); the module paths of older
releases are tried as well, untested.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:
    import toolcall_sdk  # noqa: F401
except ImportError:
    # vLLM loads this file by its path; the Python running vLLM may not have the SDK on its
    # path even though the file sits inside it. The package folder is two levels up.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# vLLM moved these modules between releases; the newer paths are tried first.
try:
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager
except ImportError:  # older vLLM
    from vllm.entrypoints.openai.tool_parsers.abstract_tool_parser import (
        ToolParser,
        ToolParserManager,
    )
try:
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
except ImportError:  # older vLLM
    from vllm.entrypoints.openai.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )

from toolcall_sdk.parsing import FORMATS
from toolcall_sdk.vllm_plugin import PARSER_NAMES
from toolcall_sdk.vllm_plugin._adapter import CallPiece, FormatDeltas, Piece, Schemas, extract

__all__ = ["BufferedHermesToolParser", "BufferedToolParser"]


class BufferedToolParser(ToolParser):  # type: ignore[misc]
    """A tool parser that buffers tags split across tokens (see the module docstring); one
    subclass per format sets `format`.

    Args:
        tokenizer: The model's tokenizer (vLLM passes it; the parser reads text only).
        tools: The request's tools, when vLLM passes them.
    """

    format = "hermes"

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        if tools is None:
            super().__init__(tokenizer)
        else:
            super().__init__(tokenizer, tools)
        self._deltas: FormatDeltas | None = None  # made with the first request's schemas
        self._fed = 0  # characters of the answer read so far

    def adjust_request(self, request: Any) -> Any:
        """Keep special tokens in the text, as vLLM's `hermes` parser does.

        Models that do have `<tool_call>` as a special token would otherwise lose the tag
        before the parser sees it.
        """
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none":
            request.skip_special_tokens = False
        return request

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """Read the calls of a whole answer (non-streaming responses)."""
        found = extract(model_output, format=self.format, schemas=_schemas(request))
        if not found.calls:
            return ExtractedToolCallInformation(
                tools_called=False, tool_calls=[], content=found.content
            )
        return ExtractedToolCallInformation(
            tools_called=True,
            tool_calls=[
                ToolCall(
                    id=call.id,
                    type="function",
                    function=FunctionCall(name=call.name, arguments=call.arguments),
                )
                for call in found.calls
            ],
            content=found.content,
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        """Read the next delta of a streamed answer; None when everything new is held back."""
        # `current_text` is the answer so far: reading its unread tail keeps the parser in
        # step with it, whatever vLLM put in `delta_text`; a shorter one means vLLM started
        # the text afresh, and then only the delta is new.
        text = current_text[self._fed :] if len(current_text) >= self._fed else delta_text
        self._fed += len(text)
        if self._deltas is None:
            self._deltas = FormatDeltas(self.format, schemas=_schemas(request))
        piece = self._deltas.feed(text)
        if piece is None:
            return None
        if piece.calls:
            self._remember()
        return _delta_message(piece)

    def get_remaining_unstreamed_args(self) -> str:
        """Nothing: every argument character read is sent at once."""
        return ""

    def _remember(self) -> None:
        # The state vLLM's own parsers keep, in the same shape as its `hermes` parser keeps it
        # (argument text as streamed), for serving code that reads it.
        assert self._deltas is not None
        names, arguments = self._deltas.names, self._deltas.arguments
        self.prev_tool_call_arr = [
            {"name": name, "arguments": args} for name, args in zip(names, arguments, strict=True)
        ]
        self.streamed_args_for_tool = arguments
        self.current_tool_id = len(names) - 1
        self.current_tool_name_sent = bool(names)


def _schemas(request: Any) -> Schemas | None:
    """The request's tool schemas by name, for the formats whose values are bare text."""
    tools = getattr(request, "tools", None) or []
    out: dict[str, Any] = {}
    for tool in tools:
        function = getattr(tool, "function", None)
        name = getattr(function, "name", None)
        if isinstance(name, str):
            out[name] = getattr(function, "parameters", None) or {}
    return out or None


def _function(call: CallPiece) -> Any:
    # Only the fields this piece carries, so the wire shows no `"name": null` on argument
    # deltas (vLLM's own parsers send the same shape).
    if call.name is None:
        return DeltaFunctionCall(arguments=call.arguments)
    if call.arguments is None:
        return DeltaFunctionCall(name=call.name)
    return DeltaFunctionCall(name=call.name, arguments=call.arguments)


def _delta_message(piece: Piece) -> Any:
    calls = []
    for call in piece.calls:
        calls.append(
            DeltaToolCall(
                index=call.index,
                id=call.id,
                type="function" if call.id is not None else None,
                function=_function(call),
            )
        )
    return DeltaMessage(content=piece.content, tool_calls=calls)


class BufferedHermesToolParser(BufferedToolParser):
    """`toolcall_hermes`: Hermes `<tool_call>` JSON calls."""

    format = "hermes"
    # Same grammar as vLLM's `hermes` parser for required and named tool choice.
    structural_tag_model = "hermes"


_PARSERS = {"hermes": BufferedHermesToolParser}
for _format in FORMATS:
    _parser = _PARSERS.get(_format) or type(
        f"Buffered_{_format}_ToolParser", (BufferedToolParser,), {"format": _format}
    )
    ToolParserManager.register_module(name=PARSER_NAMES[_format], module=_parser)
