"""The features the embedding router scores a (conversation, toolbox) pair with.

One cosine between the request and the best tool separates "call" from "no call" poorly
once requests get chatty or a tool is in the right domain but cannot be served. The
features here add what a cosine misses: how far the best tool stands out from the others,
how close the request is to small talk, whether its words name the tool's parameters, and
whether the arguments the best tools require can be filled from the request at all.

Needs numpy (the `router` extra); imported only by the embedding router.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from toolcall_sdk.routing._tool_specs import ToolSpec
from toolcall_sdk.routing.embedding._text import (
    ConversationText,
    content_words,
    entities,
    non_ascii_share,
    numbers,
    stem,
)

__all__ = ["CHITCHAT", "FEATURE_NAMES", "ToolVocabulary", "features", "rank_tools"]

Matrix = NDArray[np.float32]

#: Small-talk prototypes: a request close to these needs no tool whatever the toolbox.
CHITCHAT: tuple[str, ...] = (
    "hi",
    "hello, how are you?",
    "good morning!",
    "thanks, that's all",
    "thank you so much for your help",
    "ok, great",
    "bye, see you later",
    "who are you?",
    "what can you do?",
    "tell me a joke",
    "I'm bored, let's chat",
    "what is the meaning of life?",
    "can you explain how this works?",
    "that's not what I asked",
    "never mind",
    "안녕하세요",
    "감사합니다",
    "你好",
    "谢谢",
    "xin chào",
    "cảm ơn bạn",
)

FEATURE_NAMES: tuple[str, ...] = (
    "cos_max",
    "cos_margin",
    "cos_mean",
    "context_gain",
    "chunk_cos_max",
    "chunk_gain",
    "chitchat_max",
    "cos_minus_chitchat",
    "lexical_best",
    "lexical_max",
    "name_hit",
    "required_count",
    "required_satisfied_best",
    "required_satisfied_top3",
    "required_unsatisfied_best",
    "required_unsatisfied_loose",
    "number_count",
    "entity_count",
    "query_words",
    "non_ascii",
    "question",
    "after_tool",
    "user_turns",
    "assistant_turns",
    "has_system",
    "tool_count",
)

# Ranking blends the cosine with word overlap: a request naming a parameter of a tool
# points at that tool even when the descriptions of several tools read alike.
_LEXICAL_WEIGHT = 0.05
_QUESTION_WORDS = ("what", "who", "where", "when", "why", "how", "which", "is ", "are ", "can ")


class ToolVocabulary:
    """The stems a tool can be recognised by (name, description, parameters, enum values).

    Built once per tool and cached with the toolbox.
    """

    __slots__ = ("enums", "name_stems", "parameter_stems", "stems")

    def __init__(self, spec: ToolSpec) -> None:
        self.name_stems = {stem(w) for w in spec.words.split() if len(w) >= 4}
        parts = [spec.words, spec.description]
        self.parameter_stems: dict[str, set[str]] = {}
        self.enums: dict[str, list[str]] = {}
        for name, schema in spec.properties.items():
            words = " ".join(_split_identifier(str(name)))
            parts.append(words)
            self.parameter_stems[str(name)] = content_words(words)
            if isinstance(schema, Mapping):
                parts.append(str(schema.get("description", "")))
                enum = schema.get("enum")
                if isinstance(enum, list):
                    self.enums[str(name)] = [str(v).lower() for v in enum]
                    parts.extend(str(v) for v in enum)
        self.stems = content_words(" ".join(parts))


def rank_tools(cosines: Matrix, lexical: Sequence[float]) -> list[int]:
    """Tool indexes from most to least likely, by cosine plus a little word overlap."""
    scores = cosines + _LEXICAL_WEIGHT * np.asarray(lexical, dtype=np.float32)
    return [int(i) for i in np.argsort(-scores, kind="stable")]


def features(
    conversation: ConversationText,
    specs: Sequence[ToolSpec],
    vocabularies: Sequence[ToolVocabulary],
    cosines: Matrix,
    context_cosines: Matrix,
    chitchat_cosines: Matrix,
    chunk_cosines: Matrix | None = None,
) -> tuple[list[float], list[int]]:
    """The feature vector (in `FEATURE_NAMES` order) and the tool ranking.

    Args:
        conversation: The conversation read by `read_conversation`.
        specs: The tools.
        vocabularies: One `ToolVocabulary` per tool.
        cosines: Cosine of the query with each tool text.
        context_cosines: Cosine of the recent user context with each tool text.
        chitchat_cosines: Cosine of the query with each `CHITCHAT` prototype.
        chunk_cosines: Cosines of each of the query's sentences (rows) with each tool
            (columns), or None when the query is one sentence.
    """
    query = conversation.query
    words = content_words(query)
    lexical = [_overlap(words, vocab.stems) for vocab in vocabularies]
    order = rank_tools(cosines, lexical)
    best = order[0]
    sorted_cos = np.sort(cosines)[::-1]
    cos_max = float(sorted_cos[0])
    margin = float(sorted_cos[0] - sorted_cos[1]) if len(sorted_cos) > 1 else cos_max
    chitchat = float(chitchat_cosines.max()) if chitchat_cosines.size else 0.0
    chunk_max = cos_max
    if chunk_cosines is not None and chunk_cosines.size:
        chunk_max = max(cos_max, float(chunk_cosines.max()))
    found_numbers = numbers(query)
    found_entities = entities(query)
    lowered = query.lower()
    satisfied = [
        _satisfied(specs[i], vocabularies[i], lowered, words, found_numbers, found_entities)
        for i in order[:3]
    ]
    # Typed requests are often lower case ("weather in seoul") or not in English: any word
    # the tool's own vocabulary does not explain may be the value of a string parameter.
    unexplained = words - vocabularies[best].stems
    loose = _satisfied(
        specs[best],
        vocabularies[best],
        lowered,
        words,
        found_numbers,
        found_entities + sorted(unexplained) + _foreign_words(query),
    )
    required = len(specs[best].required)
    values = [
        cos_max,
        margin,
        float(cosines.mean()),
        float(context_cosines.max()) - cos_max,
        chunk_max,
        chunk_max - cos_max,
        chitchat,
        cos_max - chitchat,
        lexical[best],
        max(lexical),
        float(any(vocab.name_stems & words for vocab in vocabularies)),
        math.log1p(required),
        satisfied[0],
        max(satisfied),
        math.log1p(round(required * (1.0 - satisfied[0]))),
        math.log1p(round(required * (1.0 - loose))),
        math.log1p(len(found_numbers)),
        math.log1p(len(found_entities)),
        math.log1p(len(query.split())),
        non_ascii_share(query),
        float(query.rstrip().endswith("?") or lowered.startswith(_QUESTION_WORDS)),
        float(conversation.after_tool),
        math.log1p(conversation.user_turns),
        math.log1p(conversation.assistant_turns),
        float(conversation.has_system),
        math.log1p(len(specs)),
    ]
    return values, order


def _foreign_words(text: str) -> list[str]:
    """Words written in a non-Latin script (a name or value the English model cannot read)."""
    return [w for w in text.split() if any(ord(c) > 0x2FF and c.isalpha() for c in w)]


def _overlap(words: set[str], stems: set[str]) -> float:
    if not words:
        return 0.0
    return len(words & stems) / len(words)


def _satisfied(
    spec: ToolSpec,
    vocab: ToolVocabulary,
    lowered: str,
    words: set[str],
    found_numbers: list[str],
    found_entities: list[str],
) -> float:
    """The share of required parameters whose value the request seems to contain."""
    if not spec.required:
        return 1.0
    hits = 0
    for name in spec.required:
        schema = spec.properties.get(name)
        hits += _parameter_satisfied(
            name,
            schema if isinstance(schema, Mapping) else {},
            vocab,
            lowered,
            words,
            found_numbers,
            found_entities,
        )
    return hits / len(spec.required)


def _parameter_satisfied(
    name: str,
    schema: Mapping[str, Any],
    vocab: ToolVocabulary,
    lowered: str,
    words: set[str],
    found_numbers: list[str],
    found_entities: list[str],
) -> bool:
    if name in vocab.enums:
        return any(value and value in lowered for value in vocab.enums[name])
    kind = schema.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return bool(found_numbers)
    if kind == "array":
        items = schema.get("items")
        item_kind = items.get("type") if isinstance(items, Mapping) else None
        if item_kind in ("integer", "number"):
            return bool(found_numbers)
    # Strings and anything else: an entity-like token, a number, or the parameter's own
    # name in the request ("my email is ...") makes a value plausible.
    return bool(found_entities or found_numbers or vocab.parameter_stems.get(name, set()) & words)


def _split_identifier(name: str) -> list[str]:
    out: list[str] = []
    word = ""
    for char in name:
        if char in "_-. ":
            if word:
                out.append(word)
            word = ""
        elif char.isupper() and word and not word[-1].isupper():
            out.append(word)
            word = char
        else:
            word += char
    if word:
        out.append(word)
    return [w.lower() for w in out]
