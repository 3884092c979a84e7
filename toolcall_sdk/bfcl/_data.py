"""Reading BFCL v4 categories from the installed `bfcl-eval` package.

Only the data files are read: `importlib.util.find_spec` locates the package without
importing it, because importing `bfcl_eval` pulls in every provider SDK it supports.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from toolcall_sdk.bfcl._errors import BfclDataError, BfclNotInstalledError
from toolcall_sdk.bfcl._schema import openai_name, to_openai_tools

__all__ = [
    "CATEGORIES",
    "LIVE_CATEGORIES",
    "NON_LIVE_CATEGORIES",
    "NO_CALL_CATEGORIES",
    "BfclCase",
    "data_dir",
    "load_category",
]

#: Single-turn categories used for fitting and tuning (the development split).
NON_LIVE_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)
#: User-contributed categories: the held-out test split, never used to fit anything.
LIVE_CATEGORIES: tuple[str, ...] = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_relevance",
    "live_irrelevance",
)
#: Every category this loader knows (the single-turn AST categories of BFCL v4).
CATEGORIES: tuple[str, ...] = (
    *NON_LIVE_CATEGORIES,
    "simple_java",
    "simple_javascript",
    *LIVE_CATEGORIES,
)
#: Categories whose right answer is "make no call".
NO_CALL_CATEGORIES: frozenset[str] = frozenset({"irrelevance", "live_irrelevance"})


@dataclass(frozen=True, slots=True)
class BfclCase:
    """One BFCL test case, with its tools already in OpenAI form.

    Attributes:
        id: The BFCL id (`"multiple_0"`, `"live_simple_3-2-1"`).
        category: The category it was loaded from.
        turns: The raw `question` field: a list of turns, each a list of message dicts.
        messages: The turns flattened into one OpenAI chat message list.
        functions: The raw BFCL function documents.
        tools: The same functions as OpenAI tool dicts (JSON Schema types, safe names).
        name_map: OpenAI tool name -> original BFCL function name.
        ground_truth: `[{func: {param: [acceptable values]}}]`, or None where BFCL has none
            (relevance and irrelevance). `""` among the values means "may be omitted".
        should_call: False for the irrelevance categories, True otherwise.
    """

    id: str
    category: str
    turns: list[list[dict[str, Any]]]
    messages: list[dict[str, Any]]
    functions: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    name_map: dict[str, str] = field(default_factory=dict)
    ground_truth: list[dict[str, dict[str, list[Any]]]] | None = None
    should_call: bool = True


def data_dir() -> Path:
    """The directory holding the installed BFCL data files.

    Raises:
        BfclNotInstalledError: `bfcl-eval` is not installed.
    """
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise BfclNotInstalledError()
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def load_category(name: str) -> list[BfclCase]:
    """Load every case of one BFCL v4 category.

    Args:
        name: A category from `CATEGORIES`, e.g. `"live_multiple"`.

    Returns:
        The cases in file order. Each call returns fresh objects; the files are parsed
        once per process.

    Raises:
        BfclNotInstalledError: `bfcl-eval` is not installed.
        BfclDataError: The category is unknown or its file is missing or malformed.
    """
    if name not in CATEGORIES:
        raise BfclDataError(f"unknown BFCL category {name!r}; known: {', '.join(CATEGORIES)}")
    root = data_dir()
    rows = _read_jsonl(root / f"BFCL_v4_{name}.json")
    answers_path = root / "possible_answer" / f"BFCL_v4_{name}.json"
    answers = (
        {str(row["id"]): row["ground_truth"] for row in _read_jsonl(answers_path)}
        if answers_path.exists()
        else {}
    )
    return [_case(name, row, answers.get(str(row["id"]))) for row in rows]


def _case(category: str, row: Mapping[str, Any], answer: Any) -> BfclCase:
    turns = [[dict(m) for m in turn] for turn in _fresh(row["question"])]
    functions = [dict(f) for f in _fresh(row["function"])]
    tools = to_openai_tools(functions)
    return BfclCase(
        id=str(row["id"]),
        category=category,
        turns=turns,
        messages=[dict(message) for turn in turns for message in turn],
        functions=functions,
        tools=tools,
        name_map={openai_name(str(f["name"])): str(f["name"]) for f in functions},
        ground_truth=_fresh(answer) if answer is not None else None,
        should_call=category not in NO_CALL_CATEGORIES,
    )


def _fresh(value: Any) -> Any:
    # Cases are frozen but hold dicts; a deep copy keeps callers from editing the cache.
    return json.loads(json.dumps(value))


def _read_jsonl(path: Path) -> tuple[dict[str, Any], ...]:
    return _read_jsonl_cached(str(path))


@lru_cache(maxsize=32)
def _read_jsonl_cached(path: str) -> tuple[dict[str, Any], ...]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise BfclDataError(f"BFCL data file {path} is missing: reinstall bfcl-eval") from exc
    return tuple(_parse_lines(text, path))


def _parse_lines(text: str, path: str) -> Iterator[dict[str, Any]]:
    # Despite the .json suffix the files are JSON Lines: one case per line.
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BfclDataError(f"{path}:{number}: not a JSON line ({exc.msg})") from exc
        if not isinstance(row, dict) or "id" not in row:
            raise BfclDataError(f"{path}:{number}: a case needs an 'id'")
        yield row
