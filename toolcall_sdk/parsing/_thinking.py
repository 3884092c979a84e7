"""Reasoning blocks split off a model's text, whole or as it streams.

Reasoning models write their thoughts between markers before (or between) their answer and
calls. The markers differ by family; the splitter knows them all:

| family | opens | closes |
|---|---|---|
| Qwen3, DeepSeek, GLM, Kimi K2, Magistral (2506) | `<think>` | `</think>` |
| Magistral / Ministral 3 reasoning (tokenizer v13) | `[THINK]` | `[/THINK]` |
| Gemma 4 | `<\\|channel>thought` | `<channel\\|>` |
| Kimi K3 | `<\\|open\\|>think<\\|sep\\|>` | `<\\|close\\|>think<\\|sep\\|>` |

A chat template often writes the opening marker itself (`<think>\\n` at the end of the
prompt): then the text starts inside a block (`open=True`) and the first closing marker of
any family ends it. gpt-oss writes its reasoning as a Harmony `analysis` message, which the
`harmony` format reads itself (a message header decides what its body is).

Blank space that only frames text is dropped: at the start and end of each block's
reasoning, at the start of the content and of the content after each block
(`</think>\\n\\n`), and before an opening marker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from toolcall_sdk.parsing._markup import TagSet

__all__ = ["ReasoningSplitter", "split_reasoning"]

_BLANK: Final = " \t\r\n"


@dataclass(frozen=True, slots=True)
class _Block:
    opener: str
    closers: tuple[str, ...]
    # Markup that ends the block without belonging to it: Kimi K3 may skip its `think`
    # channel's close and go straight to the response or the tools, whose markup the
    # format then reads.
    yields_to: tuple[str, ...] = ()


_BLOCKS: Final = (
    _Block("<think>", ("</think>",)),
    _Block("[THINK]", ("[/THINK]",)),
    _Block("<|channel>thought", ("<channel|>",)),
    _Block(
        "<|open|>think<|sep|>",
        ("<|close|>think<|sep|>",),
        ("<|open|>response<|sep|>", "<|open|>tools<|sep|>"),
    ),
)
_OPENERS: Final = TagSet(*(b.opener for b in _BLOCKS))
_BY_OPENER: Final = {b.opener: b for b in _BLOCKS}
# A block the prompt opened: its family is not known, so any closing marker ends it.
_PROMPT_BLOCK: Final = _Block(
    "",
    tuple(c for b in _BLOCKS for c in b.closers),
    tuple(y for b in _BLOCKS for y in b.yields_to),
)
_ENDS: Final = {id(b): TagSet(*b.closers, *b.yields_to) for b in (*_BLOCKS, _PROMPT_BLOCK)}


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

    __slots__ = ("_block", "_buf", "_closed", "_fresh", "_gap")

    def __init__(self, *, open: bool = False) -> None:
        self._buf = ""
        self._block: _Block | None = _PROMPT_BLOCK if open else None
        # At the start of a block's text, or of the content after a block (or of the
        # text): blank space here is dropped if markup or the block's end follows.
        self._fresh = True
        self._gap = ""  # blank space held back: released only if text follows it
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
            if block is None:
                i, tag = _OPENERS.find(buf, pos)
                end = i if i >= 0 else (len(buf) if final else _OPENERS.hold_from(buf, pos))
                self._emit(content, buf[pos:end], opening=i >= 0, final=final and i < 0)
                if i < 0:
                    pos = end
                    break
                self._block = _BY_OPENER[tag]
                self._fresh, self._gap = True, ""
                pos = i + len(tag)
                continue
            ends = _ENDS[id(block)]
            i, tag = ends.find(buf, pos)
            end = i if i >= 0 else (len(buf) if final else ends.hold_from(buf, pos))
            self._emit(reasoning, buf[pos:end], opening=i >= 0, final=final and i < 0)
            if i < 0:
                pos = end
                break
            self._block = None
            self._fresh, self._gap = True, ""
            pos = i + (len(tag) if tag in block.closers else 0)
        self._buf = buf[pos:]
        return "".join(reasoning), "".join(content)

    def _emit(self, out: list[str], text: str, *, opening: bool, final: bool) -> None:
        """Release `text`, keeping blank space that frames a block or starts the content.

        Args:
            out: Where released text goes.
            text: The next text of the current block or of the content.
            opening: Markup (a block's start or end) follows `text`: trailing blank space is
                framing, and dropped.
            final: The text ended after `text`: blank space at the end of a block is
                dropped, trailing content is released.
        """
        if not text:
            if final and self._block is None and self._gap and not self._fresh:
                out.append(self._gap)
                self._gap = ""
            return
        if self._fresh:
            text = text.lstrip(_BLANK)
            if not text:
                return
            self._fresh = False
        body = text.rstrip(_BLANK)
        if body:
            out.append(self._gap + body)
            self._gap = ""
        self._gap += text[len(body) :]
        if opening:
            self._gap = ""
        elif final and self._block is None:
            out.append(self._gap)
            self._gap = ""
