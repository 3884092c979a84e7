"""Reading a conversation the way a stage-1 router needs it.

Pure functions over OpenAI chat messages: the request to route (the last user message),
a short context of earlier user turns, and lexical facts about the request (words,
numbers, entity-like tokens) that say whether the arguments of a tool can be filled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ConversationText", "content_words", "read_conversation", "stem"]

# Earlier user turns carry the topic of a follow-up ("and in Paris?"); a few are enough.
_CONTEXT_TURNS = 3
# The embedding model truncates at 256 word pieces; longer texts only cost time.
_MAX_CHARS = 1000
# Sentences embedded on their own: enough for a preamble plus the ask, few enough to stay
# within the latency budget (each one is another text in the same encoder batch).
_MAX_CHUNKS = 4
_MIN_CHUNK_CHARS = 12
# Sentence ends, including the CJK full stop and full-width ? and !.
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff1f\uff01])\s+|\n+|(?<=[\u3002\uff1f\uff01])")

_WORD = re.compile(r"[A-Za-z][A-Za-z']+")
_NUMBER = re.compile(r"(?<![A-Za-z])[-+]?\d[\d,.:/-]*")
# Straight, curly (\u2018 \u2019 \u201c \u201d) and back quotes.
_QUOTED = re.compile(r"[\"\u201c'\u2018`]([^\"\u201d'\u2019`]{1,80})[\"\u201d'\u2019`]")
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]+")
# Paths, URLs, e-mail addresses, identifiers with digits or separators: clearly an argument.
_TECHNICAL = re.compile(r"\S*[/@\\_#]\S*|\b[A-Za-z]+\d+\w*\b|\b\w+\.\w{2,4}\b")
_NUMBER_WORDS = frozenset(
    [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "thousand",
        "million",
        "billion",
        "half",
        "dozen",
        "first",
        "second",
        "third",
    ]
)
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank",
        "ok",
        "okay",
        "yes",
        "sure",
        "want",
        "need",
        "like",
        "get",
        "give",
        "tell",
        "know",
        "find",
        "help",
        "could",
        "would",
        "me",
        "us",
        "i'd",
        "i'm",
        "it's",
    ]
)


@dataclass(frozen=True, slots=True)
class ConversationText:
    """The parts of a conversation a router looks at.

    Attributes:
        query: The text of the last user message.
        context: The last few user messages joined (the query when there is one).
        user_turns: How many user messages the conversation has.
        after_tool: Whether the conversation ends with a tool result or a tool call.
        has_system: Whether a system message is present.
        assistant_turns: How many assistant messages it has.
        chunks: The query's sentences when it has several (a chatty request often holds
            its actual ask in one sentence among pleasantries and background).
    """

    query: str
    context: str
    user_turns: int
    after_tool: bool
    has_system: bool
    assistant_turns: int
    chunks: tuple[str, ...] = ()

    @property
    def texts(self) -> list[str]:
        """Everything a router embeds: the query, the context, then the chunks."""
        return [self.query, self.context, *self.chunks]


def read_conversation(messages: Sequence[Mapping[str, Any]]) -> ConversationText:
    """Extract the request to route and its context from chat messages."""
    users = [_text(m) for m in messages if m.get("role") == "user"]
    users = [u for u in users if u.strip()]
    query = users[-1] if users else ""
    context = " ".join(users[-_CONTEXT_TURNS:]) if len(users) > 1 else query
    tail = [m for m in messages if m.get("role") != "system"]
    last = tail[-1] if tail else {}
    after_tool = last.get("role") == "tool" or bool(last.get("tool_calls"))
    return ConversationText(
        query=query[-_MAX_CHARS:],
        context=context[-_MAX_CHARS:],
        user_turns=len(users),
        after_tool=after_tool,
        has_system=any(m.get("role") == "system" for m in messages),
        assistant_turns=sum(1 for m in messages if m.get("role") == "assistant"),
        chunks=_chunks(query[-_MAX_CHARS:]),
    )


def _chunks(query: str) -> tuple[str, ...]:
    sentences = [s.strip() for s in _SENTENCE_END.split(query)]
    sentences = [s for s in sentences if len(s) >= _MIN_CHUNK_CHARS]
    if len(sentences) < 2:
        return ()
    # The ask usually closes a chatty message, so the last sentences are kept.
    return tuple(sentences[-_MAX_CHUNKS:])


def stem(word: str) -> str:
    """A crude English stem, enough to match "booking" with "book" and "cities" with "city"."""
    word = word.lower().strip("'")
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


def content_words(text: str) -> set[str]:
    """Stems of the non-stopword words of at least three letters."""
    return {stem(w) for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in STOPWORDS}


def numbers(text: str) -> list[str]:
    """Numbers written with digits, plus number words."""
    found = _NUMBER.findall(text)
    found += [w for w in _WORD.findall(text.lower()) if w in _NUMBER_WORDS]
    return found


def entities(text: str) -> list[str]:
    """Entity-like tokens: quoted strings, capitalised words, paths, ids, URLs."""
    return _QUOTED.findall(text) + _CAPITALISED.findall(text) + _TECHNICAL.findall(text)


def non_ascii_share(text: str) -> float:
    """The share of letters outside ASCII (a request the English model cannot read)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if ord(c) > 127) / len(letters)


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return str(content or "")
