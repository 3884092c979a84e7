"""The frameworks users pick instead of the SDK, on the ladder's cases and server.

    python benchmarks/peers.py --base-url http://127.0.0.1:8000/v1 --per-source 50 \
        --ladder runs/ladder --out runs/peers

Each framework gets each case as its users would write it: the case's messages, the case's
tools (the same JSON Schema the ladder's `auto+parser` rung sends, or the same Pydantic
model where the framework validates with Pydantic), temperature 0, the server's defaults
otherwise. A case is scored, with the ladder's own classifier, by the first calls that
*ran*: the calls the framework hands to the business code after its own parsing,
validation and retries.

- `langchain`: `ChatOpenAI.bind_tools(...).ainvoke(messages)`; the message's `tool_calls`
  that the tool's `args_schema` (the Pydantic model) accepts run, as `tool.invoke` would.
- `pydantic-ai`: an `Agent` whose tools take the Pydantic model as their one argument (its
  own retry prompt on a validation error, `retries=1`, its default); the first tool step
  that runs a tool ends the case.
- `openai-agents`: an `Agent` with `FunctionTool`s, `tool_use_behavior="stop_on_first_tool"`;
  arguments the Pydantic model refuses come back to the run as the tool's error text, as
  `@function_tool` does, and do not count as run.
- `instructor`: `Mode.PARALLEL_TOOLS` with `Iterable[Union[...]]` of the tools' models,
  the way its docs pick one of several tools; its own validation retries (`max_retries=1`).

Cases and their order are the ladder's (`--per-source`, the same sources and spread). With
`--ladder DIR` (a `benchmarks/ladder.py` output on the same server and cases) the summary
puts the ladder's rungs beside the frameworks. Writes `OUT/<source>/peers.jsonl` (a rerun
resumes it) and `OUT/summary.md`. Progress is printed as plain lines.

Needs the `frameworks` dependency group and instructor (`pip install --no-deps
instructor`: its metadata pins a jiter older than openai's, and it runs with the newer
one), plus `pip install --no-deps bfcl-eval==2026.3.23`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Union

if __name__ == "__main__":  # `python benchmarks/peers.py`: put the repository on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2
import openai
from pydantic import BaseModel, ValidationError, create_model

from benchmarks.ladder import BFCL_CATEGORIES, INVOICES
from toolcall_sdk._tools import Tool
from toolcall_sdk.evals._cases import EvalCase
from toolcall_sdk.evals._cli import gather_cases
from toolcall_sdk.evals._matching import MadeCall
from toolcall_sdk.evals._outcome import PipelineOutcome, first_line
from toolcall_sdk.evals._preflight import preflight
from toolcall_sdk.evals._runner import load_records, make_record
from toolcall_sdk.evals._settings import DEFAULT_MAX_TOKENS

PEERS_FILE: Final = "peers.jsonl"
LADDER_RUNGS: Final = ("auto+parser", "full")


@dataclass(frozen=True, slots=True)
class Server:
    """What a framework needs to reach the model: an openai client, or its URL and HTTP client."""

    client: openai.AsyncOpenAI
    base_url: str
    http_client: httpx2.AsyncClient
    model: str
    max_tokens: int


Ask = Callable[[EvalCase, Server], Awaitable[list[MadeCall]]]


def _schema(tool: Tool[..., Any]) -> dict[str, Any]:
    """The function entry the ladder's `auto` rungs send for this tool."""
    function: dict[str, Any] = tool.openai_schema(strict=False)["function"]
    return function


def _accepted(case: EvalCase, name: str, arguments: Any) -> MadeCall | None:
    """The call, when the tool's Pydantic model accepts its arguments (it would run)."""
    tool = next((t for t in case.tools if t.name == name), None)
    if tool is None or not isinstance(arguments, dict):
        return None
    try:
        tool.args_model.model_validate(arguments, context=case.context)
    except ValidationError:
        return None
    return MadeCall(name, arguments)


def _named_model(tool: Tool[..., Any]) -> type[BaseModel]:
    """The tool's Pydantic model under the tool's own name (frameworks name tools by class)."""
    model: type[BaseModel] = create_model(
        tool.name, __base__=tool.args_model, __doc__=tool.description
    )
    return model


async def _langchain(case: EvalCase, server: Server) -> list[MadeCall]:
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        model=server.model,
        api_key="EMPTY",  # type: ignore[arg-type]
        base_url=server.base_url,
        http_async_client=server.http_client,
        temperature=0,
        max_tokens=server.max_tokens,  # type: ignore[call-arg]
        max_retries=0,
    )
    bound = llm.bind_tools([{"type": "function", "function": _schema(t)} for t in case.tools])
    message = await bound.ainvoke([dict(m) for m in case.messages])
    made = (_accepted(case, c["name"], c["args"]) for c in message.tool_calls)
    return [c for c in made if c is not None]


async def _pydantic_ai(case: EvalCase, server: Server) -> list[MadeCall]:
    from pydantic_ai import Agent
    from pydantic_ai import Tool as AiTool
    from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.settings import ModelSettings

    ran: list[MadeCall] = []

    def runner(tool: Tool[..., Any]) -> AiTool[None]:
        async def run(args: BaseModel) -> str:
            ran.append(MadeCall(tool.name, args.model_dump(mode="json", exclude_unset=True)))
            return "done"

        run.__annotations__ = {"args": tool.args_model, "return": str}
        return AiTool(run, name=tool.name, description=tool.description, takes_ctx=False)

    system = "\n".join(str(m["content"]) for m in case.messages if m["role"] == "system")
    turns = [m for m in case.messages if m["role"] != "system"]
    history: list[ModelMessage] = []
    for m in turns[:-1]:  # earlier turns of the conversation, as pydantic-ai messages
        if m["role"] == "user":
            history.append(ModelRequest.user_text_prompt(str(m["content"])))
        else:
            history.append(ModelResponse(parts=[TextPart(str(m.get("content") or ""))]))
    agent = Agent(
        OpenAIChatModel(server.model, provider=OpenAIProvider(openai_client=server.client)),
        instructions=system or None,
        tools=[runner(t) for t in case.tools],
        model_settings=ModelSettings(temperature=0, max_tokens=server.max_tokens),
    )
    async with agent.iter(str(turns[-1]["content"]), message_history=history) as run:
        async for _ in run:
            if ran:  # the first step that ran a tool: what a user's code acted on
                break
    return ran


async def _openai_agents(case: EvalCase, server: Server) -> list[MadeCall]:
    import agents

    agents.set_tracing_disabled(True)
    ran: list[MadeCall] = []

    def function_tool(tool: Tool[..., Any]) -> agents.FunctionTool:
        async def invoke(context: Any, arguments: str) -> str:
            try:
                parsed = json.loads(arguments or "{}")
                tool.args_model.model_validate(parsed, context=case.context)
            except (ValueError, ValidationError) as exc:
                return f"An error occurred while running the tool. Error: {exc}"
            ran.append(MadeCall(tool.name, parsed))
            return "done"

        schema = _schema(tool)
        return agents.FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=schema.get("parameters") or {"type": "object", "properties": {}},
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    system = "\n".join(str(m["content"]) for m in case.messages if m["role"] == "system")
    turns = [
        {"role": m["role"], "content": str(m.get("content") or "")}
        for m in case.messages
        if m["role"] != "system"
    ]
    agent = agents.Agent(
        name="peer",
        instructions=system or None,
        tools=[function_tool(t) for t in case.tools],
        model=agents.OpenAIChatCompletionsModel(model=server.model, openai_client=server.client),
        model_settings=agents.ModelSettings(temperature=0, max_tokens=server.max_tokens),
        tool_use_behavior="stop_on_first_tool",
    )
    # Malformed output or turns exhausted: whatever ran before is the answer.
    with contextlib.suppress(agents.exceptions.AgentsException):
        await agents.Runner.run(agent, turns, max_turns=2)  # type: ignore[arg-type]
    return ran


async def _instructor(case: EvalCase, server: Server) -> list[MadeCall]:
    import instructor
    from instructor.core import InstructorRetryException

    patched = instructor.from_openai(server.client, mode=instructor.Mode.PARALLEL_TOOLS)
    models = [_named_model(t) for t in case.tools]
    union: Any = models[0] if len(models) == 1 else Union[tuple(models)]  # noqa: UP007
    try:
        answer = await patched.chat.completions.create(
            model=server.model,
            response_model=Iterable[union],  # type: ignore[valid-type]
            messages=[dict(m) for m in case.messages],  # type: ignore[misc]
            temperature=0,
            max_tokens=server.max_tokens,
            max_retries=1,
            context=dict(case.context or {}),
        )
    except InstructorRetryException:
        return []
    return [
        MadeCall(type(item).__name__, item.model_dump(mode="json", exclude_unset=True))
        for item in answer
    ]


FRAMEWORKS: Final[Mapping[str, Ask]] = {
    "langchain": _langchain,
    "pydantic-ai": _pydantic_ai,
    "openai-agents": _openai_agents,
    "instructor": _instructor,
}


def _server_failed(exc: BaseException) -> bool:
    """Whether the server, not the framework, failed (frameworks wrap the openai error):
    such a pair is not a result, and a rerun tries it again."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, openai.APIConnectionError | openai.InternalServerError):
            return True  # APITimeoutError is an APIConnectionError
        seen = seen.__cause__ or seen.__context__
    return "Error code: 5" in str(exc)


async def run_peer(
    name: str, case: EvalCase, base_url: str, model: str, max_tokens: int, request_timeout: float
) -> PipelineOutcome:
    """One case through one framework: its calls that ran, requests and latency."""
    outcome = PipelineOutcome(attempts=1)
    count = 0

    async def counted(request: httpx2.Request) -> None:
        nonlocal count
        count += 1

    started = time.monotonic()
    async with httpx2.AsyncClient(
        timeout=request_timeout, event_hooks={"request": [counted]}
    ) as http_client:
        client = openai.AsyncOpenAI(
            base_url=base_url, api_key="EMPTY", max_retries=0, http_client=http_client
        )
        try:
            server = Server(client, base_url, http_client, model, max_tokens)
            outcome.calls = await FRAMEWORKS[name](case, server)
        except Exception as exc:  # a framework's own error is its answer: nothing ran
            if _server_failed(exc):
                outcome.unfinished = f"server: {first_line(str(exc))}"
            else:
                outcome.hard_error = f"{type(exc).__name__}: {first_line(str(exc))}"
                outcome.hard_kind = "unparseable"
    outcome.requests = count
    outcome.latency_s = time.monotonic() - started
    return outcome


async def run_source(
    cases: Sequence[EvalCase],
    names: Sequence[str],
    path: Path,
    *,
    base_url: str,
    model: str,
    max_tokens: int,
    request_timeout: float,
    concurrency: int,
) -> list[dict[str, Any]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    done = load_records(path)
    todo = [(c, n) for c in cases for n in names if (c.id, n) not in done]
    semaphore = asyncio.Semaphore(concurrency)
    finished = 0

    async def one(case: EvalCase, name: str) -> None:
        nonlocal finished
        async with semaphore:
            outcome = await run_peer(name, case, base_url, model, max_tokens, request_timeout)
        finished += 1
        if outcome.unfinished is not None:
            print(f"  {case.id} {name}: not finished ({outcome.unfinished})", flush=True)
            return
        record = make_record(case, name, outcome)
        done[(case.id, name)] = record
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(f"  [{finished}/{len(todo)}] {case.id} {name}: {record['verdict']}", flush=True)

    async with asyncio.TaskGroup() as group:
        for case, name in todo:
            group.create_task(one(case, name))
    return [done[(c.id, n)] for c in cases for n in names if (c.id, n) in done]


def summary_markdown(
    out: Path,
    sources: Sequence[tuple[str, list[EvalCase]]],
    names: Sequence[str],
    ladder: Path | None,
) -> str:
    """Pass rate per contender (rows) and source (columns), failure classes, requests/case."""
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for source, cases in sources:
        ids = {c.id for c in cases}
        records = list(load_records(out / source / PEERS_FILE).values())
        if ladder is not None:
            records += load_records(ladder / source / "results.jsonl").values()
        for record in records:
            if record["case_id"] in ids:
                rows.setdefault(record["pipeline"], {}).setdefault(source, []).append(record)
    order = [r for r in LADDER_RUNGS if r in rows] + [n for n in names if n in rows]
    classes = ("wrong_tool", "wrong_args", "hard_fail", "missed_call", "spurious_call")
    head = [s for s, _ in sources]
    lines = [
        "| contender | pass | " + " | ".join(head) + " | " + " | ".join(classes) + " | req/case |",
        "|---|---:|" + "---:|" * (len(head) + len(classes) + 1),
    ]
    for name in order:
        by = rows[name]
        every = [r for s in head for r in by.get(s, [])]
        passed = sum(r["verdict"] == "pass" for r in every)
        cells = [
            f"{sum(r['verdict'] == 'pass' for r in by[s])}/{len(by[s])}" if s in by else "-"
            for s in head
        ]
        counts = [str(sum(r["verdict"] == k for r in every)) for k in classes]
        requests = sum(r["requests"] for r in every) / max(len(every), 1)
        lines.append(
            f"| {name} | {passed / max(len(every), 1):.1%} ({passed}/{len(every)}) | "
            + " | ".join(cells)
            + " | "
            + " | ".join(counts)
            + f" | {requests:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", required=True, help="the server the frameworks ask")
    parser.add_argument("--model", help="served model name (default: the first served)")
    parser.add_argument("--per-source", type=int, default=50, help="cases per source")
    parser.add_argument("--cases", default=str(INVOICES), help="the case file")
    parser.add_argument("--bfcl", default=",".join(BFCL_CATEGORIES))
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--ladder", help="a ladder.py output folder to compare with")
    parser.add_argument("--out", default="runs/peers")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    parser.add_argument("--concurrency", type=int, default=6)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--allow-code", action="store_true")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.frameworks.split(",") if n.strip()]
    if unknown := [n for n in names if n not in FRAMEWORKS]:
        print(f"error: unknown framework(s) {unknown}; choose from {', '.join(FRAMEWORKS)}")
        return 2
    allow_code = args.allow_code or Path(args.cases).resolve() == INVOICES
    specs: list[tuple[str, list[str], str | None]] = [(Path(args.cases).stem, [args.cases], None)]
    specs += [(f"bfcl-{c}", [], c) for c in args.bfcl.split(",") if c.strip()]
    model = preflight(args.base_url, model=args.model, api_key=None, timeout=30)
    sources = [
        (name, gather_cases(files, bfcl, limit=args.per_source, allow_code=allow_code))
        for name, files, bfcl in specs
    ]
    out = Path(args.out)
    for name, cases in sources:
        print(f"peers: {name}, {len(cases)} cases x {len(names)} frameworks", flush=True)
        asyncio.run(
            run_source(
                cases,
                names,
                out / name / PEERS_FILE,
                base_url=args.base_url,
                model=model,
                max_tokens=args.max_tokens,
                request_timeout=args.timeout,
                concurrency=args.concurrency,
            )
        )
    summary = summary_markdown(out, sources, names, Path(args.ladder) if args.ladder else None)
    (out / "summary.md").write_text(summary, encoding="utf-8")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
