"""Reasoning blocks split off a model's text, whole or as it streams.

Reasoning models write their thoughts between markers before (or between) their answer and
calls. The markers differ by family; the splitter knows them all:

| family | opens | closes |
|---|---|---|
| Qwen3, DeepSeek, GLM, Kimi K2, Magistral (2506) | `<think>` | `</think>` |
| Magistral / Ministral 3 reasoning (tokenizer v13) | `[THINK]` | `[/THINK]` |
| Gemma 4 | `<\\|channel>thought` | `<channel\\|>` |
| Kimi K3 | `<\\|open\\|>think<\\|sep\\|>` | `<\\|close\\|>think<\\|sep\\|>` |

Reasoning comes before the answer: a block opens only at the start of the text or right
after another block (blank space aside). Once the answer has begun, an opening marker is
text (a tool argument that documents `<think>` stays an argument).

A chat template often writes the opening marker itself (`<think>\\n` at the end of the
prompt): then the text starts inside a block (`open=True`) and the first closing marker of
any family ends it. gpt-oss writes its reasoning as a Harmony `analysis` message, which the
`harmony` format reads itself (a message header decides what its body is).

Blank space that only frames text is dropped: at the start and end of each block's
reasoning, and before the answer (`</think>\\n\\n`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from toolcall_sdk.parsing._markup import TagSet

__all__ = ["BLOCKS", "ReasoningSplitter", "split_reasoning"]

_BLANK: Final = " \t\r\n"


@dataclass(frozen=True, slots=True)
class _Block:
    opener: str
    closers: tuple[str, ...]
    # Markup that ends the block without belonging to it: Kimi K3 may skip its `think`
    # channel's close and go straight to the response or the tools, whose markup the
    # format then reads.
    yields_to: tuple[str, ...] = ()


BLOCKS: Final = (  # every family's reasoning markers
    _Block("<think>", ("</think>",)),
    _Block("[THINK]", ("[/THINK]",)),
    _Block("<|channel>thought", ("<channel|>",)),
    _Block(
        "<|open|>think<|sep|>",
        ("<|close|>think<|sep|>",),
        ("<|open|>response<|sep|>", "<|open|>tools<|sep|>"),
    ),
)
_OPENERS: Final = TagSet(*(b.opener for b in BLOCKS))
_BY_OPENER: Final = {b.opener: b for b in BLOCKS}
# A block the prompt opened: its family is not known, so any closing marker ends it. A
# Qwen model may also start a call without closing the block the template opened.
_PROMPT_BLOCK: Final = _Block(
    "",
    tuple(c for b in BLOCKS for c in b.closers),
    (*(y for b in BLOCKS for y in b.yields_to), "<tool_call>"),
)
_ENDS: Final = {id(b): TagSet(*b.closers, *b.yields_to) for b in (*BLOCKS, _PROMPT_BLOCK)}


def split_reasoning(text: str, *, open: bool = False) -> tuple[str, str]:
    """Split a whole text into its reasoning and its content.

    Args:
        text: Model output.
        open: The prompt ended inside a reasoning block (the template wrote `<think>`), so
            the text starts as reasoning.

    Returns:
        `(reasoning, content)`: the text of every reasoning block, joined, and the rest with
        the block markers removed.
    """
    splitter = ReasoningSplitter(open=open)
    reasoning, content = splitter.feed(text)
    tail_reasoning, tail_content = splitter.close()
    return reasoning + tail_reasoning, content + tail_content


class ReasoningSplitter:
    """Splits a stream of deltas into reasoning and content as they arrive.

    A marker may arrive cut at any character: text that may still become one is held back
    until it does or cannot. Whatever the split, the joined pieces equal what
    `split_reasoning` returns for the whole text.

        splitter = ReasoningSplitter(open=True)
        for delta in deltas:
            reasoning, content = splitter.feed(delta)
        reasoning, content = splitter.close()

    Args:
        open: The text starts inside a reasoning block the prompt opened.
    """

    __slots__ = ("_answering", "_block", "_buf", "_closed", "_fresh", "_gap")

    def __init__(self, *, open: bool = False) -> None:
        self._buf = ""
        self._block: _Block | None = _PROMPT_BLOCK if open else None
        self._answering = False  # the answer began: no block opens any more
        self._fresh = True  # at the start of a block's text
        self._gap = ""  # blank space at the end of a block's text so far
        self._closed = False

    @property
    def in_reasoning(self) -> bool:
        """Whether the text read so far ends inside a reasoning block."""
        return self._block is not None

    def feed(self, delta: str) -> tuple[str, str]:
        """Read the next delta; return the `(reasoning, content)` it completes."""
        if self._closed:
            raise RuntimeError("feed() after close(): start a new ReasoningSplitter")
        self._buf += delta
        return self._run(final=False)

    def close(self) -> tuple[str, str]:
        """Say the text has ended; release what was held back."""
        if self._closed:
            return "", ""
        self._closed = True
        return self._run(final=True)

    def _run(self, final: bool) -> tuple[str, str]:
        reasoning: list[str] = []
        content: list[str] = []
        buf = self._buf
        pos = 0
        while True:
            block = self._block
            if self._answering:
                content.append(buf[pos:])
                pos = len(buf)
                break
            if block is None:  # before the answer: blank space, maybe another block
                pos = len(buf) - len(buf[pos:].lstrip(_BLANK))
                if pos == len(buf):
                    break
                tag = next((o for o in _OPENERS.tags if buf.startswith(o, pos)), None)
                if tag is None:
                    if not final and _OPENERS.hold_from(buf, pos) == pos:
                        break  # may still become an opening marker
                    self._answering = True
                    continue
                self._block = _BY_OPENER[tag]
                self._fresh, self._gap = True, ""
                pos += len(tag)
                continue
            ends = _ENDS[id(block)]
            i, tag = ends.find(buf, pos)
            end = i if i >= 0 else (len(buf) if final else ends.hold_from(buf, pos))
            self._think(reasoning, buf[pos:end], ended=i >= 0 or final)
            if i < 0:
                pos = end
                break
            self._block = None
            pos = i + (len(tag) if tag in block.closers else 0)
        self._buf = buf[pos:]
        return "".join(reasoning), "".join(content)

    def _think(self, out: list[str], text: str, *, ended: bool) -> None:
        """Release a block's next `text`, less blank space at its start and (once `ended`)
        its end; blank space at the end of `text` waits to see whether text follows it."""
        if self._fresh:
            text = text.lstrip(_BLANK)
            if not text:
                return
            self._fresh = False
        body = text.rstrip(_BLANK)
        if body:
            out.append(self._gap + body)
            self._gap = ""
        self._gap = "" if ended else self._gap + text[len(body) :]
