"""The model-family registry: which vLLM flags make tool calling work for a model.

vLLM turns the model's text into `tool_calls` with the parser named by `--tool-call-parser`;
the wrong parser leaves every call in `content`. Each entry below says, for one family, the
parser, the chat template (a file vLLM ships in its `examples/` folder, or `None` when the
model's own template renders tools), a reasoning parser where the model thinks before it
calls, extra flags, and the quirks worth knowing.

Parser, reasoning-parser and template names are vLLM's own: they were checked against
`vllm/tool_parsers/__init__.py`, `vllm/reasoning/__init__.py` and `examples/` in
vllm-project/vllm (see docs/launch.md), and a unit test checks them against the vLLM
installed on the machine when there is one. The one exception is a family whose format no
vLLM parser reads: its parser is the SDK plugin's (`toolcall_<format>`, see
`toolcall_sdk.vllm_plugin`), which the launcher loads with `--tool-parser-plugin`.

Entries are tried in order, so the more specific patterns come first (`Llama-xLAM` before
xLAM, `Hermes-3-Llama-3.1` before Llama 3.1, `Qwen3-Coder` before Qwen3).

This module is data and lookups only, on the standard library: the parsers read it (a model
id names its output format), and so do the doctor and the launcher, which re-exports it as
`toolcall_sdk.launcher.FAMILIES` / `resolve_family` with its own error type.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_sdk._errors import ToolCallError

__all__ = [
    "FAMILIES",
    "ModelFamily",
    "UnknownFamilyError",
    "get_family",
    "known_tool_parsers",
    "resolve_family",
]


class UnknownFamilyError(ToolCallError):
    """No registry entry matches a model, or no family has the name given.

    The launcher raises its own subclass, `toolcall_sdk.launcher.UnknownModelFamilyError`,
    which adds how to name a parser on its command line.

    Attributes:
        model: The model id, path or family name that was looked up.
        known_parsers: The parser names the registry uses, sorted.
        summary: The first sentence of the message: what was not found, and in what.
    """

    def __init__(
        self, message: str, *, model: str, known_parsers: Sequence[str], summary: str = ""
    ) -> None:
        super().__init__(message)
        self.model = model
        self.known_parsers = list(known_parsers)
        self.summary = summary or message


# The flags that make vLLM read Mistral's own checkpoint format through mistral-common.
_MISTRAL_FORMAT = (
    "--tokenizer-mode",
    "mistral",
    "--config-format",
    "mistral",
    "--load-format",
    "mistral",
)
# The names the SDK's vLLM plugin registers its parsers under (`toolcall_qwen25_coder`).
_PLUGIN_PARSER_PREFIX = "toolcall_"
# Models whose tokenizer or config code lives in the model repository.
_TRUST_REMOTE_CODE = ("--trust-remote-code",)


@dataclass(frozen=True)
class ModelFamily:
    """How to serve one family of models with working tool calls.

    Attributes:
        name: Registry key, accepted by `--family`.
        title: Human-readable family name.
        patterns: Case-insensitive regular expressions searched in the model's repository
            name (the part after the last `/`).
        tool_call_parser: vLLM's `--tool-call-parser` name, or the SDK plugin's
            (`toolcall_<format>`) where no vLLM parser reads the family's format.
        chat_template: File name of a chat template vLLM ships in `examples/`, or `None`
            when the model's own template renders tools correctly.
        reasoning_parser: vLLM's `--reasoning-parser` name, for models that think before
            they call.
        extra_args: Further vLLM flags the family needs.
        notes: Known quirks.
        examples: Model ids of the family, best known first.
        model_types: `config.json` `model_type` values that identify the family on their own
            (used for local directories whose name says nothing).
        architectures: `config.json` `architectures` entries that do the same.
        needs_file: A file a local model directory must hold for `extra_args` to work.
        fallback: The family to use instead for a local directory without `needs_file`.
    """

    name: str
    title: str
    patterns: tuple[str, ...]
    tool_call_parser: str
    chat_template: str | None = None
    reasoning_parser: str | None = None
    extra_args: tuple[str, ...] = ()
    notes: str = ""
    examples: tuple[str, ...] = ()
    model_types: tuple[str, ...] = ()
    architectures: tuple[str, ...] = ()
    needs_file: str | None = None
    fallback: str | None = None

    def matches(self, name: str) -> bool:
        """Say whether a repository or directory name belongs to this family.

        Args:
            name: A model repository name such as `Qwen2.5-7B-Instruct`.

        Returns:
            True when one of the family's patterns occurs in the name.
        """
        return any(re.search(p, name, re.IGNORECASE) for p in self.patterns)


FAMILIES: tuple[ModelFamily, ...] = (
    ModelFamily(
        name="xlam-llama",
        title="xLAM (Llama-based)",
        patterns=(r"llama-xlam",),
        tool_call_parser="xlam",
        chat_template="tool_chat_template_xlam_llama.jinja",
        notes="Parallel calls supported. The xlam parser accepts a bare JSON array, a fenced "
        "json block, `[TOOL_CALLS]` or `<tool_call>` tags.",
        examples=("Salesforce/Llama-xLAM-2-8b-fc-r", "Salesforce/Llama-xLAM-2-70b-fc-r"),
    ),
    ModelFamily(
        name="xlam-qwen",
        title="xLAM (Qwen-based)",
        patterns=(r"xlam",),
        tool_call_parser="xlam",
        chat_template="tool_chat_template_xlam_qwen.jinja",
        notes="Parallel calls supported; same parser as the Llama-based xLAM models, with "
        "vLLM's Qwen-flavoured xLAM template.",
        examples=(
            "Salesforce/xLAM-2-3b-fc-r",
            "Salesforce/xLAM-2-1b-fc-r",
            "Salesforce/xLAM-2-32b-fc-r",
        ),
    ),
    ModelFamily(
        name="toolace",
        title="ToolACE",
        patterns=(r"toolace",),
        tool_call_parser="pythonic",
        chat_template="tool_chat_template_toolace.jinja",
        notes="Llama-3.1-based; answers with a Python list of calls, "
        "`[get_weather(city='Oslo')]`. An answer holds either text or calls, never both.",
        examples=("Team-ACE/ToolACE-8B", "fixie-ai/ultravox-v0_4-ToolACE-8B"),
    ),
    ModelFamily(
        name="hermes",
        title="Hermes 2 Pro / Hermes 3",
        patterns=(r"hermes-2-pro", r"hermes-2-theta", r"hermes-3"),
        tool_call_parser="hermes",
        notes="The repository's `tool_use` chat template is picked when a request has tools. "
        "Hermes 2 Theta (a merge) calls tools noticeably worse.",
        examples=("NousResearch/Hermes-3-Llama-3.1-8B", "NousResearch/Hermes-2-Pro-Llama-3-8B"),
    ),
    ModelFamily(
        name="qwen3-coder",
        title="Qwen3-Coder",
        patterns=(r"qwen3-coder",),
        tool_call_parser="qwen3_coder",
        notes="XML-style calls (`<function=name><parameter=key>...`). `qwen3_xml` parses the "
        "same format. Not a thinking model: no reasoning parser.",
        examples=("Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen/Qwen3-Coder-480B-A35B-Instruct"),
    ),
    ModelFamily(
        name="qwen3.5",
        title="Qwen3.5 and later",
        patterns=(r"qwen3\.[5-9]", r"qwen3\.\d\d", r"qwen[4-9]"),
        tool_call_parser="qwen3_coder",
        reasoning_parser="qwen3",
        notes="The Qwen3-Coder XML format (`<function=f><parameter=a>...`), not Hermes JSON; "
        "thinking "
        "on by default, split off by the qwen3 reasoning parser.",
    ),
    ModelFamily(
        name="qwq",
        title="QwQ",
        patterns=(r"qwq",),
        tool_call_parser="hermes",
        reasoning_parser="deepseek_r1",
        notes="Thinks in `<think>...</think>` before it calls; the reasoning parser moves that "
        "into `reasoning_content` so the hermes parser only sees the answer.",
        examples=("Qwen/QwQ-32B",),
    ),
    ModelFamily(
        name="qwen3",
        title="Qwen3",
        patterns=(r"qwen3",),
        tool_call_parser="hermes",
        reasoning_parser="qwen3",
        notes="Hermes-style `<tool_call>` JSON. Thinking is on by default; the qwen3 reasoning "
        "parser keeps `<think>` out of the answer (switch thinking off per request with "
        '`chat_template_kwargs={"enable_thinking": false}`).',
        examples=("Qwen/Qwen3-8B", "Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-30B-A3B"),
        model_types=("qwen3",),
        architectures=("Qwen3ForCausalLM",),
    ),
    ModelFamily(
        name="qwen2.5-coder",
        title="Qwen2.5-Coder",
        patterns=(r"qwen2\.5-coder",),
        tool_call_parser=_PLUGIN_PARSER_PREFIX + "qwen25_coder",
        notes='Under `tool_choice="auto"` the model writes no `<tool_call>` tags, but the call '
        "object itself, in a json code fence or bare on its own line; no vLLM parser reads that "
        "(vLLM issue #32926). The SDK's plugin parser does, for offered tools only (the "
        "launcher loads it with --tool-parser-plugin); invented tools stay text.",
        examples=(
            "Qwen/Qwen2.5-Coder-7B-Instruct",
            "Qwen/Qwen2.5-Coder-1.5B-Instruct",
            "Qwen/Qwen2.5-Coder-0.5B-Instruct",
        ),
    ),
    ModelFamily(
        name="qwen2.5",
        title="Qwen2.5",
        patterns=(r"qwen2\.5",),
        tool_call_parser="hermes",
        notes="The model's own template renders tools in Hermes style "
        "(`<tool_call>{...}</tool_call>`).",
        examples=(
            "Qwen/Qwen2.5-7B-Instruct",
            "Qwen/Qwen2.5-3B-Instruct",
            "Qwen/Qwen2.5-72B-Instruct",
        ),
        model_types=("qwen2",),
        architectures=("Qwen2ForCausalLM",),
    ),
    ModelFamily(
        name="qwen",
        title="Qwen, Qwen1.5, Qwen2 (and other Qwen names)",
        patterns=(r"(?<!distill-)qwen",),
        tool_call_parser="hermes",
        notes="The Qwen models before 2.5 write Hermes-style `<tool_call>` JSON; last of the Qwen "
        "rows, "
        "so every named Qwen family above wins.",
        examples=("Qwen/Qwen2-7B-Instruct",),
    ),
    ModelFamily(
        name="llama-4",
        title="Llama 4",
        patterns=(r"llama-4",),
        tool_call_parser="llama4_pythonic",
        chat_template="tool_chat_template_llama4_pythonic.jinja",
        notes="Pythonic calls, parallel calls supported. vLLM also ships a JSON variant "
        "(`llama4_json` + `tool_chat_template_llama4_json.jinja`) but recommends this one.",
        examples=(
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        ),
        model_types=("llama4",),
        architectures=("Llama4ForConditionalGeneration",),
    ),
    ModelFamily(
        name="llama-3.2-pythonic",
        title="Llama 3.2 1B/3B (pythonic)",
        patterns=(r"llama-3\.2-[13]b",),
        tool_call_parser="pythonic",
        chat_template="tool_chat_template_llama3.2_pythonic.jinja",
        notes="Default for the 1B/3B models: pythonic is the zero-shot calling format Meta "
        "documents for them, and it carries parallel calls (llama3_json cannot). Small models "
        'often miss the format: use `tool_choice="required"`. JSON instead: `--family '
        "llama-3.2-json`.",
        examples=("meta-llama/Llama-3.2-3B-Instruct", "meta-llama/Llama-3.2-1B-Instruct"),
    ),
    ModelFamily(
        name="llama-3.2-json",
        title="Llama 3.2 (JSON)",
        patterns=(r"llama-3\.2",),
        tool_call_parser="llama3_json",
        chat_template="tool_chat_template_llama3.2_json.jinja",
        notes="JSON calls; the template is the 3.1 one plus image support (Vision models). "
        "One call per answer; arrays sometimes arrive serialised as strings.",
        examples=(
            "meta-llama/Llama-3.2-11B-Vision-Instruct",
            "meta-llama/Llama-3.2-90B-Vision-Instruct",
        ),
    ),
    ModelFamily(
        name="llama-3.1",
        title="Llama 3.1 / 3.3",
        patterns=(r"llama-?3\.[13]",),
        tool_call_parser="llama3_json",
        chat_template="tool_chat_template_llama3.1_json.jinja",
        notes="vLLM's tweak of Meta's template. One call per answer (no parallel calls); "
        "arrays sometimes arrive serialised as strings. Llama 3.3 uses the 3.1 format.",
        examples=(
            "meta-llama/Llama-3.1-8B-Instruct",
            "meta-llama/Llama-3.1-70B-Instruct",
            "meta-llama/Llama-3.3-70B-Instruct",
        ),
    ),
    ModelFamily(
        name="llama-3",
        title="Llama 3 (3.0)",
        patterns=(r"llama-?3",),
        tool_call_parser="llama3_json",
        chat_template="tool_chat_template_llama3.1_json.jinja",
        notes="Meta-Llama-3 writes the 3.1 JSON call; after the 3.1-3.3 rows, which it would "
        "match too.",
        examples=("meta-llama/Meta-Llama-3-8B-Instruct",),
    ),
    ModelFamily(
        name="mistral",
        title="Mistral",
        patterns=(r"mistral", r"mixtral", r"ministral", r"magistral", r"codestral", r"devstral"),
        tool_call_parser="mistral",
        extra_args=_MISTRAL_FORMAT,
        notes="Mistral's own checkpoint format through mistral-common (`pip install "
        "mistral-common`), which renders the tools itself: no chat template. Tool calls need "
        "Instruct v0.3 or newer; Mistral 7B is weak at parallel calls. Transformers-format "
        "weights: `--family mistral-hf`.",
        examples=(
            "mistralai/Mistral-7B-Instruct-v0.3",
            "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        ),
        model_types=("mistral", "mixtral"),
        architectures=("MistralForCausalLM", "MixtralForCausalLM"),
        needs_file="params.json",
        fallback="mistral-hf",
    ),
    ModelFamily(
        name="mistral-hf",
        title="Mistral (Transformers format)",
        patterns=(),
        tool_call_parser="mistral",
        chat_template="tool_chat_template_mistral_parallel.jinja",
        notes="For weights without `params.json`. The repository's template demands 9-character "
        "tool-call ids, which vLLM's are not; vLLM's template truncates them and adds a "
        "tool-use system prompt that makes parallel calls more reliable.",
        examples=("mistralai/Mistral-7B-Instruct-v0.3",),
    ),
    ModelFamily(
        name="granite-20b-fc",
        title="Granite 20B FunctionCalling",
        patterns=(r"granite-20b-functioncalling",),
        tool_call_parser="granite-20b-fc",
        chat_template="tool_chat_template_granite_20b_fc.jinja",
        notes="The repository's template does not work with vLLM; vLLM's blends in the Hermes "
        "function descriptions. Parallel calls supported.",
        examples=("ibm-granite/granite-20b-functioncalling",),
    ),
    ModelFamily(
        name="granite-4",
        title="Granite 4",
        patterns=(r"granite-4",),
        tool_call_parser="granite4",
        notes="The model's own template works.",
        examples=("ibm-granite/granite-4.0-h-small", "ibm-granite/granite-4.0-h-tiny"),
        model_types=("granitemoehybrid",),
    ),
    ModelFamily(
        name="granite-3.0",
        title="Granite 3.0",
        patterns=(r"granite-3\.0",),
        tool_call_parser="granite",
        chat_template="tool_chat_template_granite.jinja",
        notes="Needs vLLM's modified template; parallel calls supported.",
        examples=("ibm-granite/granite-3.0-8b-instruct",),
    ),
    ModelFamily(
        name="granite",
        title="Granite 3.1+",
        patterns=(r"granite-3",),
        tool_call_parser="granite",
        notes="`<|tool_call|>` followed by a JSON list; the model's own template works from 3.1 "
        "on. Parallel calls supported.",
        examples=("ibm-granite/granite-3.1-8b-instruct", "ibm-granite/granite-3.3-8b-instruct"),
    ),
    ModelFamily(
        name="internlm2.5",
        title="InternLM 2.5",
        patterns=(r"internlm2",),
        tool_call_parser="internlm",
        chat_template="tool_chat_template_internlm2_tool.jinja",
        extra_args=_TRUST_REMOTE_CODE,
        notes="Needs `--trust-remote-code`: the tokenizer is code in the model repository. "
        "InternLM2 (before 2.5) calls tools unreliably.",
        examples=("internlm/internlm2_5-7b-chat",),
        model_types=("internlm2",),
        architectures=("InternLM2ForCausalLM",),
    ),
    ModelFamily(
        name="deepseek-v3.2",
        title="DeepSeek V3.2 and later",
        patterns=(r"deepseek-v3\.[2-9]", r"deepseek-v[4-9]"),
        tool_call_parser="deepseek_v32",
        notes="DSML sections (`<｜DSML｜function_calls>`). A multi-GPU node.",
        examples=("deepseek-ai/DeepSeek-V3.2-Exp",),
    ),
    ModelFamily(
        name="deepseek-v3.1",
        title="DeepSeek-V3.1",
        patterns=(r"deepseek-v3\.1",),
        tool_call_parser="deepseek_v31",
        chat_template="tool_chat_template_deepseekv31.jinja",
        notes="Own parser and template (the V3 ones do not fit). 671B MoE: a multi-GPU node.",
        examples=("deepseek-ai/DeepSeek-V3.1",),
    ),
    ModelFamily(
        name="deepseek-r1",
        title="DeepSeek-R1-0528",
        patterns=(r"deepseek-r1(?!-distill)",),
        tool_call_parser="deepseek_v3",
        chat_template="tool_chat_template_deepseekr1.jinja",
        reasoning_parser="deepseek_r1",
        notes="Tool calls are documented for the 0528 checkpoint; the first R1 was not trained "
        "for them. R1 distills are other architectures and are not matched here.",
        examples=("deepseek-ai/DeepSeek-R1-0528",),
    ),
    ModelFamily(
        name="deepseek-v3",
        title="DeepSeek-V3",
        patterns=(r"deepseek-v3(?![.\d])",),
        tool_call_parser="deepseek_v3",
        chat_template="tool_chat_template_deepseekv3.jinja",
        notes="Use V3-0324 or newer for tool calls. 671B MoE: a multi-GPU node "
        "(`--tensor-parallel-size 8`).",
        examples=("deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3"),
    ),
    ModelFamily(
        name="gpt-oss",
        title="gpt-oss",
        patterns=(r"gpt-oss",),
        tool_call_parser="openai",
        notes="Harmony format: vLLM handles the analysis/commentary channels itself, so no "
        "template and no reasoning-parser flag. Chat Completions tool calls need vLLM >= 0.10.2.",
        examples=("openai/gpt-oss-20b", "openai/gpt-oss-120b"),
        model_types=("gpt_oss",),
        architectures=("GptOssForCausalLM",),
    ),
    ModelFamily(
        name="glm-4.5",
        title="GLM-4.5 / GLM-4.6",
        patterns=(r"glm-4\.[56]",),
        tool_call_parser="glm45",
        reasoning_parser="glm45",
        notes="`<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`; hybrid "
        "thinking, split off by the glm45 reasoning parser.",
        examples=("zai-org/GLM-4.5-Air", "zai-org/GLM-4.5", "zai-org/GLM-4.6"),
        model_types=("glm4_moe",),
        architectures=("Glm4MoeForCausalLM",),
    ),
    ModelFamily(
        name="glm-4.7",
        title="GLM-4.7 and GLM-5",
        patterns=(r"glm-4\.[7-9]", r"glm-[5-9]"),
        tool_call_parser="glm47",
        reasoning_parser="glm45",
        notes="The GLM-4.5 call format, read by vLLM's glm47 parser.",
        examples=("zai-org/GLM-4.7",),
    ),
    ModelFamily(
        name="kimi-k2-thinking",
        title="Kimi K2 Thinking",
        patterns=(r"kimi-k2-thinking",),
        tool_call_parser="kimi_k2",
        reasoning_parser="kimi_k2",
        extra_args=_TRUST_REMOTE_CODE,
        notes="Interleaves thinking and calls. Needs `--trust-remote-code` (tokenizer code in the "
        "repository). 1T-parameter MoE: a multi-GPU node.",
        examples=("moonshotai/Kimi-K2-Thinking",),
    ),
    ModelFamily(
        name="kimi-k2",
        title="Kimi K2",
        patterns=(r"kimi-k2",),
        tool_call_parser="kimi_k2",
        extra_args=_TRUST_REMOTE_CODE,
        notes="Needs `--trust-remote-code` (tokenizer code in the repository). 1T-parameter MoE: "
        "a multi-GPU node.",
        examples=("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct-0905"),
        model_types=("kimi_k2",),
    ),
    ModelFamily(
        name="kimi-k3",
        title="Kimi K3",
        patterns=(r"kimi-k3",),
        tool_call_parser="kimi_k3",
        extra_args=_TRUST_REMOTE_CODE,
        notes="Channel tags (`<|open|>tools<|sep|>`). Needs `--trust-remote-code`.",
    ),
    ModelFamily(
        name="gemma-4",
        title="Gemma 4",
        patterns=(r"gemma-?4",),
        tool_call_parser="gemma4",
        notes="`<|tool_call>call:f{a:1}<tool_call|>`, read by vLLM's gemma4 parser.",
    ),
)

_BY_NAME = {family.name: family for family in FAMILIES}


def get_family(name: str) -> ModelFamily:
    """Look a family up by its registry name.

    Args:
        name: A `ModelFamily.name`, e.g. `"llama-3.2-json"` (case-insensitive).

    Returns:
        The family.

    Raises:
        UnknownFamilyError: No family has that name; the message lists them all.
    """
    family = _BY_NAME.get(name.lower())
    if family is None:
        names = ", ".join(f.name for f in FAMILIES)
        raise UnknownFamilyError(
            f"No model family is named {name!r}. Known families: {names}.",
            model=name,
            known_parsers=known_tool_parsers(),
        )
    return family


def known_tool_parsers() -> list[str]:
    """Return the tool-call parser names the registry uses, sorted."""
    return sorted({family.tool_call_parser for family in FAMILIES})


def resolve_family(model: str | os.PathLike[str]) -> ModelFamily:
    """Find the family of a model from its id or its local directory.

    A Hugging Face id is matched by its repository name. A local directory is matched by
    the `_name_or_path` in its `config.json`, then by its own name, then by the
    `model_type` and `architectures` in `config.json`.

    Args:
        model: A model id such as `Qwen/Qwen2.5-7B-Instruct`, or a local model directory.

    Returns:
        The first family (most specific first) that matches.

    Raises:
        UnknownFamilyError: Nothing matches; the message lists the families and the known
            parser names.
    """
    text = os.fspath(model)
    path = Path(text).expanduser()
    if path.is_dir():
        config = _read_config(path)
        family = _match_local(path, config)
        if family is not None and family.needs_file and not (path / family.needs_file).exists():
            family = get_family(family.fallback) if family.fallback else family
        if family is not None:
            return family
        raise _unknown(text, _describe_config(config))
    family = _match_name(_repo_name(text))
    if family is None:
        raise _unknown(text, "")
    return family


def _repo_name(model: str) -> str:
    return model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]


def _match_name(name: str) -> ModelFamily | None:
    return next((f for f in FAMILIES if name and f.matches(name)), None)


def _match_local(path: Path, config: dict[str, Any]) -> ModelFamily | None:
    name_or_path = config.get("_name_or_path")
    names = [_repo_name(name_or_path)] if isinstance(name_or_path, str) else []
    names.append(path.resolve().name)
    for name in names:
        family = _match_name(name)
        if family is not None:
            return family
    model_type = config.get("model_type")
    architectures = config.get("architectures")
    archs = (
        [a for a in architectures if isinstance(a, str)] if isinstance(architectures, list) else []
    )
    for family in FAMILIES:
        if model_type in family.model_types or any(a in family.architectures for a in archs):
            return family
    return None


def _read_config(path: Path) -> dict[str, Any]:
    try:
        data = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _describe_config(config: dict[str, Any]) -> str:
    if not config:
        return " (its folder has no readable config.json)"
    return (
        f" (config.json: model_type={config.get('model_type')!r}, "
        f"architectures={config.get('architectures')!r}, "
        f"_name_or_path={config.get('_name_or_path')!r})"
    )


def _unknown(model: str, detail: str) -> UnknownFamilyError:
    parsers = known_tool_parsers()
    summary = (
        f"No tool-calling family is known for {model!r}{detail}, so the vLLM tool parser to use "
        "is unknown."
    )
    message = (
        f"{summary}\n"
        f"Families: {', '.join(f.name for f in FAMILIES)}.\n"
        f"Parsers used by the registry: {', '.join(parsers)}."
    )
    return UnknownFamilyError(message, model=model, known_parsers=parsers, summary=summary)
