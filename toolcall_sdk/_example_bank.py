"""`ExampleBank`: accepted cases, shown to the model as demonstrations of the right call.

A bank holds demonstrations (`_example_cases`: a request and the calls that were right for
it, read from eval cases such as `toolcall-sdk cases review` writes) and picks, for each
stage-2 request, the ones to show: the `k` most alike to the conversation's last user
message (`_similarity`) among those whose calls use only the tools offered, within a token
budget. The SDK's own notes sent as the user's turn (feedback on an answer with no call)
are not what the user asked, and are passed over.

Each chosen demonstration becomes three kinds of turn, the format every chat template
accepts (an assistant's tool call is answered by a tool message with its id)::

    {"role": "user", "content": "<the case's last user message>"}
    {"role": "assistant", "content": None, "tool_calls": [{"id": "demo_1_0",
        "type": "function", "function": {"name": "...", "arguments": "<JSON>"}}]}
    {"role": "tool", "tool_call_id": "demo_1_0", "content": "(example: not run)"}

one tool message per call, ids `demo_<demonstration>_<call>` counted from 1 and 0 in the
order sent. The most alike comes last, next to the real conversation. Where they go in the
request, and which requests get them, is `_demonstrations`.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from toolcall_sdk._errors import InvalidArgumentError
from toolcall_sdk._example_cases import (
    Example,
    examples_from_cases,
    examples_from_file,
    last_user_text,
)
from toolcall_sdk._feedback import SDK_NOTE_PREFIXES
from toolcall_sdk._similarity import (
    EncoderIndex,
    Index,
    Similarity,
    SimilarityChoice,
    TfidfIndex,
    similarity_for,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_K",
    "DEFAULT_MAX_TOKENS",
    "EXAMPLE_RESULT",
    "ExampleBank",
    "ExamplesSpec",
    "as_example_bank",
    "demo_call_id",
    "estimated_tokens",
]

DEFAULT_K: Final = 3
"""Demonstrations per request: a few show the format and the values' shapes; more cost
prompt tokens on every request and crowd out the conversation of a small model."""
DEFAULT_MAX_TOKENS: Final = 600
"""The budget of one request's demonstrations: about three invoice-sized ones."""
CHARS_PER_TOKEN: Final = 4
"""The estimate of the budget (no tokenizer on the client): about four characters of
English or JSON per token, counted over the demonstration turns written as JSON."""
EXAMPLE_RESULT: Final = "(example: not run)"
"""The tool message answering a demonstration's call: it says the call was an example, so
the model does not take its "result" for data."""
# Queries whose ranking is kept: the retries of a step, and the steps of a run, ask again
# with the same last user message.
_RANKINGS_KEPT: Final = 64


def demo_call_id(demonstration: int, call: int) -> str:
    """The id of call `call` (from 0) of demonstration `demonstration` (from 1)."""
    return f"demo_{demonstration}_{call}"


class ExampleBank:
    """Accepted cases that teach the model: the most alike are shown in each call request.

    Args:
        cases: A JSON Lines case file (eval cases with `expected.calls`, such as
            `toolcall-sdk cases review --out FILE` writes), or the cases as a list of dicts.
            Cases that expect no call, multi-step tasks (`agent`) and conversations that do
            not end with a user message are left out; duplicates are kept once.
        k: At most this many demonstrations per request.
        max_tokens: Their budget per request, estimated at `CHARS_PER_TOKEN` characters a
            token over the turns as JSON; a demonstration that does not fit is passed over
            for a smaller, less alike one.
        similarity: `"auto"` (the `router` extra's sentence encoder when it is installed,
            else TF-IDF), `"encoder"` or `"tfidf"`.
        encoder: A function `list[str] -> array (n, dim)` of unit-norm rows to use instead
            of the bundled encoder (needs numpy).

    Attributes:
        k: As given.
        max_tokens: As given.
        source: The case file, or None for cases given as a list.

    Raises:
        ExamplesError: The file is missing or a case is malformed (with its file and line).
        InvalidArgumentError: `k`, `max_tokens` or `similarity` out of range.
        MissingDependencyError: `similarity="encoder"` without the `router` extra.
    """

    def __init__(
        self,
        cases: str | os.PathLike[str] | Iterable[Mapping[str, Any]],
        *,
        k: int = DEFAULT_K,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        similarity: SimilarityChoice = "auto",
        encoder: Callable[[list[str]], Any] | None = None,
    ) -> None:
        _check_count("k", k)
        _check_count("max_tokens", max_tokens)
        if isinstance(cases, (str, os.PathLike)):
            self.source: str | None = os.fspath(cases)
            examples = examples_from_file(cases)
        elif isinstance(cases, Mapping) or not isinstance(cases, Iterable):
            raise InvalidArgumentError(
                "ExampleBank takes a case file's path or a list of case dicts "
                f"(got {type(cases).__name__})"
            )
        else:
            self.source = None
            examples = examples_from_cases(cases)
        self.k = k
        self.max_tokens = max_tokens
        self._similarity = similarity_for(similarity, encoder)
        self._examples = _distinct(examples)
        # Each one's cost, once (an id's digits aside, it is the same in any position).
        self._sizes = [estimated_tokens(_turns(example, 1)) for example in self._examples]
        texts = [example.text for example in self._examples]
        self._index: Index = (
            EncoderIndex(texts, encoder) if self._similarity == "encoder" else TfidfIndex(texts)
        )
        self._rankings: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    @property
    def similarity(self) -> Similarity:
        """How requests are compared: `"encoder"` (sentence embeddings) or `"tfidf"`."""
        return self._similarity

    def __len__(self) -> int:
        """How many demonstrations the bank holds."""
        return len(self._examples)

    def __repr__(self) -> str:
        where = repr(self.source) if self.source is not None else "given cases"
        return (
            f"ExampleBank({where}: {len(self)} demonstrations, k={self.k}, "
            f"max_tokens={self.max_tokens}, similarity={self.similarity!r})"
        )

    def demonstrations(
        self, messages: Sequence[Mapping[str, Any]], tools: Iterable[str]
    ) -> list[dict[str, Any]]:
        """The demonstration turns for a request with this conversation and these tools.

        Args:
            messages: The conversation (its last user message is compared).
            tools: The names of the tools the request offers: a demonstration that calls
                any other is never shown.

        Returns:
            The user, assistant and tool messages of the chosen demonstrations, the most
            alike last; empty when none fits.
        """
        query = last_user_text(messages, skip=SDK_NOTE_PREFIXES)
        if not query or not self._examples:
            return []
        offered = frozenset(tools)
        chosen: list[Example] = []
        used = 0
        for index in self._ranked(query):
            example = self._examples[index]
            if not example.tools <= offered:
                continue
            size = self._sizes[index]
            if used + size > self.max_tokens:
                continue
            chosen.append(example)
            used += size
            if len(chosen) == self.k:
                break
        # The most alike, chosen first, is sent last: next to the real conversation.
        ordered = list(reversed(chosen))
        return [turn for n, example in enumerate(ordered, start=1) for turn in _turns(example, n)]

    def _ranked(self, query: str) -> list[int]:
        """The demonstrations alike to `query` at all, most alike first (ties: file order)."""
        with self._lock:
            kept = self._rankings.get(query)
        if kept is not None:
            return kept
        scores = self._index.scores(query)
        ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
        with self._lock:
            if len(self._rankings) >= _RANKINGS_KEPT:
                self._rankings.pop(next(iter(self._rankings)))
            self._rankings[query] = ranked
        return ranked


ExamplesSpec = str | os.PathLike[str] | Sequence[Mapping[str, Any]] | ExampleBank | None
"""What `examples=` takes (documented on the client)."""


def as_example_bank(spec: Any) -> ExampleBank | None:
    """The bank `examples=` names: a path or a list of cases becomes an `ExampleBank` with
    the defaults; a bank is used as it is.

    Raises:
        InvalidArgumentError: Anything else.
        ExamplesError: The file or a case cannot be used.
    """
    if spec is None or isinstance(spec, ExampleBank):
        return spec
    if isinstance(spec, (str, os.PathLike)) or (
        isinstance(spec, (list, tuple)) and all(isinstance(case, Mapping) for case in spec)
    ):
        return ExampleBank(spec)
    raise InvalidArgumentError(
        "examples must be a case file's path, a list of case dicts or an ExampleBank, e.g. "
        f"examples=ExampleBank('cases.jsonl', k=3) (got {type(spec).__name__})"
    )


def estimated_tokens(turns: Sequence[Mapping[str, Any]]) -> int:
    """The budget's estimate of what `turns` cost: their JSON, `CHARS_PER_TOKEN` a token."""
    return math.ceil(len(json.dumps(list(turns), ensure_ascii=False)) / CHARS_PER_TOKEN)


def _turns(example: Example, number: int) -> list[dict[str, Any]]:
    calls = [
        {
            "id": demo_call_id(number, index),
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
        }
        for index, (name, arguments) in enumerate(example.calls)
    ]
    return [
        {"role": "user", "content": example.text},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *(
            {"role": "tool", "tool_call_id": call["id"], "content": EXAMPLE_RESULT}
            for call in calls
        ),
    ]


def _distinct(examples: Sequence[Example]) -> list[Example]:
    """Each (request, calls) once: reviewed traffic repeats its most common requests."""
    seen: set[str] = set()
    kept: list[Example] = []
    for example in examples:
        key = json.dumps([example.text, example.calls], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            kept.append(example)
    return kept


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgumentError(f"{name} must be an int of 1 or more (got {value!r})")
