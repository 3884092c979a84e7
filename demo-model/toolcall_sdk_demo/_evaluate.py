"""Measure the demo model on held-out phrasings: tool choice, copied values, corrections.

Scoring is pure (tested); predictions come from transformers (greedy, in-process) or from a
running OpenAI-compatible server (vLLM) through the plain `openai` client.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from toolcall_sdk_demo._data import Example, Kind, generate
from toolcall_sdk_demo._template import IM_END, render_chat
from toolcall_sdk_demo._toolbox import ORDER_ID_PATTERN, tool_definition

# Arguments whose value the request spells out and the model must copy exactly.
COPIED_FIELDS: Final = ("city", "order_id", "customer_id", "amount_vnd", "due_date")
# The held-out mix: mostly first-turn calls, plus every other turn kind.
HELDOUT_MIX: Final[dict[Kind, float]] = {
    "call": 0.5,
    "parallel": 0.1,
    "chat": 0.1,
    "mistake": 0.1,
    "feedback": 0.2,
}
# Anything before this counts as "in the past" for the mistake rate (the build's "today").
_TODAY: Final = dt.date(2026, 11, 1)
_CALL_RE: Final = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)


@dataclass
class Prediction:
    """What the model answered: calls as (name, arguments), or text."""

    calls: list[tuple[str, Any]] = field(default_factory=list)
    content: str | None = None
    raw: str = ""
    latency_s: float = 0.0
    error: str | None = None


def heldout_examples(n: int = 200, *, seed: int = 1) -> list[Example]:
    """The evaluation set: held-out phrasings, some cities never seen in training."""
    return generate(n, split="heldout", seed=seed, mix=HELDOUT_MIX)


def parse_hermes(text: str) -> Prediction:
    """Parse raw model text the way vLLM's `hermes` parser does (pure).

    A call whose JSON does not parse is kept as `(name or "", raw_text)` so it scores as wrong.
    """
    text = text.split(IM_END, 1)[0]
    if "<tool_call>" not in text:
        return Prediction(content=text, raw=text)
    calls: list[tuple[str, Any]] = []
    for body in _CALL_RE.findall(text):
        try:
            obj = json.loads(body.strip())
            calls.append((str(obj["name"]), obj["arguments"]))
        except (ValueError, KeyError, TypeError):
            calls.append(("", body))
    content = text[: text.index("<tool_call>")] or None
    return Prediction(calls=calls, content=content, raw=text)


def _is_valid(name: str, arguments: Any) -> bool:
    """The demo toolbox's own validation (what the SDK's Pydantic models check)."""
    if not isinstance(arguments, dict):
        return False
    if name == "get_order_status":
        return bool(re.fullmatch(ORDER_ID_PATTERN, str(arguments.get("order_id", ""))))
    if name == "create_invoice":
        try:
            due = dt.date.fromisoformat(str(arguments.get("due_date")))
        except ValueError:
            return False
        return (
            bool(re.fullmatch(r"^CUS-\d{6}$", str(arguments.get("customer_id", ""))))
            and isinstance(arguments.get("amount_vnd"), int)
            and arguments["amount_vnd"] > 0
            and due >= _TODAY
        )
    if name == "get_weather":
        return isinstance(arguments.get("city"), str) and arguments.get("unit") in (
            "celsius",
            "fahrenheit",
        )
    return False


def _rate(hits: int, total: int) -> dict[str, Any]:
    return {"ok": hits, "n": total, "rate": round(hits / total, 3) if total else None}


def score(examples: Sequence[Example], predictions: Sequence[Prediction]) -> dict[str, Any]:
    """Score predictions against the examples' expected turns (pure).

    Returns rates for: tool choice on first-turn requests (right names, in order), each
    copied field, all arguments exact, plain answers for chit-chat, the model's own
    mistake on relative due dates, and corrections after a feedback message.
    """
    tool_choice = [0, 0]
    exact_call = [0, 0]
    unseen_city = [0, 0]
    fields: dict[str, list[int]] = {name: [0, 0] for name in COPIED_FIELDS}
    chat = [0, 0]
    mistake = [0, 0]
    corrected = [0, 0]
    corrected_valid = [0, 0]
    errors = 0
    for example, pred in zip(examples, predictions, strict=True):
        if pred.error:
            errors += 1
        if example.kind in ("call", "parallel"):
            names = [name for name, _ in pred.calls]
            expected = [c.name for c in example.expected]
            tool_choice[1] += 1
            tool_choice[0] += names == expected
            exact_call[1] += 1
            exact_call[0] += [(n, a) for n, a in pred.calls] == [
                (c.name, c.arguments) for c in example.expected
            ]
            for index, call in enumerate(example.expected):
                got = pred.calls[index][1] if index < len(pred.calls) else None
                for key, value in call.arguments.items():
                    if key in fields:
                        fields[key][1] += 1
                        fields[key][0] += isinstance(got, dict) and got.get(key) == value
                if call.name == "get_weather" and example.unseen_city:
                    unseen_city[1] += 1
                    unseen_city[0] += (
                        isinstance(got, dict) and got.get("city") == (call.arguments["city"])
                    )
        elif example.kind == "chat":
            chat[1] += 1
            chat[0] += not pred.calls
        elif example.kind == "mistake":
            call = example.expected[0]
            if call.name == "create_invoice":
                mistake[1] += 1
                got = pred.calls[0][1] if pred.calls else None
                mistake[0] += bool(
                    pred.calls
                    and pred.calls[0][0] == call.name
                    and isinstance(got, dict)
                    and not _is_valid(call.name, got)
                )
        elif example.kind == "feedback":
            corrected[1] += 1
            corrected_valid[1] += 1
            want = [(c.name, c.arguments) for c in example.expected]
            corrected[0] += [(n, a) for n, a in pred.calls] == want
            corrected_valid[0] += len(pred.calls) == 1 and (
                pred.calls[0][0] == example.expected[0].name
                and _is_valid(pred.calls[0][0], pred.calls[0][1])
            )
    latencies = sorted(p.latency_s for p in predictions if p.latency_s)
    return {
        "examples": len(examples),
        "request_errors": errors,
        "tool_choice": _rate(*tool_choice),
        "all_arguments_exact": _rate(*exact_call),
        "copied_fields": {key: _rate(*value) for key, value in fields.items()},
        "copied_fields_all": _rate(
            sum(v[0] for v in fields.values()), sum(v[1] for v in fields.values())
        ),
        "unseen_city_copied": _rate(*unseen_city),
        "chit_chat_plain_text": _rate(*chat),
        "own_mistake_on_relative_due_date": _rate(*mistake),
        "feedback_corrected_exact": _rate(*corrected),
        "feedback_corrected_valid": _rate(*corrected_valid),
        "latency_s": {
            "p50": latencies[len(latencies) // 2] if latencies else None,
            "p90": latencies[int(len(latencies) * 0.9)] if latencies else None,
            "max": latencies[-1] if latencies else None,
        },
    }


def predict_transformers(
    model_dir: Path, examples: Iterable[Example], *, max_new_tokens: int = 120
) -> list[Prediction]:
    """Greedy predictions with transformers, in-process (needs torch)."""
    import torch
    from transformers import AutoModelForCausalLM

    from toolcall_sdk_demo._train import load_tokenizer

    tokenizer = load_tokenizer(model_dir)
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    model.eval()
    eos = tokenizer.convert_tokens_to_ids(IM_END)
    out: list[Prediction] = []
    with torch.inference_mode():
        for example in examples:
            text = render_chat(example.prompt, example.tools, add_generation_prompt=True)
            ids = tokenizer(text, add_special_tokens=False, return_tensors="pt").input_ids
            started = time.monotonic()
            generated = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                eos_token_id=eos,
                pad_token_id=eos,
            )
            raw = tokenizer.decode(generated[0, ids.shape[1] :], skip_special_tokens=False)
            pred = parse_hermes(raw)
            pred.latency_s = time.monotonic() - started
            out.append(pred)
    return out


def _strict_tools(example: Example) -> list[dict[str, Any]]:
    # What the SDK sends: every tool strict, so vLLM constrains the arguments too.
    return [tool_definition(t["function"]["name"], "strict") for t in example.tools]


def predict_server(
    base_url: str,
    model: str,
    examples: Iterable[Example],
    *,
    tool_choice: str = "auto",
    stream: bool = False,
    max_tokens: int = 160,
    timeout_s: float = 120.0,
) -> list[Prediction]:
    """Predictions from a running server through the `openai` client, temperature 0."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="EMPTY", timeout=timeout_s, max_retries=0)
    out: list[Prediction] = []
    for example in examples:
        tools = _strict_tools(example)
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": example.prompt,
            "temperature": 0,
            "max_tokens": max_tokens,
        }
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = tool_choice
        started = time.monotonic()
        try:
            if stream:
                pred = _collect_stream(client.chat.completions.create(stream=True, **kwargs))
            else:
                response = client.chat.completions.create(**kwargs)
                message = response.choices[0].message
                pred = Prediction(content=message.content)
                for call in message.tool_calls or []:
                    pred.calls.append(_decode_call(call.function.name, call.function.arguments))
        except Exception as exc:  # a failed request scores as wrong, and is counted
            pred = Prediction(error=f"{type(exc).__name__}: {exc}")
        pred.latency_s = time.monotonic() - started
        out.append(pred)
    return out


def _decode_call(name: str, arguments: str) -> tuple[str, Any]:
    try:
        return name, json.loads(arguments)
    except ValueError:
        return name, arguments


def _collect_stream(chunks: Iterable[Any]) -> Prediction:
    content: list[str] = []
    calls: dict[int, list[str]] = {}
    for chunk in chunks:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            content.append(delta.content)
        for call in delta.tool_calls or []:
            entry = calls.setdefault(call.index, ["", ""])
            if call.function and call.function.name:
                entry[0] += call.function.name
            if call.function and call.function.arguments:
                entry[1] += call.function.arguments
    pred = Prediction(content="".join(content) or None)
    pred.calls = [_decode_call(name, args) for _, (name, args) in sorted(calls.items())]
    return pred
