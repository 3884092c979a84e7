"""Stage 1 on a served model: each way of letting the model decide "tool or not", measured.

Scores the `llm` router's two modes and the probe's wordings against a live
OpenAI-compatible server (`toolcall-sdk launch --demo`), on the same examples in one run:

- `answer` (`LLMRouter(mode="answer")`): no routing request; the stage-2 request under
  `tool_choice="auto"` with the tools, through the SDK's recovery (offered tools only). A
  call to an offered tool is a "call" decision, anything else "no call".
- `both` (`LLMRouter()`, the default): the routing question about the user's last message;
  a "call" where it says yes and the `answer` candidate calls (measured in the same run).
- `lead`: `answer` with the first answer token's log-probabilities; a call counts where the
  model opened it with at least the threshold's probability (`CALL_LEADS`).
- `probe` (`LLMRouter(mode="probe")`): the routing request with its constrained JSON answer.
- `yesno`, `fewshot`, `choice`: probe wordings read from the first answer token's
  log-probabilities (P(yes), or 1 - P(the "none" option)), so each has a threshold and a ROC
  AUC; their best threshold is chosen on the examples themselves, which flatters them.

The examples come from BFCL's non-live categories and their synthetic variants
(`benchmarks/_routing_set.py`: "call" = the base call cases, chatty and follow-up variants;
"no call" = irrelevance, small talk, thanks, a tool result that answers, other tools'
requests, missing values), a fixed stratified sample (`--per-kind`). With `--live` the
live categories (live_simple, live_multiple, live_relevance as "call"; live_irrelevance as
"no call") are scored instead, once, after every choice is made.

Prints per candidate: accuracy, recall of "call", the share of "no call" cases left alone,
precision, the added request's prompt and completion tokens, and its p50/p95 latency (for
`answer`: the stage-2 request's, which the decision rides on, so it adds none).

    python benchmarks/router_live.py --base-url http://127.0.0.1:8000/v1
    python benchmarks/router_live.py --base-url ... --candidates answer probe --live

Needs `pip install --no-deps bfcl-eval==2026.3.23`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # `python benchmarks/router_live.py`: the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openai import OpenAI

from benchmarks._routing_set import RoutingExample, routing_dev_set
from toolcall_sdk._answer_calls import _offered_only
from toolcall_sdk._recovery import recover_calls
from toolcall_sdk.bfcl import load_category
from toolcall_sdk.routing import LLMRouter, tool_specs
from toolcall_sdk.routing._llm import _transcript

# Kinds of the development sample, and how many of each (`--per-kind` scales them).
DEV_KINDS: dict[tuple[str, bool], int] = {
    ("base", True): 40,
    ("base", False): 40,
    ("smalltalk", False): 12,
    ("foreign_tools", False): 10,
    ("after_result", False): 10,
    ("thanks_after", False): 6,
    ("chatty", True): 10,
    ("follow_up", True): 10,
    ("missing_args", False): 8,
    ("vague", False): 8,
    ("lowercase", True): 6,
    ("non_english", True): 6,
}
LIVE_CALL = ("live_simple", "live_multiple", "live_relevance")
LIVE_NO_CALL = ("live_irrelevance",)
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
YES, NO = {"yes"}, {"no"}
# A few worked examples for `fewshot`: tools unlike BFCL's, so nothing is memorised.
FEW_SHOT = """Examples:
Tools:
- get_weather: Get the current weather for a city.
User: What's the weather like in Oslo right now?
Answer: yes

Tools:
- get_weather: Get the current weather for a city.
User: What is the capital of Norway?
Answer: no

Tools:
- calculate_bmi: Calculate the body mass index from weight and height.
User: Find the area of a circle with radius 4.
Answer: no

Tools:
- book_flight: Book a flight between two airports on a date.
- cancel_booking: Cancel a booking by its reference.
User: Please cancel my booking ABC123.
Answer: yes

Tools:
- search_books: Search a library catalogue by title or author.
User: Thanks, that's all!
Answer: no
"""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One candidate's reading of one example."""

    example: RoutingExample
    score: float  # 1.0/0.0 for hard decisions, a probability for log-probability wordings
    prompt_tokens: int
    completion_tokens: int
    seconds: float


Candidate = Callable[[OpenAI, str, RoutingExample], tuple[float, int, int]]


def dev_sample(per_kind: float, seed: int) -> list[RoutingExample]:
    rng = random.Random(seed)
    examples = routing_dev_set()
    rng.shuffle(examples)
    quota = {k: max(1, round(n * per_kind)) for k, n in DEV_KINDS.items()}
    taken: dict[tuple[str, bool], int] = {}
    out: list[RoutingExample] = []
    for example in examples:
        key = (example.kind, example.should_call)
        if taken.get(key, 0) < quota.get(key, 0):
            taken[key] = taken.get(key, 0) + 1
            out.append(example)
    return out


def live_sample(per_category: int, seed: int) -> list[RoutingExample]:
    rng = random.Random(seed)
    out: list[RoutingExample] = []
    for category in (*LIVE_CALL, *LIVE_NO_CALL):
        cases = load_category(category)
        for case in rng.sample(cases, min(per_category, len(cases))):
            out.append(
                RoutingExample(
                    id=case.id,
                    group=case.id,
                    kind=category,
                    messages=case.messages,
                    tools=case.tools,
                    should_call=category not in LIVE_NO_CALL,
                )
            )
    return out


def _stage2(
    client: OpenAI, model: str, example: RoutingExample, **extra: Any
) -> tuple[Any, list[dict[str, Any]]]:
    """The stage-2 request under `auto` and its calls to offered tools, read as the client
    reads them (recovered from the text too)."""
    completion = client.chat.completions.create(
        model=model,
        messages=example.messages,
        tools=example.tools,
        tool_choice="auto",
        temperature=0,
        max_tokens=256,
        **extra,
    )
    message = completion.choices[0].message.model_dump(exclude_none=True)
    offered = [spec.name for spec in tool_specs(example.tools)]
    if not message.get("tool_calls"):
        recovered = recover_calls(message, hint=model, attempt=1)
        kept = _offered_only(recovered, offered) if recovered else None
        message = kept[0] if kept else {}
    calls = [c for c in message.get("tool_calls") or () if c["function"]["name"] in offered]
    return completion, calls


def answer_mode(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    """The stage-2 request under `auto`: a call to an offered tool is "call"."""
    completion, calls = _stage2(client, model, example)
    usage = completion.usage
    return (1.0 if calls else 0.0), _tokens(usage, "prompt"), _tokens(usage, "completion")


# First tokens with which Qwen2.5-Coder (and most chat models) open a call written as text:
# a fence, a bare JSON object or list, or the template's tag (`<tool_call>`, whose "<" is
# its own token when the model writes it as text).
CALL_LEADS = ("```", "{", "[", "<")


def lead_mode(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    """`answer`, scored by how sure the model was when it began its call.

    The same stage-2 request under `auto`, with the first token's log-probabilities: the
    score is the probability that the answer opens as a call (`CALL_LEADS`) where it did
    call an offered tool, and 0 where it did not. A threshold on it keeps the calls the
    model began with confidence; at 0 it is `answer`.
    """
    completion, calls = _stage2(client, model, example, logprobs=True, top_logprobs=20)
    logprobs = completion.choices[0].logprobs
    content = logprobs.content if logprobs else None
    tops = content[0].top_logprobs if content else []
    total = sum(math.exp(top.logprob) for top in tops)
    lead = sum(math.exp(t.logprob) for t in tops if t.token.lstrip().startswith(CALL_LEADS))
    usage = completion.usage
    score = (lead / total if total else 0.0) if calls else 0.0
    return score, _tokens(usage, "prompt"), _tokens(usage, "completion")


def probe_mode(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    router = LLMRouter(mode="probe", client=client, model=model)
    decision = router.decide(example.messages, example.tools)
    return (1.0 if decision.call else 0.0), router.prompt_tokens, router.completion_tokens


def both_question(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    """`mode="both"`'s routing question alone (the user's last message); `main` joins
    its verdict with the `answer` candidate's, as the client does."""
    router = LLMRouter(mode="both", client=client, model=model)
    decision = router.decide(example.messages, example.tools)
    # "call" here means: the question said yes, or was not asked (after a tool result).
    return (1.0 if decision.call else 0.0), router.prompt_tokens, router.completion_tokens


def _listing(example: RoutingExample) -> str:
    lines = []
    for spec in tool_specs(example.tools):
        first = spec.description.strip().splitlines()[0] if spec.description.strip() else ""
        lines.append(f"- {spec.name}: {first}")
    return "\n".join(lines)


def _first_token(
    client: OpenAI, model: str, system: str, user: str
) -> tuple[dict[str, float], int, int]:
    completion = client.chat.completions.create(
        model=model,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        max_tokens=1,
        temperature=0,
        logprobs=True,
        top_logprobs=20,
    )
    content = completion.choices[0].logprobs.content if completion.choices[0].logprobs else None
    probs: dict[str, float] = {}
    for top in content[0].top_logprobs if content else []:
        key = top.token.strip().lower()
        probs[key] = probs.get(key, 0.0) + math.exp(top.logprob)
    usage = completion.usage
    return probs, _tokens(usage, "prompt"), _tokens(usage, "completion")


def _p_yes(probs: dict[str, float]) -> float:
    yes = sum(p for t, p in probs.items() if t in YES)
    no = sum(p for t, p in probs.items() if t in NO)
    return yes / (yes + no) if yes + no else 0.5


def yesno(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    system = (
        "You are a router. Decide if the user's last message asks for something that one of "
        f"these tools does.\nTools:\n{_listing(example)}\nReply yes if a tool above does what "
        "the user asks, no if the request is something else (a question none of the tools "
        "answers, small talk, thanks, or already answered by a tool result)."
    )
    user = (
        f"Conversation:\n{_transcript(example.messages)}\n\n"
        "Should the assistant call one of the tools now? Reply yes or no."
    )
    probs, prompt, completion = _first_token(client, model, system, user)
    return _p_yes(probs), prompt, completion


def fewshot(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    system = (
        "Decide whether one of the listed tools does what the user asks. Answer yes only if a "
        "listed tool performs the user's request; answer no if the request is about something "
        "else, is small talk or thanks, or a tool result already answers it.\n\n" + FEW_SHOT
    )
    user = f"Tools:\n{_listing(example)}\n{_transcript(example.messages)}\nAnswer:"
    probs, prompt, completion = _first_token(client, model, system, user)
    return _p_yes(probs), prompt, completion


def choice(client: OpenAI, model: str, example: RoutingExample) -> tuple[float, int, int]:
    specs = tool_specs(example.tools)[:8]
    options = "\n".join(
        f"{i}. {s.name}: {(s.description.strip().splitlines() or [''])[0]}"
        for i, s in enumerate(specs, 1)
    )
    none = str(len(specs) + 1)
    system = "You pick which option handles the user's request. Reply with the option number."
    user = (
        f"Conversation:\n{_transcript(example.messages)}\n\nOptions:\n{options}\n{none}. None "
        "of the above: the request asks for something these tools do not do (or it is small "
        "talk, thanks, or already answered).\n\nWhich option?"
    )
    probs, prompt, completion = _first_token(client, model, system, user)
    total = sum(probs.get(str(i), 0.0) for i in range(1, len(specs) + 2))
    return (1 - probs.get(none, 0.0) / total if total else 0.5), prompt, completion


CANDIDATES: dict[str, Candidate] = {
    "answer": answer_mode,
    "lead": lead_mode,
    "both": both_question,
    "probe": probe_mode,
    "yesno": yesno,
    "fewshot": fewshot,
    "choice": choice,
}
HARD = {"answer", "both", "probe"}  # decisions, not scores


def _tokens(usage: Any, kind: str) -> int:
    return int(getattr(usage, f"{kind}_tokens", 0) or 0) if usage is not None else 0


def measure(
    candidate: Candidate,
    client: OpenAI,
    model: str,
    examples: Sequence[RoutingExample],
    concurrency: int,
) -> list[Verdict]:
    def one(example: RoutingExample) -> Verdict:
        started = time.perf_counter()
        score, prompt, completion = candidate(client, model, example)
        return Verdict(example, score, prompt, completion, time.perf_counter() - started)

    with ThreadPoolExecutor(concurrency) as pool:
        return list(pool.map(one, examples))


def rates(verdicts: Sequence[Verdict], threshold: float) -> dict[str, float]:
    calls = [v for v in verdicts if v.example.should_call]
    skips = [v for v in verdicts if not v.example.should_call]
    tp = sum(v.score >= threshold for v in calls)
    tn = sum(v.score < threshold for v in skips)
    fp = len(skips) - tn
    return {
        "accuracy": (tp + tn) / len(verdicts),
        "recall": tp / len(calls) if calls else 0.0,
        "left_alone": tn / len(skips) if skips else 0.0,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
    }


def roc_auc(verdicts: Sequence[Verdict]) -> float:
    pos = [v.score for v in verdicts if v.example.should_call]
    neg = [v.score for v in verdicts if not v.example.should_call]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg)) if pos and neg else 0.5


def summary(name: str, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    if name in HARD:
        threshold = 0.5
    else:  # the best threshold on these very examples: an upper bound for the wording
        threshold = max(THRESHOLDS, key=lambda t: rates(verdicts, t)["accuracy"])
    seconds = sorted(v.seconds for v in verdicts)
    row: dict[str, Any] = {"candidate": name, "threshold": threshold}
    row.update(rates(verdicts, threshold))
    row["auc"] = roc_auc(verdicts)
    row["prompt_tokens"] = statistics.mean(v.prompt_tokens for v in verdicts)
    row["completion_tokens"] = statistics.mean(v.completion_tokens for v in verdicts)
    row["p50_s"] = seconds[len(seconds) // 2]
    row["p95_s"] = seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))]
    row["by_kind"] = {
        kind: statistics.mean(v.score >= threshold for v in verdicts if v.example.kind == kind)
        for kind in sorted({v.example.kind for v in verdicts})
    }
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", help="served model name (default: the first served)")
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES), choices=CANDIDATES)
    parser.add_argument("--per-kind", type=float, default=1.0, help="scale the dev sample")
    parser.add_argument("--live", action="store_true", help="score the live categories")
    parser.add_argument("--live-per-category", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="write the rows as JSON here")
    args = parser.parse_args(argv)

    client = OpenAI(base_url=args.base_url, api_key="EMPTY", timeout=900)
    model = args.model or client.models.list().data[0].id
    examples = (
        live_sample(args.live_per_category, args.seed)
        if args.live
        else dev_sample(args.per_kind, args.seed)
    )
    where = "live categories" if args.live else "non-live development sample"
    print(f"router_live: {len(examples)} examples ({where}), model {model}", flush=True)
    rows = []
    chosen = list(dict.fromkeys(args.candidates))
    if "both" in chosen:  # its verdict needs the answer's, measured in the same run
        chosen = ["answer", *[c for c in chosen if c != "answer"]]
    answered: dict[str, float] = {}
    # Each candidate's score per example, so that a router combining them (the hybrid's band
    # around the embedding router's score) can be measured from these very runs.
    per_example: dict[str, list[dict[str, Any]]] = {}
    for name in chosen:
        started = time.perf_counter()
        verdicts = measure(CANDIDATES[name], client, model, examples, args.concurrency)
        if name == "answer":
            answered = {v.example.id: v.score for v in verdicts}
        if name == "both":  # a call only where the question and the answer both say so
            verdicts = [
                Verdict(
                    v.example,
                    min(v.score, answered[v.example.id]),
                    v.prompt_tokens,
                    v.completion_tokens,
                    v.seconds,
                )
                for v in verdicts
            ]
        row = summary(name, verdicts)
        rows.append(row)
        per_example[name] = [
            {
                "id": v.example.id,
                "kind": v.example.kind,
                "should_call": v.example.should_call,
                "score": v.score,
                "seconds": round(v.seconds, 3),
                "prompt_tokens": v.prompt_tokens,
                "completion_tokens": v.completion_tokens,
            }
            for v in verdicts
        ]
        print(
            f"{name:8} acc {row['accuracy']:.3f}  recall {row['recall']:.3f}  left alone "
            f"{row['left_alone']:.3f}  precision {row['precision']:.3f}  auc {row['auc']:.3f}  "
            f"th {row['threshold']:.1f}  tokens {row['prompt_tokens']:.0f}+"
            f"{row['completion_tokens']:.1f}  p50 {row['p50_s']:.2f}s  p95 {row['p95_s']:.2f}s "
            f"({time.perf_counter() - started:.0f}s)",
            flush=True,
        )
        print("         by kind:", json.dumps({k: round(v, 2) for k, v in row["by_kind"].items()}))
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {
                    "model": model,
                    "where": where,
                    # What draws the sample again (benchmarks/router_hybrid.py reads it).
                    "args": {
                        "live": args.live,
                        "per_kind": args.per_kind,
                        "live_per_category": args.live_per_category,
                        "seed": args.seed,
                    },
                    "rows": rows,
                    "examples": per_example,
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
