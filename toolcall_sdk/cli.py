"""The `toolcall-sdk` command line.

Commands are registered here; each one's logic lives in its own module so that
`toolcall-sdk --help` stays fast and never imports vLLM or torch. Help strings are Rich
markup (typer renders them so): they hold no square brackets, and `--help` reads whole at
80 columns (tests/unit/cli).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Any, NoReturn

import typer
import typer.main

from toolcall_sdk._cli_help import HelpCommand, HelpGroup, looks_like_url
from toolcall_sdk._version import __version__

# The environment variables every command and the client read (docs/reliability.md).
BASE_URL_ENV = "TOOLCALL_BASE_URL"
MODEL_ENV = "TOOLCALL_MODEL"
API_KEY_ENV = "TOOLCALL_API_KEY"
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
# eval's --max-tokens (toolcall_sdk.evals._settings.DEFAULT_MAX_TOKENS; a test keeps the two
# equal): written here so that `--help` needs no import of the eval harness.
DEFAULT_EVAL_MAX_TOKENS = 256
# Columns of the doctor's and eval's tables, whatever the terminal: a finding or an error
# message stays on one or two lines.
DOCTOR_WIDTH = 140
EVAL_WIDTH = 160
# The help panels of launch's options beyond the common ones.
_PARALLEL = "Parallelism and several nodes (docs/scaling.md)"
_FEATURES = "Server features (docs/launch.md)"
_INSTALL = "Where vLLM is"
_FULL = "The full pipeline's levers (docs/pipeline.md)"
EXIT_USAGE = 2

app = typer.Typer(
    name="toolcall-sdk",
    cls=HelpGroup,
    help=(
        "Reliable tool calling on self-hosted models.\n\n"
        "First hour: `toolcall-sdk launch --demo`, then `toolcall-sdk doctor URL`, then "
        "`toolcall-sdk eval --base-url URL CASES` (docs/first-hour.md)."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)


def _fail(error: BaseException | str, *, code: int) -> NoReturn:
    """End the command with a one-line error on stderr: what happened and what to do."""
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(code=code)


def _url_is_not_an_argument(option: str, url: str, usage: str) -> NoReturn:
    """A URL typed where the command takes something else: name the option it belongs to."""
    _fail(f"{url} is a server URL: give it as {option} {url} ({usage})", code=EXIT_USAGE)


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
    cls=HelpCommand,
    short_help="Start vLLM with the right tool parser and chat template for a model.",
    help=(
        "Start vLLM for MODEL with the tool parser, chat template and flags its family "
        "needs, wait until it is ready, and print the base URL and client code.\n\n"
        "MODEL is a Hugging Face id (Qwen/Qwen2.5-7B-Instruct) or a local model folder. "
        "Extra vLLM arguments go after --: `toolcall-sdk launch MODEL -- --enforce-eager`."
    ),
)
def launch(
    model: Annotated[
        str | None,
        typer.Argument(
            metavar="MODEL",
            help="Model id or local model folder (with --demo: 0.5b or 1.5b).",
            show_default=False,
        ),
    ] = None,
    vllm_args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="VLLM_ARGS", help="Extra vLLM arguments, after --.", show_default=False
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the vLLM command and exit.")
    ] = False,
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="Serve a real model on the CPU: Qwen2.5-Coder-0.5B, or --demo 1.5b. "
            "Fetched and converted on first use, then cached (docs/demo-model.md).",
        ),
    ] = False,
    family: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="Registry family to use instead of detecting it (docs/launch.md)."
        ),
    ] = None,
    tool_call_parser: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="vLLM tool parser to use instead of the family's."),
    ] = None,
    tool_parser_plugin: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Parser plugin for vLLM's --tool-parser-plugin (the SDK's own comes with "
            "--tool-call-parser toolcall_hermes).",
        ),
    ] = None,
    chat_template: Annotated[
        str | None,
        typer.Option(
            metavar="FILE", help="Chat template file, or a vLLM example name; none for none."
        ),
    ] = None,
    reasoning_parser: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="vLLM reasoning parser instead of the family's; none."),
    ] = None,
    max_model_len: Annotated[
        int, typer.Option(metavar="TOKENS", help="Context length; 0 keeps the model's own.")
    ] = 8192,
    gpu_memory_utilization: Annotated[
        float, typer.Option(metavar="SHARE", help="Share of GPU memory vLLM may take.")
    ] = 0.9,
    port: Annotated[int, typer.Option(metavar="PORT", help="Port to listen on.")] = 8000,
    host: Annotated[
        str,
        typer.Option(
            metavar="ADDRESS", help="Address to bind; 0.0.0.0 opens the server to the network."
        ),
    ] = "127.0.0.1",
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar=[API_KEY_ENV, "VLLM_API_KEY"],
            metavar="KEY",
            help="API key clients must send (never printed).",
            show_default=False,
        ),
    ] = None,
    served_model_name: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Model name clients send (default: MODEL)."),
    ] = None,
    startup_timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="How long to wait for the server.")
    ] = 900.0,
    log_file: Annotated[
        str | None,
        typer.Option(metavar="FILE", help="File for vLLM's output (default: the user log folder)."),
    ] = None,
    enable_prompt_embeds: Annotated[
        bool,
        typer.Option(
            "--enable-prompt-embeds",
            help="Accept prompt embeddings (trusted clients only).",
            rich_help_panel=_FEATURES,
        ),
    ] = False,
    compact_json: Annotated[
        bool | None,
        typer.Option(
            "--compact-json/--no-compact-json",
            help="No free whitespace in vLLM's JSON grammars, so a small model cannot fill "
            "max_tokens with it under tool_choice=required (default: on for vLLM 0.10.2 and "
            "later, or an unknown version).",
            show_default=False,
            rich_help_panel=_FEATURES,
        ),
    ] = None,
    vllm_command: Annotated[
        str | None,
        typer.Option(
            metavar="COMMAND",
            help="Command that starts vLLM, e.g. 'python -m vllm.entrypoints.openai.api_server' "
            "(default: found here, or $TOOLCALL_SDK_VLLM_COMMAND).",
            rich_help_panel=_INSTALL,
        ),
    ] = None,
    templates_dir: Annotated[
        str | None,
        typer.Option(
            metavar="DIR",
            help="Folder of vLLM's example chat templates (a vLLM checkout's examples).",
            rich_help_panel=_INSTALL,
        ),
    ] = None,
    tensor_parallel_size: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="GPUs that share each layer (per replica).", rich_help_panel=_PARALLEL
        ),
    ] = None,
    pipeline_parallel_size: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="Stages the layers are cut into (across nodes).",
            rich_help_panel=_PARALLEL,
        ),
    ] = None,
    data_parallel_size: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="Replicas behind one API server.", rich_help_panel=_PARALLEL
        ),
    ] = None,
    distributed_executor_backend: Annotated[
        str | None,
        typer.Option(
            metavar="mp|ray",
            help="mp: processes (several nodes with --nnodes); ray: workers anywhere in the "
            "Ray cluster this node joined.",
            rich_help_panel=_PARALLEL,
        ),
    ] = None,
    data_parallel_backend: Annotated[
        str | None,
        typer.Option(
            metavar="mp|ray",
            help="mp: each node starts its replicas; ray: the head places them all.",
            rich_help_panel=_PARALLEL,
        ),
    ] = None,
    nnodes: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="Nodes the model spans (mp backend).", rich_help_panel=_PARALLEL
        ),
    ] = None,
    node_rank: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="This node's rank in --nnodes (0: head).", rich_help_panel=_PARALLEL
        ),
    ] = None,
    master_addr: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS", help="The head node's address (--nnodes).", rich_help_panel=_PARALLEL
        ),
    ] = None,
    master_port: Annotated[
        int | None,
        typer.Option(
            metavar="PORT", help="The head node's port (--nnodes).", rich_help_panel=_PARALLEL
        ),
    ] = None,
    data_parallel_size_local: Annotated[
        int | None,
        typer.Option(metavar="N", help="Replicas on this node.", rich_help_panel=_PARALLEL),
    ] = None,
    data_parallel_start_rank: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="First replica rank on this node.", rich_help_panel=_PARALLEL
        ),
    ] = None,
    data_parallel_address: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS", help="Head node address for the replicas.", rich_help_panel=_PARALLEL
        ),
    ] = None,
    data_parallel_rpc_port: Annotated[
        int | None,
        typer.Option(
            metavar="PORT", help="Head node port for the replicas.", rich_help_panel=_PARALLEL
        ),
    ] = None,
    headless: Annotated[
        bool,
        typer.Option(
            "--headless",
            help="Engines only, no API server (a worker node).",
            rich_help_panel=_PARALLEL,
        ),
    ] = False,
) -> None:
    from toolcall_sdk.launcher._cli import run_launch

    if model is not None and looks_like_url(model):
        _fail(
            f"{model} is a server URL, but launch starts a server for a MODEL (an id or a "
            f"folder); to check a running server: toolcall-sdk doctor {model}",
            code=EXIT_USAGE,
        )
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
    cls=HelpCommand,
    short_help="Diagnose a running server and say which flag fixes what.",
    help=(
        "Diagnose the server at URL: served models, vLLM version, auto, required and named "
        "tool choice, tool calls left in content (a wrong parser), whether the chat "
        "template renders tools, and grammar compile latency. Exits 1 when a check fails."
    ),
)
def doctor(
    ctx: typer.Context,
    url: Annotated[
        str | None,
        typer.Argument(
            metavar="URL", help="The server's /v1 URL, as --base-url.", show_default=False
        ),
    ] = None,
    base_url: Annotated[
        str,
        typer.Option(
            "--base-url", envvar=BASE_URL_ENV, metavar="URL", help="The server's /v1 URL."
        ),
    ] = DEFAULT_BASE_URL,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", envvar=MODEL_ENV, metavar="NAME", help="Served model (default: first)."
        ),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", envvar=API_KEY_ENV, metavar="KEY", help="The server's key."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="SECONDS", help="Time limit per request.")
    ] = 120.0,
    hidden_size: Annotated[
        int | None,
        typer.Option(
            "--hidden-size",
            min=1,
            metavar="N",
            help="The model's hidden size, to probe prompt embeddings (read from its "
            "config.json when the model's folder is here).",
        ),
    ] = None,
) -> None:
    from toolcall_sdk._console import cli_console
    from toolcall_sdk.doctor import render_report, run_doctor

    base_url = _one_base_url(ctx, url, base_url)
    report = run_doctor(
        base_url, model=model, api_key=api_key, timeout=timeout, hidden_size=hidden_size
    )
    render_report(report, cli_console(width=DOCTOR_WIDTH))
    raise typer.Exit(code=report.exit_code)


def _one_base_url(ctx: typer.Context, url: str | None, base_url: str) -> str:
    """The URL given as an argument, or `--base-url` (typed, from the environment, default)."""
    if url is None:
        return base_url
    source = ctx.get_parameter_source("base_url")
    typed = source is not None and source.name == "COMMANDLINE"
    if typed and base_url.rstrip("/") != url.rstrip("/"):
        _fail(
            f"two server URLs: {url} and --base-url {base_url}; give one of them",
            code=EXIT_USAGE,
        )
    return url


class _EvalCommand(HelpCommand):
    """`eval CASES...`, and `eval compare RUN_A RUN_B` when `compare` is the first word.

    `eval` stays one command, so every existing invocation (and its help) is unchanged; a
    typer group would need a subcommand name before the case files. A case file named
    `compare` is given as `./compare`.
    """

    # `Any` for the context: typer releases differ on whose click class it is (their own copy
    # of click, or click itself), and the override only passes it on.
    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        if args and args[0] == "compare":
            command = typer.main.get_command(_eval_compare)
            return command.make_context(f"{info_name} compare", args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)


@app.command(
    name="eval",
    cls=_EvalCommand,
    short_help="Run the pipeline ladder on case files; report the failure taxonomy.",
    help=(
        "Run eval cases through the pipeline ladder side by side (auto, auto+parser, "
        "auto+recover, required, required+validate, full), classify each outcome (pass, "
        "wrong_tool, wrong_args, "
        "hard_fail, missed_call, spurious_call) and write report.json, report.md and "
        "ladder.svg to --out. A rerun with the same --out skips finished cases. "
        "The server is --base-url URL. See docs/evals.md.\n\n"
        "Compare two runs: `toolcall-sdk eval compare RUN_A RUN_B` (its own --help)."
    ),
)
def eval_(
    cases: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="CASES", help="Case files (JSON Lines, docs/evals.md).", show_default=False
        ),
    ] = None,
    base_url: Annotated[
        str,
        typer.Option(
            "--base-url",
            envvar=BASE_URL_ENV,
            metavar="URL",
            help="The server's /v1 URL (served with the SDK's parser plugin).",
        ),
    ] = DEFAULT_BASE_URL,
    wrong_parser_base_url: Annotated[
        str | None,
        typer.Option(
            "--wrong-parser-base-url",
            metavar="URL",
            help="The same model behind vLLM's plain hermes parser, for the auto rung "
            "(default: --base-url).",
            rich_help_panel="The auto rung's server",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", envvar=MODEL_ENV, metavar="NAME", help="Served model (default: first)."
        ),
    ] = None,
    pipeline: Annotated[
        list[str] | None,
        typer.Option(
            "--pipeline",
            "-p",
            metavar="NAME",
            help="A pipeline to run, repeatable or comma-separated (default: all six): "
            "auto, auto+parser, "
            "auto+recover, required, required+validate, full; for multi-step tasks "
            "(default: all three): raw-loop, agent, agent-route-first.",
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-c", metavar="N", help="Requests in flight at once.")
    ] = 4,
    out: Annotated[
        str, typer.Option("--out", metavar="DIR", help="Folder for results and reports.")
    ] = "eval-out",
    router: Annotated[
        str,
        typer.Option(
            "--router",
            metavar="NAME",
            help="The router of the full and agent pipelines: llm (the model's answer "
            "under auto decides), both (a routing question first), probe, always, never.",
        ),
    ] = "llm",
    max_retries: Annotated[
        int,
        typer.Option("--max-retries", metavar="N", help="Feedback retries of the full pipeline."),
    ] = 2,
    grounding: Annotated[
        str,
        typer.Option(
            "--grounding",
            metavar="POLICY",
            help="The full pipeline's grounding check: off, default (identifiers and "
            "dates) or all (numbers too).",
            rich_help_panel=_FULL,
        ),
    ] = "off",
    call_tags: Annotated[
        str,
        typer.Option(
            "--call-tags",
            metavar="MODE",
            help="The full pipeline's call tags: off, schema (a call started in an auto "
            "answer held to its schema) or grounded (and to the stated values).",
            rich_help_panel=_FULL,
        ),
    ] = "off",
    listed_values: Annotated[
        str,
        typer.Option(
            "--listed-values",
            metavar="MODE",
            help="The full pipeline's answer to a request it gave fewer calls than asked: "
            "off, ask, complete, continue (the model's answer continued with another call), "
            "or continue_listed (only where the request states a value the calls left out).",
            rich_help_panel=_FULL,
        ),
    ] = "continue_listed",
    optional_values: Annotated[
        str,
        typer.Option(
            "--optional-values",
            metavar="MODE",
            help="The full pipeline's optional values: stated (an optional free-text "
            "value no message states is left out) or any.",
            rich_help_panel=_FULL,
        ),
    ] = "stated",
    parallel_tool_calls: Annotated[
        bool,
        typer.Option(
            "--parallel-calls",
            help="Send parallel_tool_calls (true) with every rung's requests (default: not "
            "sent). The SDK's forced call of a single tool then stays tool_choice=required "
            "instead of naming the tool, which vLLM decodes as one call.",
        ),
    ] = False,
    bfcl: Annotated[
        str | None,
        typer.Option(
            "--bfcl",
            metavar="CATEGORIES",
            help="BFCL categories to add, comma-separated (simple_python,multiple); needs "
            "the bfcl-eval package.",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            metavar="N",
            help="At most N cases per source, spread over its categories.",
        ),
    ] = None,
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens",
            metavar="N",
            help="Token limit per answer; 0 leaves it to the server.",
        ),
    ] = DEFAULT_EVAL_MAX_TOKENS,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", envvar=API_KEY_ENV, metavar="KEY", help="The server's key."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="SECONDS", help="Time limit per request.")
    ] = 120.0,
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
        typer.Option("--fresh", help="Discard the results already in --out (no resume)."),
    ] = False,
) -> None:
    from pathlib import Path

    from toolcall_sdk._call_tags import CALL_TAG_MODES
    from toolcall_sdk._console import cli_console
    from toolcall_sdk._errors import ToolCallError
    from toolcall_sdk._listed_values import LISTED_VALUES
    from toolcall_sdk.evals._cli import gather_cases, run_eval_command
    from toolcall_sdk.evals._pipelines import ALL_PIPELINES, EvalSettings
    from toolcall_sdk.evals._preflight import preflight
    from toolcall_sdk.evals._runner import check_kinds, default_pipelines
    from toolcall_sdk.grounding._policy import CHOICES
    from toolcall_sdk.grounding._unstated import OPTIONAL_VALUES
    from toolcall_sdk.routing import ROUTER_NAMES

    for case_file in cases or []:
        if looks_like_url(case_file):
            _url_is_not_an_argument("--base-url", case_file, "the arguments of eval are case files")
    # `-p a -p b` and `-p a,b` (the form ladder.py takes) name the same pipelines.
    pipeline = [p.strip() for value in pipeline or [] for p in value.split(",") if p.strip()]
    unknown = [p for p in pipeline if p not in ALL_PIPELINES]
    if unknown:
        raise typer.BadParameter(
            f"unknown pipeline(s) {unknown}; choose from {', '.join(ALL_PIPELINES)}"
        )
    if max_tokens < 0:
        raise typer.BadParameter("--max-tokens must be 0 (the server's default) or more")
    _check_choices(
        ("--router", router, ROUTER_NAMES),
        ("--grounding", grounding, CHOICES),
        ("--call-tags", call_tags, CALL_TAG_MODES),
        ("--listed-values", listed_values, LISTED_VALUES),
        ("--optional-values", optional_values, OPTIONAL_VALUES),
    )
    try:
        loaded = gather_cases(cases or [], bfcl, limit=limit, allow_code=allow_code)
        chosen = list(pipeline) if pipeline else default_pipelines(loaded)
        check_kinds(loaded, chosen)
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
        call_tags=call_tags,
        listed_values=listed_values,
        optional_values=optional_values,
        parallel_tool_calls=True if parallel_tool_calls else None,
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
            console=cli_console(width=EVAL_WIDTH),
            source=", ".join(sources),
            fresh=fresh,
        )
    except (ValueError, OSError, ToolCallError) as exc:  # the out dir belongs to another run
        _fail(exc, code=2)
    if code:
        raise typer.Exit(code=code)


# `eval compare` is its own typer app, reached through `_EvalCommand` (not a command of `app`).
_eval_compare = typer.Typer(add_completion=False, rich_markup_mode="rich")


@_eval_compare.command(
    name="compare",
    cls=HelpCommand,
    help=(
        "Compare two eval runs (their --out folders): per pipeline, the pass rate and each "
        "failure class in RUN_A and RUN_B, then the cases that regressed (passed in RUN_A, "
        "not in RUN_B) and those fixed, each with the call it made or its failure on both "
        "sides. Exits 0; with --fail-on-regression, 1 when a case regressed. A folder that "
        "is not an eval run exits 2. See docs/traffic-evals.md."
    ),
)
def eval_compare(
    run_a: Annotated[
        str,
        typer.Argument(
            metavar="RUN_A", help="The run before (an eval --out folder).", show_default=False
        ),
    ],
    run_b: Annotated[
        str,
        typer.Argument(metavar="RUN_B", help="The run after.", show_default=False),
    ],
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression", help="Exit 1 when a case passed in RUN_A and not in RUN_B."
        ),
    ] = False,
) -> None:
    from toolcall_sdk._console import cli_console
    from toolcall_sdk.evals._compare import NotAnEvalRunError, compare_runs, load_run
    from toolcall_sdk.evals._compare_terminal import print_comparison

    try:
        comparison = compare_runs(load_run(run_a), load_run(run_b))
    except NotAnEvalRunError as exc:
        _fail(exc, code=EXIT_USAGE)
    print_comparison(comparison, cli_console(width=EVAL_WIDTH))
    if fail_on_regression and comparison.regressed:
        raise typer.Exit(code=1)


cases_app = typer.Typer(
    name="cases",
    cls=HelpGroup,
    help=(
        "Make eval cases from what your model really saw: `toolcall-sdk cases review DIR "
        "--out FILE` (docs/traffic-evals.md)."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)
app.add_typer(cases_app, name="cases", short_help="Turn recorded traffic into eval cases.")


@cases_app.command(
    name="review",
    cls=HelpCommand,
    short_help="Review recorded requests into an eval case file.",
    help=(
        "Turn the requests the SDK's recorder wrote to DIR (traffic.jsonl, traffic-*.jsonl) "
        "into eval cases for toolcall-sdk eval, tools inline as JSON. Near-duplicates are "
        "folded into one, with a count. Without --accept, each request is shown, failures "
        "first, and you decide: a accept the call, f fix an argument, n no call expected, "
        "s skip, q quit (what was decided is kept). With --accept validated (scripts, CI) "
        "every validated call becomes a case; add --accept answered to take text answers "
        "as no-call cases. FILE is added to, never overwritten: a rerun goes on where the "
        "last one stopped. See docs/traffic-evals.md."
    ),
)
def cases_review(
    directory: Annotated[
        str,
        typer.Argument(
            metavar="DIR", help="The recorder's folder (or one traffic file).", show_default=False
        ),
    ],
    out: Annotated[
        str,
        typer.Option(
            "--out",
            metavar="FILE",
            help="The case file to add to (JSON Lines).",
            show_default=False,
        ),
    ],
    accept: Annotated[
        list[str] | None,
        typer.Option(
            "--accept",
            metavar="KIND",
            help="Write without asking: validated (the SDK's validated calls) and/or "
            "answered (text answers, as no call); repeatable or comma-separated.",
            show_default=False,
        ),
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            min=1,
            metavar="N",
            help="Only N requests, spread over tools and outcomes, failures first.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="The seed of --sample's draw.")
    ] = 0,
) -> None:
    from toolcall_sdk._console import cli_console
    from toolcall_sdk._errors import ToolCallError
    from toolcall_sdk.evals._review_command import console_ask, run_review_command

    console = cli_console(width=EVAL_WIDTH)
    kinds = [k.strip() for value in accept or [] for k in value.split(",") if k.strip()]
    try:
        code = run_review_command(
            directory,
            out,
            accept=kinds,
            sample_size=sample,
            seed=seed,
            console=console,
            ask=console_ask(console),
        )
    except (ValueError, OSError, ToolCallError) as exc:
        _fail(exc, code=EXIT_USAGE)
    if code:
        raise typer.Exit(code=code)


@app.command(
    cls=HelpCommand,
    # Arguments are taken, to be refused in one line: a URL typed without --upstream.
    context_settings={"allow_extra_args": True},
    short_help="An OpenAI-compatible server in front of vLLM, with the SDK's calls.",
    help=(
        "Serve an OpenAI-compatible endpoint in front of the --upstream server: chat "
        "requests with tools go through the SDK's pipeline (route, forced call, recovery, "
        "validation against the request's JSON Schema, hidden feedback retries); everything "
        "else is relayed byte for byte. Point any OpenAI client's base_url at "
        "http://HOST:PORT/v1. See docs/proxy.md."
    ),
)
def proxy(
    ctx: typer.Context,
    upstream: Annotated[
        list[str] | None,
        typer.Option(
            "--upstream",
            metavar="URL",
            help="The upstream's /v1 URL (required); repeat it to fail over across servers.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            metavar="ADDRESS", help="Address to bind; anything but loopback needs --api-key."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", help="Port to listen on, 1-65535.")] = 8100,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="TOOLCALL_PROXY_API_KEY",
            metavar="KEY",
            help="Key callers must send as Authorization: Bearer KEY (never printed).",
            show_default=False,
        ),
    ] = None,
    upstream_api_key: Annotated[
        str | None,
        typer.Option(
            envvar="TOOLCALL_UPSTREAM_API_KEY",
            metavar="KEY",
            help="Key sent to the upstream instead of the caller's.",
            show_default=False,
        ),
    ] = None,
    max_retries: Annotated[
        int,
        typer.Option(
            "--max-retries", metavar="N", help="Feedback retries after the first forced call."
        ),
    ] = 2,
    router: Annotated[
        str,
        typer.Option(
            metavar="NAME",
            help="How tool_choice=auto is routed: llm (the model's answer decides), probe "
            "(a routing question first), always (force a call), never (plain answer).",
        ),
    ] = "llm",
    call_tool_choice: Annotated[
        str,
        typer.Option(
            "--call-tool-choice",
            metavar="CHOICE",
            help="tool_choice of a call the router decided on: required (forced; the "
            "default) or auto (calls read and recovered from the answer, for models that "
            "call worse under constrained decoding). A caller's required or named call is "
            "forced.",
        ),
    ] = "required",
    timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="Time limit per upstream request.")
    ] = 120.0,
    log_level: Annotated[str, typer.Option(metavar="LEVEL", help="uvicorn log level.")] = "info",
    grounding: Annotated[
        str,
        typer.Option(
            "--grounding",
            metavar="POLICY",
            help="Check that a call's values are in the request's messages: off, default "
            "(identifiers and dates) or all (numbers too).",
        ),
    ] = "off",
    call_tags: Annotated[
        str,
        typer.Option(
            "--call-tags",
            metavar="MODE",
            help="Hold a call the model starts in an auto answer to its tool's schema: off, "
            "schema, or grounded (values held to the ones the messages state).",
        ),
    ] = "off",
    listed_values: Annotated[
        str,
        typer.Option(
            "--listed-values",
            metavar="MODE",
            help="An answer with fewer calls than the request asks for: off, ask, complete, "
            "continue (the model's answer continued with another call), or continue_listed "
            "(only where the request states a value the calls left out).",
        ),
    ] = "continue_listed",
    optional_values: Annotated[
        str,
        typer.Option(
            "--optional-values",
            metavar="MODE",
            help="An optional free-text value no message states: stated (left out where its "
            "tool documents the default) or any (kept).",
        ),
    ] = "stated",
    record: Annotated[
        str | None,
        typer.Option(
            "--record",
            metavar="DIR",
            help="Record each tool request (the conversation, the tools, the outcome; never "
            "a header) as a JSON line in DIR, for `toolcall-sdk cases review`.",
        ),
    ] = None,
) -> None:
    from toolcall_sdk._extras import MissingDependencyError

    for value in ctx.args:
        if looks_like_url(value):
            _url_is_not_an_argument("--upstream", value, "proxy takes no arguments")
        _fail(f"proxy takes no arguments (got {value!r}); give --upstream URL", code=EXIT_USAGE)
    if not upstream:
        _fail(
            f"give the server to stand in front of: --upstream URL (e.g. {DEFAULT_BASE_URL})",
            code=EXIT_USAGE,
        )
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
            call_tags=call_tags,
            listed_values=listed_values,
            optional_values=optional_values,
            record=record,
        )
    except ProxyConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc


def _check_choices(*options: tuple[str, str, Collection[str]]) -> None:
    """Refuse an option whose value is none of its choices, naming them."""
    for flag, value, choices in options:
        if value not in choices:
            raise typer.BadParameter(f"{flag} must be one of {', '.join(choices)}")


def main() -> None:
    """Entry point of the `toolcall-sdk` console script."""
    app()


if __name__ == "__main__":
    main()
